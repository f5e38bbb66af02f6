import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openStorage } from '../../src/storage/database.js';

const ROWS = 2_000;

/** Writes ~2 MB in small transactions and returns the database file's growth in bytes after a pause. */
async function growthAfterWrites(file: string, backgroundCheckpointMs?: number): Promise<number> {
  const storage = openStorage({
    sqliteFile: file,
    ...(backgroundCheckpointMs ? { backgroundCheckpointMs } : {}),
  });
  try {
    await sql`create table filler (id integer primary key, body text not null)`.execute(storage.db);
    const before = statSync(file).size;
    const body = 'x'.repeat(1_000);
    for (let i = 0; i < ROWS; i += 100) {
      await storage.writeTransaction(async (trx) => {
        for (let j = i; j < i + 100; j++)
          await sql`insert into filler (id, body) values (${j}, ${body})`.execute(trx);
      });
    }
    await sleep(300);
    return statSync(file).size - before;
  } finally {
    await storage.close();
  }
}

describe('WAL checkpoints in a worker thread', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'authority-wal-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies committed frames into the database file off the event loop, and loses nothing on close', async () => {
    const file = path.join(dir, 'background.db');
    const growth = await growthAfterWrites(file, 20);
    assert.ok(growth > 1_500_000, `the worker checkpointed the WAL into the file (grew ${growth} bytes)`);
    const reopened = openStorage({ sqliteFile: file });
    const row = await sql<{ n: number }>`select count(*) as n from filler`.execute(reopened.db);
    assert.equal(row.rows[0]?.n, ROWS);
    await reopened.close();
  });

  it('without it, 2 MB stay in the WAL below the inline threshold (the control for the test above)', async () => {
    const growth = await growthAfterWrites(path.join(dir, 'inline.db'));
    assert.ok(growth < 500_000, `nothing was checkpointed inline yet (grew ${growth} bytes)`);
  });
});
