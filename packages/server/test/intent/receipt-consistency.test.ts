import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type JwksDocument, type Receipt, staticJwks, verifyReceipt } from '@authority-runtime/sdk';
import { intentRepository } from '../../src/intent/repositories/intent-repository.js';
import { createIntentEvidence } from '../../src/intent/use-cases/intent-evidence.js';
import { ROTATION_GUARD_MS } from '../../src/tokens/signing-keys.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

// A receipt is read in several statements; these make a writer commit between two of them.
for (const engine of ENGINES) {
  describe(`receipts read while the intent or the keys change (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let approver: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
      approver = await t.roleHeaders('acme', 'approver');
    });
    after(async () => {
      await t.close();
    });

    // The receipt of an intent with a live token is its submitter's (docs/audit-chain.md).
    const submitterOf = async (intentId: string): Promise<string> => {
      const intent = await intentRepository.get(t.storage.db, 'acme', intentId);
      assert.ok(intent);
      return intent.principalId;
    };
    // The tenant's public key set as a verifier pins it: the JWKS and its archive, read over HTTP.
    const publishedKeys = async (): Promise<JwksDocument> => {
      const current = (await t.app.inject({ url: '/.well-known/authority/acme/jwks.json' })).json();
      const archive = (await t.app.inject({ url: '/.well-known/authority/acme/jwks-archive.json' })).json();
      return { keys: [...current.keys, ...archive.keys] };
    };
    const verify = async (receipt: Receipt) => {
      const logKey = (await t.app.inject({ url: '/.well-known/authority/acme/log-key' })).body;
      return verifyReceipt(JSON.parse(JSON.stringify(receipt)), {
        jwks: staticJwks(await publishedKeys()),
        logKey,
      });
    };
    const rotate = async () => {
      const rotated = await t.app.inject({ method: 'POST', url: '/authority/keys/rotate', headers: owner });
      assert.equal(rotated.statusCode, 201, rotated.body);
    };

    it('a token minted while the entries are read: the receipt names it beside its token.issued entry', async () => {
      const submitted = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('merge pull request 42'),
      });
      assert.equal(submitted.statusCode, 202, submitted.body);
      const { intentId } = submitted.json() as { intentId: string };
      const approved = await t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers: approver,
        payload: { intentId, decision: 'approve', rationale: 'Reviewed the change and the blast radius' },
      });
      assert.equal(approved.statusCode, 200, approved.body);

      let minted: string | undefined;
      const audit = {
        ...t.services.audit,
        entriesForIntent: async (tenantId: string, id: string) => {
          if (minted === undefined) {
            const issued = await t.app.inject({ method: 'POST', url: `/intent/${id}/token`, headers: agent });
            assert.equal(issued.statusCode, 200, issued.body);
            minted = issued.json().authorityDecisionToken as string;
          }
          return t.services.audit.entriesForIntent(tenantId, id);
        },
      };
      const evidence = createIntentEvidence({ ...t.services, storage: t.storage, clock: t.clock, audit });
      const receipt = await evidence.receipt('acme', intentId, await submitterOf(intentId));
      assert.ok(minted);
      assert.deepEqual(
        {
          tokenIssued: receipt.entries.some((entry) => entry.eventType === 'token.issued'),
          decision: receipt.decision,
          token: receipt.token,
          valid: (await verify(receipt)).valid,
        },
        { tokenIssued: true, decision: 'APPROVED', token: minted, valid: true },
      );
    });

    it('a key rotated right after the receipt took its signer: every key listed once, the signer among them', async () => {
      await rotate();
      t.clock.advance(ROTATION_GUARD_MS + 1_000);
      const submitted = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('read the deployment status'),
      });
      assert.equal(submitted.statusCode, 200, submitted.body);
      t.clock.advance(ROTATION_GUARD_MS + 1_000);

      let rotated = false;
      const signingKeys = {
        ...t.services.signingKeys,
        signer: async (tenantId: string) => {
          const signer = await t.services.signingKeys.signer(tenantId);
          if (!rotated) {
            rotated = true;
            await rotate();
          }
          return signer;
        },
      };
      const evidence = createIntentEvidence({
        ...t.services,
        storage: t.storage,
        clock: t.clock,
        signingKeys,
      });
      const intentId = submitted.json().intentId as string;
      const receipt = await evidence.receipt('acme', intentId, await submitterOf(intentId));
      assert.ok(rotated);
      const kids = receipt.jwks.keys.map((key) => key.kid);
      assert.equal(new Set(kids).size, kids.length, `listed twice: ${kids.join(', ')}`);
      const published = (await publishedKeys()).keys.map((key) => key.kid);
      assert.deepEqual(
        [...kids].sort(),
        [...published].sort(),
        'every key of the tenant, retired ones included',
      );
      const checked = await verify(receipt);
      assert.equal(checked.valid, true, JSON.stringify(checked));
    });
  });
}
