import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  hashFromHex,
  parseVerifierKey,
  verifyCheckpoint,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '@authority-runtime/sdk';
import { chainRepository } from '../../src/chain/chain-repository.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { appendEvents } from '../helpers/audit.js';
import { Rfc9162Tree } from '../helpers/rfc9162.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`transparency log routes (${engine})`, () => {
    let t: TestApp;
    let headers: Headers;
    let auditor: Headers;
    let agent: Headers;

    before(async () => {
      t = await createTestApp(engine, { PUBLIC_BASE_URL: 'https://audit.example.com:8443/base' });
      headers = await t.ownerHeaders('acme');
      auditor = await t.roleHeaders('acme', 'auditor');
      agent = await t.roleHeaders('acme', 'agent');
      // The two keys above are the chain's first two entries (apikey.created): 11 in all.
      await appendEvents(t.storage, 'acme', 9, t.clock, 2);
    });
    after(async () => {
      await t.close();
    });

    const get = (url: string, h: Headers = headers) => t.app.inject({ method: 'GET', url, headers: h });
    const logKey = async () => (await get('/.well-known/authority/acme/log-key', {})).body.replace(/\n$/, '');
    const reference = async (size: number) => {
      const stored = await chainRepository.storedEntries(t.storage.db, 'acme', { from: 0, to: size - 1 });
      return new Rfc9162Tree(stored.map((entry) => hashFromHex(entry.entryHash)));
    };

    it('publishes the log key as one line of text: origin, key ID, base64(0x01 ‖ public key)', async () => {
      const res = await get('/.well-known/authority/acme/log-key', {});
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.match(res.body, /^audit\.example\.com:8443\/audit\/acme\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*\n$/);
      const key = parseVerifierKey(res.body.trimEnd());
      const [, id] = res.body.split('+');
      // Key ID = SHA-256(origin ‖ 0x0A ‖ 0x01 ‖ public key)[:4], computed here from the contract text.
      const expected = createHash('sha256')
        .update(
          Buffer.concat([Buffer.from('audit.example.com:8443/audit/acme\n'), Buffer.of(1), key.publicKey]),
        )
        .digest()
        .subarray(0, 4)
        .toString('hex');
      assert.equal(id, expected);
      assert.equal(await logKey(), res.body.trimEnd(), 'the key is created once and kept');
      assert.equal((await get('/.well-known/authority/nobody/log-key', {})).statusCode, 404);
    });

    it('answers a checkpoint note of the current chain length, signed by the log key, with the RFC root', async () => {
      const res = await get('/audit/acme/checkpoint', auditor);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      const outcome = verifyCheckpoint(res.body, { logKey: await logKey() });
      assert.ok(outcome.valid, JSON.stringify(outcome));
      assert.equal(outcome.checkpoint.size, 11);
      assert.equal(outcome.checkpoint.origin, 'audit.example.com:8443/audit/acme');
      assert.deepEqual(outcome.checkpoint.rootHash, (await reference(11)).mth(0, 11));
      assert.match(
        res.body,
        /^audit\.example\.com:8443\/audit\/acme\n11\n[A-Za-z0-9+/]{43}=\n\n— audit\.example\.com:8443\/audit\/acme [A-Za-z0-9+/]+=*\n$/,
      );
      assert.equal(
        (await get('/audit/acme/checkpoint', auditor)).body,
        res.body,
        'the stored note, the same bytes',
      );
      await appendEvents(t.storage, 'acme', 2, t.clock, 11);
      const next = verifyCheckpoint((await get('/audit/acme/checkpoint', auditor)).body, {
        logKey: await logKey(),
      });
      assert.ok(next.valid);
      assert.equal(next.checkpoint.size, 13, 'a reader never waits for the cadence');
    });

    it('signs a note on the checkpoint cadence too', async () => {
      await appendEvents(t.storage, 'acme', 1, t.clock, 13);
      assert.ok(await t.services.checkpointer.checkpointNow('acme'));
      const stored = await t.storage.db
        .selectFrom('log_checkpoints')
        .select('tree_size')
        .where('tenant_id', '=', 'acme')
        .orderBy('tree_size', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(stored.tree_size, 14);
    });

    it('answers inclusion proofs that verify against the note, for every index and size', async () => {
      const key = await logKey();
      const ref = await reference(14);
      for (let size = 1; size <= 14; size++) {
        for (let index = 0; index < size; index++) {
          const res = await get(`/audit/acme/proof/inclusion?index=${index}&treeSize=${size}`, auditor);
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json();
          assert.deepEqual(body.proof.map(hashFromHex), ref.path(index, size));
          assert.equal(body.leafHash, Buffer.from(ref.mth(index, index + 1)).toString('hex'));
          if (size === 14) {
            const note = verifyCheckpoint((await get('/audit/acme/checkpoint', auditor)).body, {
              logKey: key,
            });
            assert.ok(note.valid);
            const check = verifyInclusionProof({
              index,
              treeSize: size,
              leafHash: hashFromHex(body.leafHash),
              proof: body.proof.map(hashFromHex),
              rootHash: note.checkpoint.rootHash,
            });
            assert.ok(check.valid, JSON.stringify(check));
          }
        }
      }
    });

    it('answers consistency proofs, the empty proof for from = to', async () => {
      const ref = await reference(14);
      for (let to = 1; to <= 14; to++) {
        for (let from = 1; from <= to; from++) {
          const res = await get(`/audit/acme/proof/consistency?from=${from}&to=${to}`, auditor);
          assert.equal(res.statusCode, 200, res.body);
          const proof = res.json().proof.map(hashFromHex);
          assert.deepEqual(proof, ref.proof(from, to));
          const check = verifyConsistencyProof({
            fromSize: from,
            toSize: to,
            fromRoot: ref.mth(0, from),
            toRoot: ref.mth(0, to),
            proof,
          });
          assert.ok(check.valid, `${from} → ${to}: ${JSON.stringify(check)}`);
        }
      }
    });

    it('refuses bad sizes and indexes with 400 naming the parameter, never 500', async () => {
      const cases: Array<[string, string]> = [
        ['/audit/acme/proof/inclusion?index=14&treeSize=14', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=0&treeSize=15', 'querystring/treeSize'],
        ['/audit/acme/proof/inclusion?index=0&treeSize=0', 'querystring/treeSize'],
        ['/audit/acme/proof/inclusion?index=-1&treeSize=3', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=x&treeSize=3', 'querystring/index'],
        ['/audit/acme/proof/inclusion?treeSize=3', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=0&treeSize=99999999999', 'querystring/treeSize'],
        ['/audit/acme/proof/consistency?from=0&to=3', 'querystring/from'],
        ['/audit/acme/proof/consistency?from=4&to=3', 'querystring/from'],
        ['/audit/acme/proof/consistency?from=1&to=15', 'querystring/to'],
        ['/audit/acme/proof/consistency?from=1', 'querystring/to'],
        ['/audit/acme/proof/consistency?from=1&to=2&extra=1', 'querystring'],
        // Text that only converts to a number by truncating, reading hex or an exponent, or from a
        // blank or a boolean: refused, not answered for a number the caller never wrote.
        ['/audit/acme/proof/inclusion?index=1.5&treeSize=5', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=&treeSize=3', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=true&treeSize=3', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=0x1&treeSize=5', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=+1&treeSize=5', 'querystring/index'],
        ['/audit/acme/proof/inclusion?index=0&treeSize=1e1', 'querystring/treeSize'],
        ['/audit/acme/proof/inclusion?index=2&treeSize=3.7', 'querystring/treeSize'],
        ['/audit/acme/proof/inclusion?index=0&treeSize=%203', 'querystring/treeSize'],
        ['/audit/acme/proof/consistency?from=1.9&to=5', 'querystring/from'],
        ['/audit/acme/proof/consistency?from=2&to=4.5', 'querystring/to'],
      ];
      for (const [url, path] of cases) {
        const res = await get(url, auditor);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        const error = res.json().error;
        assert.equal(error.code, 'VALIDATION_ERROR');
        assert.ok(
          error.details.issues.some((issue: { path: string }) => issue.path.startsWith(path)),
          `${url}: ${JSON.stringify(error.details)}`,
        );
      }
    });

    it('needs audit:read for the note and the proofs', async () => {
      for (const url of ['/audit/acme/checkpoint', '/audit/acme/proof/inclusion?index=0&treeSize=1']) {
        const res = await get(url, agent);
        assert.equal(res.statusCode, 403);
        assert.equal(res.json().error.details.permission, 'audit:read');
      }
    });
  });
}
