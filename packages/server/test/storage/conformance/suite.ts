import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SqlDialect } from '../../../src/storage/database.js';
import { manualClock } from '../../helpers/app.js';
import { createTestStorage, type TestStorage } from '../../helpers/storage.js';
import { chainConformance } from './chain.js';
import { connectorConformance } from './connectors.js';
import { type CallLog, type Conformance, repositoryMethods, trackedRepositories } from './context.js';
import { idempotencyConformance } from './idempotency.js';
import { intentConformance } from './intent.js';
import { merkleTreeConformance } from './merkle-tree.js';
import { physicalConformance } from './physical.js';
import { physicalPolicyAndKeyConformance } from './physical-policy-and-keys.js';
import { portalConformance } from './portal.js';
import { tenantControlConformance } from './tenant-controls.js';
import { tenantAndKeyConformance } from './tenants-and-keys.js';
import { tokenConformance } from './tokens.js';
import { webhookConformance } from './webhooks.js';
import { witnessConformance } from './witnesses.js';

/**
 * The storage conformance suite: every method of every repository, run against one engine. The
 * test file runs it once per engine (SQLite always, PostgreSQL when DATABASE_URL is set), and its
 * last test fails when some repository method was not called by any section. To extend it, add
 * the repository to `context.ts` and call each of its methods from a section (a new file here,
 * registered below).
 */
export function storageConformance(engine: SqlDialect): void {
  describe(`storage conformance (${engine})`, () => {
    let t: TestStorage;
    const calls: CallLog = new Set();
    const conformance: Conformance = {
      engine,
      get storage() {
        return t.storage;
      },
      clock: manualClock(),
      repos: trackedRepositories(calls),
    };
    before(async () => {
      t = await createTestStorage(engine);
    });
    after(async () => {
      await t.dispose();
    });

    tenantAndKeyConformance(conformance);
    tenantControlConformance(conformance);
    chainConformance(conformance);
    merkleTreeConformance(conformance);
    tokenConformance(conformance);
    idempotencyConformance(conformance);
    webhookConformance(conformance);
    connectorConformance(conformance);
    portalConformance(conformance);
    intentConformance(conformance);
    physicalConformance(conformance);
    physicalPolicyAndKeyConformance(conformance);
    witnessConformance(conformance);

    it('called every method of every repository in the source tree', async () => {
      const { methods, unlisted } = await repositoryMethods();
      assert.deepEqual(
        unlisted,
        [],
        'repositories missing from the suite (test/storage/conformance/context.ts)',
      );
      assert.ok(methods.size > 100, `found only ${methods.size} repository methods`);
      const missed = [...methods].filter((method) => !calls.has(method)).sort();
      assert.deepEqual(missed, [], 'repository methods no section of the suite calls');
    });
  });
}
