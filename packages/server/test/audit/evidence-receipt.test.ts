import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  hashFromHex,
  leafHash,
  verifyCheckpoint,
  verifyInclusionProof,
  verifyReceipt,
} from '@authority-runtime/sdk';
import { canonicalJson, sha256Hex } from '../../src/crypto/canonical-json.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { alterStoredEntry } from '../helpers/audit.js';
import { intentPayload, recordIntent } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`evidence bundles and receipts (${engine})`, () => {
    let t: TestApp;
    let headers: Record<string, string>;
    let otherHeaders: Record<string, string>;
    let ownerId: string;

    before(async () => {
      t = await createTestApp(engine);
      const { ownerKey } = await t.createTenant('acme');
      ownerId = ownerKey.id;
      headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'acme' };
      otherHeaders = await t.ownerHeaders('other');
    });
    after(async () => {
      await t.close();
    });

    it('signs the evidence bundle with the tenant evidence secret over intentId:integrityHash', async () => {
      const rotated = await t.app.inject({
        method: 'POST',
        url: '/authority/secrets/evidence/rotate',
        headers,
      });
      assert.equal(rotated.statusCode, 201, rotated.body);
      assert.equal(rotated.headers['cache-control'], 'no-store');
      const { secret, secretId } = rotated.json();
      const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'APPROVED',
      });

      const response = await t.app.inject({
        method: 'GET',
        url: `/intent/${intentId}/evidence-bundle`,
        headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      const bundle = response.json();
      assert.equal(bundle.intentId, intentId);
      assert.equal(bundle.secretId, secretId);
      assert.deepEqual(
        bundle.events.map((e: { eventType: string }) => e.eventType),
        ['intent.received', 'intent.decided', 'token.issued'],
      );
      assert.equal(bundle.integrityHash, `sha256:${sha256Hex(canonicalJson(bundle.events))}`);
      const expected = createHmac('sha256', Buffer.from(secret, 'base64url'))
        .update(`${intentId}:${bundle.integrityHash}`)
        .digest('base64url');
      assert.equal(bundle.signature, expected);
      const forged = createHmac('sha256', Buffer.alloc(32))
        .update(`${intentId}:${bundle.integrityHash}`)
        .digest('base64url');
      assert.notEqual(bundle.signature, forged);
    });

    it('signs no evidence bundle and seals no receipt over an entry altered where it is stored (409 chain_broken)', async () => {
      const tamperedHeaders = await t.ownerHeaders('tampered');
      const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'tampered',
        decision: 'DENIED',
      });
      const urls = [`/intent/${intentId}/evidence-bundle`, `/intent/${intentId}/receipt`];
      for (const url of urls) {
        assert.equal(
          (await t.app.inject({ method: 'GET', url, headers: tamperedHeaders })).statusCode,
          200,
          url,
        );
      }
      const row = await t.storage.db
        .selectFrom('audit_entries')
        .select('idx')
        .where('tenant_id', '=', 'tampered')
        .where('intent_id', '=', intentId)
        .where('event_type', '=', 'intent.decided')
        .executeTakeFirstOrThrow();
      await alterStoredEntry(t.storage, 'tampered', row.idx, (text) =>
        text.replace('"decision":"DENIED"', '"decision":"APPROVED"'),
      );
      for (const url of urls) {
        const refused = await t.app.inject({ method: 'GET', url, headers: tamperedHeaders });
        assert.equal(refused.statusCode, 409, `${url}: ${refused.body}`);
        assert.equal(refused.json().error.code, 'CONFLICT');
        assert.deepEqual(refused.json().error.details, { reason: 'chain_broken', brokenAt: row.idx });
        assert.ok(!refused.body.includes('"signature"'));
      }
    });

    it('keeps old evidence secrets addressable by id after a rotation', async () => {
      const first = (
        await t.app.inject({ method: 'POST', url: '/authority/secrets/evidence/rotate', headers })
      ).json();
      const second = (
        await t.app.inject({ method: 'POST', url: '/authority/secrets/evidence/rotate', headers })
      ).json();
      assert.notEqual(first.secretId, second.secretId);
      assert.deepEqual(
        (await t.services.secrets.byId('acme', first.secretId))?.secret,
        Buffer.from(first.secret, 'base64url'),
      );
      assert.equal(await t.services.secrets.byId('other', first.secretId), undefined);
    });

    it('serves a version-2 receipt whose seal binds the entries to the chain head, and whose checkpoint and proofs put them in the log', async () => {
      const { intentId, token } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'APPROVED',
        principalId: ownerId,
      });
      const response = await t.app.inject({ method: 'GET', url: `/v1/intent/${intentId}/receipt`, headers });
      assert.equal(response.statusCode, 200, response.body);
      const receipt = response.json();
      assert.equal(receipt.receiptVersion, 2);
      assert.equal(receipt.token, token);
      assert.equal(receipt.decision, 'APPROVED');
      assert.deepEqual(
        receipt.seal.entryHashes,
        receipt.entries.map((e: { entryHash: string }) => e.entryHash),
      );
      assert.ok(receipt.entries.every((e: { index: number }) => e.index <= receipt.seal.headIndex));
      const head = await t.storage.db
        .selectFrom('audit_heads')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .executeTakeFirstOrThrow();
      assert.equal(receipt.seal.headIndex, head.last_index);
      assert.equal(receipt.seal.headHash, head.last_hash);
      const [sealHeader, sealPayload] = receipt.seal.signature.split('.');
      const { signature: _s, ...sealFields } = receipt.seal;
      assert.equal(Buffer.from(sealPayload, 'base64url').toString(), canonicalJson(sealFields));
      assert.equal(
        JSON.parse(Buffer.from(sealHeader, 'base64url').toString()).typ,
        'authority-receipt-seal+jws',
      );
      assert.ok(receipt.jwks.keys.length >= 1);

      const logKey = (await t.app.inject({ url: '/.well-known/authority/acme/log-key' })).body;
      const checkpoint = verifyCheckpoint(receipt.checkpoint, { logKey });
      assert.ok(checkpoint.valid, JSON.stringify(checkpoint));
      assert.equal(checkpoint.checkpoint.size, head.last_index + 1);
      assert.deepEqual(
        receipt.inclusion.map((item: { index: number }) => item.index),
        receipt.entries.map((e: { index: number }) => e.index),
      );
      for (const [position, entry] of receipt.entries.entries()) {
        const proof = await t.app.inject({
          url: `/v1/audit/acme/proof/inclusion?index=${entry.index}&treeSize=${head.last_index + 1}`,
          headers,
        });
        assert.deepEqual(receipt.inclusion[position].proof, proof.json().proof);
        const outcome = verifyInclusionProof({
          index: entry.index,
          treeSize: checkpoint.checkpoint.size,
          leafHash: leafHash(entry.entryHash),
          proof: receipt.inclusion[position].proof.map(hashFromHex),
          rootHash: checkpoint.checkpoint.rootHash,
        });
        assert.ok(outcome.valid, JSON.stringify(outcome));
      }
      const jwks = (await t.app.inject({ url: '/.well-known/authority/acme/jwks.json' })).json();
      const verified = await verifyReceipt(receipt, { jwks, logKey, expectedTenantId: 'acme' });
      assert.ok(verified.valid, JSON.stringify(verified));
      // The same intent's receipt, asked again at the same head, carries the same checkpoint.
      const again = (
        await t.app.inject({ method: 'GET', url: `/v1/intent/${intentId}/receipt`, headers })
      ).json();
      assert.equal(again.checkpoint, receipt.checkpoint);
    });

    it('answers 409 for an escalation still pending, and gives denied intents a receipt without token', async () => {
      const pending = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'ESCALATED',
        pending: true,
      });
      const conflict = await t.app.inject({
        method: 'GET',
        url: `/intent/${pending.intentId}/receipt`,
        headers,
      });
      assert.equal(conflict.statusCode, 409);
      assert.equal(conflict.json().error.code, 'CONFLICT');
      const denied = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'DENIED',
      });
      const receipt = await t.app.inject({
        method: 'GET',
        url: `/intent/${denied.intentId}/receipt`,
        headers,
      });
      assert.equal(receipt.statusCode, 200);
      assert.equal(receipt.json().token, null);
    });

    it("withholds a live token's receipt from every principal but the submitter, until the token is spent or expired", async () => {
      const submitter = await t.roleHeaders('acme', 'agent');
      const readers = {
        'another agent key': await t.roleHeaders('acme', 'agent'),
        auditor: await t.roleHeaders('acme', 'auditor'),
        approver: await t.roleHeaders('acme', 'approver'),
        owner: headers,
      };
      const submit = async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/intent',
          headers: submitter,
          payload: intentPayload('read the deployment status'),
        });
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json();
        return { intentId: body.intentId as string, token: body.authorityDecisionToken as string };
      };
      const receiptAs = (reader: Record<string, string>, intentId: string) =>
        t.app.inject({ method: 'GET', url: `/intent/${intentId}/receipt`, headers: reader });

      const spent = await submit();
      for (const [name, reader] of Object.entries(readers)) {
        const refused = await receiptAs(reader, spent.intentId);
        assert.equal(refused.statusCode, 409, `${name}: ${refused.body}`);
        assert.equal(refused.json().error.code, 'CONFLICT');
        assert.equal(refused.json().error.details.reason, 'token_live');
        assert.ok(!refused.body.includes(spent.token), name);
      }
      const own = await receiptAs(submitter, spent.intentId);
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(own.json().token, spent.token);
      const consumed = await t.app.inject({
        method: 'POST',
        url: '/authority/tokens/consume',
        headers: submitter,
        payload: { token: spent.token, adapterId: 'external', targetSystem: 'acme/payments' },
      });
      assert.equal(consumed.json().valid, true, consumed.body);
      for (const [name, reader] of Object.entries(readers)) {
        const served = await receiptAs(reader, spent.intentId);
        assert.equal(served.statusCode, 200, `${name} after the token was consumed: ${served.body}`);
        assert.equal(served.json().token, spent.token);
      }

      const lapsed = await submit();
      const early = await receiptAs(readers.auditor, lapsed.intentId);
      assert.equal(early.statusCode, 409, early.body);
      const availableAt = Date.parse(early.json().error.details.availableAt);
      t.clock.advance(availableAt - t.clock() - 1);
      assert.equal((await receiptAs(readers.auditor, lapsed.intentId)).statusCode, 409, 'one ms before');
      t.clock.advance(1);
      const late = await receiptAs(readers.auditor, lapsed.intentId);
      assert.equal(late.statusCode, 200, late.body);
      assert.equal(late.json().token, lapsed.token);
    });

    it("answers another tenant's intent exactly like a missing one", async () => {
      const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'APPROVED',
      });
      for (const url of [`/intent/${intentId}/receipt`, `/intent/${intentId}/evidence-bundle`]) {
        const foreign = await t.app.inject({ method: 'GET', url, headers: otherHeaders });
        const missing = await t.app.inject({
          method: 'GET',
          url: url.replace(intentId, '01a20000-0000-7000-8000-000000000000'),
          headers,
        });
        assert.equal(foreign.statusCode, 404);
        assert.equal(missing.statusCode, 404);
        assert.equal(foreign.json().error.message, missing.json().error.message);
        assert.ok(!foreign.body.includes(intentId), 'nothing about the foreign intent leaks');
      }
    });

    it('requires intent:read, and tenant:admin for secret rotation', async () => {
      const edge = await t.services.apiKeys.create('acme', { name: 'edge', role: 'edge' }, null);
      const edgeHeaders = { authorization: `Bearer ${edge.key}`, 'x-tenant-id': 'acme' };
      const { intentId } = await recordIntent(t.storage, t.services, t.clock(), {
        tenantId: 'acme',
        decision: 'DENIED',
      });
      const receipt = await t.app.inject({
        method: 'GET',
        url: `/intent/${intentId}/receipt`,
        headers: edgeHeaders,
      });
      assert.equal(receipt.json().error.details.permission, 'intent:read');
      const admin = await t.services.apiKeys.create('acme', { name: 'admin', role: 'admin' }, null);
      const rotate = await t.app.inject({
        method: 'POST',
        url: '/authority/secrets/permission/rotate',
        headers: { authorization: `Bearer ${admin.key}`, 'x-tenant-id': 'acme' },
      });
      assert.equal(rotate.statusCode, 403);
      assert.equal(rotate.json().error.details.permission, 'tenant:admin');
    });
  });
}
