import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { resolveMasterKey } from '../../src/config/master-key.js';
import { openStorage } from '../../src/storage/database.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('the data directory and every file in it are the owner’s only', {
  skip: process.platform === 'win32',
}, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'authority-modes-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const previousUmask = process.umask(0o022);
  after(() => process.umask(previousUmask));

  test('a new embedded data directory: 0700, and authority.db, its WAL and shared memory, master.key 0600', async () => {
    const dataDir = path.join(root, 'fresh', 'data');
    const storage = openStorage({ dataDir });
    try {
      await storage.migrate();
      resolveMasterKey(loadConfig({ DATA_DIR: dataDir }));
      const db = path.join(dataDir, 'authority.db');
      assert.equal(modeOf(dataDir).toString(8), '700');
      for (const file of [db, `${db}-wal`, `${db}-shm`, path.join(dataDir, 'master.key')]) {
        assert.equal(modeOf(file).toString(8), '600', file);
      }
    } finally {
      await storage.close();
    }
  });

  test('an existing install left readable by others is tightened when it is opened', async () => {
    const dataDir = path.join(root, 'old');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const first = openStorage({ dataDir });
    await first.migrate();
    await first.close();
    resolveMasterKey(loadConfig({ DATA_DIR: dataDir }));
    const db = path.join(dataDir, 'authority.db');
    const key = path.join(dataDir, 'master.key');
    writeFileSync(`${db}-wal`, '');
    for (const file of [db, `${db}-wal`, key]) chmodSync(file, 0o644);
    chmodSync(dataDir, 0o755);

    const storage = openStorage({ dataDir });
    await storage.close();
    resolveMasterKey(loadConfig({ DATA_DIR: dataDir }));
    assert.equal(modeOf(dataDir).toString(8), '700');
    for (const file of [db, `${db}-wal`, key]) assert.equal(modeOf(file).toString(8), '600', file);
  });
});
