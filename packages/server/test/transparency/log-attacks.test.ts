import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  hashFromHex,
  verifyCheckpoint,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '@authority-runtime/sdk';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { appendEvents } from '../helpers/audit.js';
import { ENGINES } from '../helpers/storage.js';

/**
 * What an attacker holding the database and the log key would forge (contract §15), and what a
 * verifier holding an earlier checkpoint and the pinned key sees: every forgery fails a check.
 */
for (const engine of ENGINES) {
  describe(`transparency log attacks (${engine})`, () => {
    let t: TestApp;
    let headers: Headers;
    let otherHeaders: Headers;

    before(async () => {
      t = await createTestApp(engine);
      headers = await t.ownerHeaders('acme');
      otherHeaders = await t.ownerHeaders('other');
    });
    after(async () => {
      await t.close();
    });

    const get = async (url: string, h: Headers = headers) => {
      const res = await t.app.inject({ method: 'GET', url, headers: h });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };
    const logKey = async (tenant = 'acme') =>
      (await get(`/.well-known/authority/${tenant}/log-key`, {})).body.trimEnd();
    const checkpoint = async (tenant = 'acme', h = headers) => {
      const outcome = verifyCheckpoint((await get(`/audit/${tenant}/checkpoint`, h)).body, {
        logKey: await logKey(tenant),
      });
      assert.ok(outcome.valid, JSON.stringify(outcome));
      return outcome.checkpoint;
    };
    const consistency = async (from: number, to: number) =>
      (await get(`/audit/acme/proof/consistency?from=${from}&to=${to}`)).json().proof.map(hashFromHex);

    /** Rebuilds the tree and forgets the notes, as an attacker re-signing a forged history would. */
    async function forgetTree(): Promise<void> {
      await t.storage.db.deleteFrom('audit_tree_hashes').where('tenant_id', '=', 'acme').execute();
      await t.storage.db.deleteFrom('log_checkpoints').where('tenant_id', '=', 'acme').execute();
      await t.storage.db
        .updateTable('audit_heads')
        .set({ tree_size: 0, tree_frontier: '' })
        .where('tenant_id', '=', 'acme')
        .execute();
    }

    it('a proof for another index or another size does not verify', async () => {
      await appendEvents(t.storage, 'acme', 10, t.clock);
      const head = await checkpoint();
      const proof = (await get('/audit/acme/proof/inclusion?index=3&treeSize=10')).json();
      const input = {
        index: 3,
        treeSize: 10,
        leafHash: hashFromHex(proof.leafHash),
        proof: proof.proof.map(hashFromHex),
        rootHash: head.rootHash,
      };
      assert.equal(verifyInclusionProof(input).valid, true);
      assert.equal(verifyInclusionProof({ ...input, index: 4 }).valid, false);
      const smaller = (await get('/audit/acme/proof/inclusion?index=3&treeSize=9')).json();
      assert.equal(verifyInclusionProof({ ...input, proof: smaller.proof.map(hashFromHex) }).valid, false);
    });

    it("another tenant's checkpoint does not verify under this tenant's key", async () => {
      await appendEvents(t.storage, 'other', 3, t.clock);
      const note = (await get('/audit/other/checkpoint', otherHeaders)).body;
      const outcome = verifyCheckpoint(note, { logKey: await logKey('acme') });
      assert.equal(outcome.valid, false);
      assert.notEqual(await logKey('other'), await logKey('acme'));
    });

    it('a truncated tail, re-grown and re-signed, fails the consistency check from an older checkpoint', async () => {
      const old = await checkpoint();
      assert.equal(old.size, 10);
      const kept = await t.storage.db
        .selectFrom('audit_entries')
        .select('entry_hash')
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', 7)
        .executeTakeFirstOrThrow();
      await t.storage.db
        .deleteFrom('audit_entries')
        .where('tenant_id', '=', 'acme')
        .where('idx', '>=', 8)
        .execute();
      await t.storage.db
        .updateTable('audit_heads')
        .set({ last_index: 7, last_hash: kept.entry_hash })
        .where('tenant_id', '=', 'acme')
        .execute();
      await forgetTree();
      await appendEvents(t.storage, 'acme', 4, t.clock, 100);
      const forged = await checkpoint();
      assert.equal(forged.size, 12, 'the log signs the forged history');
      const check = verifyConsistencyProof({
        fromSize: old.size,
        toSize: forged.size,
        fromRoot: old.rootHash,
        toRoot: forged.rootHash,
        proof: await consistency(old.size, forged.size),
      });
      assert.equal(check.valid, false);
    });

    it('a rewritten entry with a re-signed checkpoint fails the consistency check and old inclusion proofs', async () => {
      const old = await checkpoint();
      const proof = (await get(`/audit/acme/proof/inclusion?index=2&treeSize=${old.size}`)).json();
      await t.storage.db
        .updateTable('audit_entries')
        .set({ entry_hash: 'ab'.repeat(32) })
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', 2)
        .execute();
      await forgetTree();
      const forged = await checkpoint();
      assert.equal(forged.size, old.size);
      assert.notDeepEqual(forged.rootHash, old.rootHash);
      assert.equal(
        verifyConsistencyProof({
          fromSize: old.size,
          toSize: forged.size,
          fromRoot: old.rootHash,
          toRoot: forged.rootHash,
          proof: [],
        }).valid,
        false,
      );
      const input = {
        index: 2,
        treeSize: old.size,
        leafHash: hashFromHex(proof.leafHash),
        proof: proof.proof.map(hashFromHex),
        rootHash: forged.rootHash,
      };
      assert.equal(verifyInclusionProof(input).valid, false, 'the original entry is no longer in the log');
    });
  });
}
