import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { verifyStoredChain } from '../../src/audit/stored-chain-verification.js';
import { systemClock } from '../../src/foundation/clock.js';
import { tenantRepository } from '../../src/tenancy/tenant-repository.js';
import { createTestStorage, ENGINES } from '../helpers/storage.js';

const WORKER = path.resolve(import.meta.dirname, '../helpers/append-worker.ts');

function runWorker(env: Record<string, string>, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, String(count), 'acme'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`worker exited ${code}: ${errors}`)),
    );
  });
}

for (const engine of ENGINES) {
  describe(`audit appends from two processes (${engine})`, () => {
    it('produce one valid linear chain with no gaps or duplicates', async () => {
      const t = await createTestStorage(engine);
      try {
        await tenantRepository.insert(
          t.storage.db,
          { id: 'acme', name: 'Acme', plan: 'pro', rateLimitPerMinute: null },
          Date.now(),
        );
        const env: Record<string, string> =
          engine === 'sqlite'
            ? { STORAGE_SQLITE_FILE: t.location.sqliteFile ?? '' }
            : { PG_SCHEMA: t.location.pgSchema ?? '', STORAGE_SQLITE_FILE: '' };
        const perProcess = 200;
        await Promise.all([runWorker(env, perProcess), runWorker(env, perProcess)]);
        const result = await verifyStoredChain(t.storage, systemClock, 'acme', async () => undefined);
        assert.deepEqual([result.valid, result.length], [true, 2 * perProcess]);
        const rows = await t.storage.db
          .selectFrom('audit_entries')
          .select('idx')
          .where('tenant_id', '=', 'acme')
          .orderBy('idx')
          .execute();
        assert.deepEqual(
          rows.map((r) => r.idx),
          Array.from({ length: 2 * perProcess }, (_, i) => i),
        );
      } finally {
        await t.dispose();
      }
    });
  });
}
