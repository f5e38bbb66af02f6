import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashFromHex, planConsistencyProof, planInclusionProof, planTreeHash } from '@authority-runtime/sdk';
import fc from 'fast-check';
import type { AuditEvent } from '../../../src/chain/audit-entry.js';
import { STORED_FROM_LEVEL } from '../../../src/chain/subtree-hash-repository.js';
import { Rfc9162Tree } from '../../helpers/rfc9162.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

const event = (n: number): AuditEvent => ({
  correlationId: `c-${n}`,
  intentId: null,
  actorId: 'actor',
  actorType: 'principal:api-key',
  eventType: 'test.tree',
  payload: { n },
});

/** The complete subtrees of a tree of n leaves at or above the lowest stored level. */
function storedHashCount(n: number): number {
  let count = 0;
  for (let level = STORED_FROM_LEVEL; 2 ** level <= n; level++) count += Math.floor(n / 2 ** level);
  return count;
}

/**
 * The Merkle tree over the chain (contract §15), checked against a reference implementation written
 * from RFC 9162's definitions (sdk/test/transparency/rfc9162-reference.ts), not against the SDK.
 */
export function merkleTreeConformance(c: Conformance): void {
  describe('the Merkle tree over the chain', () => {
    async function reference(tenant: string, size: number): Promise<Rfc9162Tree> {
      const stored = await c.repos.chainRepository.storedEntries(c.storage.db, tenant, {
        from: 0,
        to: size - 1,
      });
      return new Rfc9162Tree(stored.map((entry) => hashFromHex(entry.entryHash)));
    }

    async function read(tenant: string, plan: { addresses: readonly { level: number; index: number }[] }) {
      return c.repos.subtreeHashRepository.read(c.storage.db, tenant, plan.addresses);
    }

    it('stores, in the append transaction, the subtree hashes whose root and proofs equal the RFC reference', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.integer({ min: 0, max: 24 }), { minLength: 1, maxLength: 3 }), {
            minLength: 1,
            maxLength: 5,
          }),
          async (transactions) => {
            const tenant = await newTenant(c, 'tree');
            let n = 0;
            const sizes: number[] = [];
            // Each transaction appends several batches, as a group commit does.
            for (const batches of transactions) {
              await c.storage.writeTransaction(async (trx) => {
                for (const count of batches) {
                  await c.repos.chainRepository.append(
                    trx,
                    tenant,
                    Array.from({ length: count }, (_, i) => event(n + i)),
                    1_000,
                  );
                  n += count;
                }
              });
              sizes.push(n);
            }
            const head = await c.repos.chainRepository.head(c.storage.db, tenant);
            assert.equal(head?.tree.treeSize ?? 0, n);
            if (n === 0) return;
            const ref = await reference(tenant, n);
            assert.equal(await c.repos.subtreeHashRepository.count(c.storage.db, tenant), storedHashCount(n));
            for (let size = 1; size <= n; size++) {
              const root = planTreeHash(size);
              assert.deepEqual(root.assemble(await read(tenant, root)), ref.mth(0, size), `root of ${size}`);
            }
            // Proofs at every size a transaction committed, for every index and every older size.
            for (const size of new Set(sizes.filter((s) => s > 0))) {
              for (let m = 0; m < size; m++) {
                const plan = planInclusionProof(m, size);
                assert.deepEqual(
                  plan.assemble(await read(tenant, plan)),
                  ref.path(m, size),
                  `path ${m} ${size}`,
                );
                if (m === 0) continue;
                const proof = planConsistencyProof(m, size);
                assert.deepEqual(
                  proof.assemble(await read(tenant, proof)),
                  ref.proof(m, size),
                  `proof ${m} ${size}`,
                );
              }
            }
          },
        ),
        { numRuns: 10 },
      );
    });

    it('catches up with a chain that grew without a tree, then keeps growing it', async () => {
      const tenant = await newTenant(c, 'tree-legacy');
      await c.storage.writeTransaction((trx) =>
        c.repos.chainRepository.append(
          trx,
          tenant,
          Array.from({ length: 45 }, (_, i) => event(i)),
          1_000,
        ),
      );
      // What a database migrated before the tree looks like: entries, no tree.
      await c.storage.db.deleteFrom('audit_tree_hashes').where('tenant_id', '=', tenant).execute();
      await c.storage.db
        .updateTable('audit_heads')
        .set({ tree_size: 0, tree_frontier: '' })
        .where('tenant_id', '=', tenant)
        .execute();
      const synced = await c.storage.writeTransaction((trx) =>
        c.repos.chainRepository.syncTree(trx, tenant, 2_000),
      );
      assert.equal(synced.tree.treeSize, 45);
      const again = await c.storage.writeTransaction((trx) =>
        c.repos.chainRepository.syncTree(trx, tenant, 2_000),
      );
      assert.deepEqual(again.tree, synced.tree);
      // A legacy tree left behind by a raw insert is caught up by the next append too.
      await c.storage.db
        .updateTable('audit_heads')
        .set({ tree_size: 0, tree_frontier: '' })
        .where('tenant_id', '=', tenant)
        .execute();
      await c.storage.db.deleteFrom('audit_tree_hashes').where('tenant_id', '=', tenant).execute();
      await c.storage.writeTransaction((trx) =>
        c.repos.chainRepository.append(trx, tenant, [event(45), event(46), event(47), event(48)], 3_000),
      );
      const ref = await reference(tenant, 49);
      const root = planTreeHash(49);
      assert.deepEqual(root.assemble(await read(tenant, root)), ref.mth(0, 49));
      assert.equal(await c.repos.subtreeHashRepository.count(c.storage.db, tenant), storedHashCount(49));
    });

    it('refuses to grow a tree longer than its chain, and to read a hash it does not store', async () => {
      const tenant = await newTenant(c, 'tree-bad');
      await assert.rejects(
        c.storage.writeTransaction((trx) =>
          c.repos.subtreeHashRepository.grow(
            trx,
            tenant,
            { treeSize: 1, hashes: [new Uint8Array(32)] },
            0,
            [],
          ),
        ),
        /has 1 leaves, its chain 0/,
      );
      await assert.rejects(
        c.repos.subtreeHashRepository.read(c.storage.db, tenant, [{ level: 0, index: 0 }]),
        /no stored hash at level 0, index 0/,
      );
    });
  });
}
