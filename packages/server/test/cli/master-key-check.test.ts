import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkedMasterKey } from '../../src/cli/master-key-check.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createTestApp, TEST_MASTER_KEY, type TestApp } from '../helpers/app.js';
import { createTestStorage } from '../helpers/storage.js';

const OTHER_KEY = Buffer.alloc(32, 9);

/**
 * A master key that cannot open the database's secrets must stop the start (exit 2, naming where
 * the key came from), never start a service whose every decision is a 500; and a lost master.key
 * is never replaced by a new one over a database sealed under the old.
 */
describe('the master key, checked against the database at start', () => {
  let t: TestApp;
  let dir: string;

  before(async () => {
    t = await createTestApp('sqlite');
    await t.createTenant('acme');
    await t.services.signingKeys.signer('acme');
    dir = mkdtempSync(path.join(tmpdir(), 'authority-master-key-'));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: dir, ...env });
  const refusal = (setting: string, problem: RegExp) => (error: unknown) =>
    error instanceof ConfigError && error.variable === setting && problem.test(error.message);

  it('takes the key the database was sealed under, from the variable or the file', async () => {
    const fromVariable = await checkedMasterKey(
      config({ AUTHORITY_MASTER_KEY: TEST_MASTER_KEY.toString('base64') }),
      t.storage,
    );
    assert.deepEqual(fromVariable, TEST_MASTER_KEY);
    writeFileSync(path.join(dir, 'master.key'), TEST_MASTER_KEY.toString('hex'));
    assert.deepEqual(await checkedMasterKey(config({}), t.storage), TEST_MASTER_KEY);
    rmSync(path.join(dir, 'master.key'));
  });

  it('refuses another key, naming the variable or the file it came from', async () => {
    await assert.rejects(
      checkedMasterKey(config({ AUTHORITY_MASTER_KEY: OTHER_KEY.toString('base64') }), t.storage),
      refusal(
        'AUTHORITY_MASTER_KEY',
        /does not open the secrets this database holds \(the signing key .* of tenant acme\)/,
      ),
    );
    const file = path.join(dir, 'master.key');
    writeFileSync(file, OTHER_KEY.toString('base64'));
    await assert.rejects(checkedMasterKey(config({}), t.storage), refusal(file, /does not open the secrets/));
    rmSync(file);
  });

  it('does not generate a master.key over a database that holds sealed secrets', async () => {
    const file = path.join(dir, 'master.key');
    await assert.rejects(
      checkedMasterKey(config({}), t.storage),
      refusal(file, /is missing, and the database holds secrets/),
    );
    assert.equal(existsSync(file), false, 'no new key was written');
  });

  it('generates the key of a new database, once', async () => {
    const fresh = await createTestStorage('sqlite');
    const freshDir = mkdtempSync(path.join(tmpdir(), 'authority-master-key-'));
    try {
      const freshConfig = loadConfig({ DATA_DIR: freshDir });
      const key = await checkedMasterKey(freshConfig, fresh.storage);
      assert.equal(key.length, 32);
      assert.ok(readFileSync(path.join(freshDir, 'master.key'), 'utf8').trim().length > 0);
      assert.deepEqual(await checkedMasterKey(freshConfig, fresh.storage), key);
    } finally {
      await fresh.dispose();
      rmSync(freshDir, { recursive: true, force: true });
    }
  });
});
