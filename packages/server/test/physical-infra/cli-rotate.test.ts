import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { resolveMasterKey } from '../../src/config/master-key.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { createPhysicalSigner } from '../../src/physical/use-cases/physical-signer.js';
import { openStorage } from '../../src/storage/database.js';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

describe('authority keys rotate-physical (embedded database)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'authority-physical-cli-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  function run(env: Record<string, string>, ...args: string[]) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, '--data-dir', dataDir, ...args], {
      env: { ...process.env, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('rotates the persisted key, which the service then signs with; a second rotation at once is refused', async () => {
    // Like every command but migrate and tenants create, it needs an existing database.
    assert.equal(run({}, 'migrate').status, 0);
    const first = run({}, 'keys', 'rotate-physical');
    assert.equal(first.status, 0, first.stderr);
    const rotation = JSON.parse(first.stdout) as {
      active: { kid: string; status: string; bits: number };
      previous: { kid: string; status: string } | null;
      retired: unknown;
    };
    assert.equal(rotation.active.status, 'ACTIVE');
    assert.equal(rotation.active.bits, 2048);
    // The first rotation creates the first key, then replaces it.
    assert.equal(rotation.previous?.status, 'PREVIOUS');
    assert.equal(rotation.retired, null);

    const config = loadConfig({ DATA_DIR: dataDir });
    const storage = openStorage({ dataDir });
    try {
      const signer = createPhysicalSigner({
        storage,
        clock: Date.now,
        secretBox: createSecretBox(resolveMasterKey(config)),
        bits: 2048,
        ephemeral: false,
      });
      assert.equal((await signer.ensureActive()).kid, rotation.active.kid);
      const jwks = await signer.jwks();
      assert.deepEqual(
        jwks.keys.map((key) => key.kid).sort(),
        [rotation.active.kid, rotation.previous?.kid].sort(),
      );
    } finally {
      await storage.close();
    }

    const second = run({}, 'keys', 'rotate-physical');
    assert.equal(second.status, 1);
    assert.match(second.stderr, /rotate again in \d+ s/);
  });

  it('refuses to rotate an ephemeral key (configuration error, exit 2)', () => {
    const refused = run({ PHYSICAL_SIGNER_EPHEMERAL: '1' }, 'keys', 'rotate-physical');
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /PHYSICAL_SIGNER_EPHEMERAL/);
  });
});
