import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/app/build-server.js';
import { signCompact } from '../../src/crypto/jws.js';
import type { IssuedKey } from '../../src/tenancy/key-service.js';
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js';
import { type MintedToken, mintDecisionToken } from '../../src/tokens/decision-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';
import {
  ADAPTER_ID,
  assertError,
  auditEntries,
  bearer,
  buildSecondApp,
  issueKey,
  mintFor,
  TARGET_SYSTEM,
  tokenRequest,
} from '../helpers/tokens.js';

const ROTATION_GUARD_MS = 305_000;
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Verdict {
  valid: boolean;
  reason?: string;
  claims?: Record<string, unknown>;
}

for (const engine of ENGINES) {
  describe(`POST /authority/tokens/consume (${engine})`, () => {
    let t: TestApp;
    let acme: CreatedTenant;
    let globex: CreatedTenant;
    let agent: IssuedKey;

    function post(body: unknown, key = agent.key, tenantId = 'acme', app: App = t.app) {
      return app.inject({
        method: 'POST',
        url: '/authority/tokens/consume',
        headers: bearer(key, tenantId),
        payload: body as object,
      });
    }

    /** Consumes with the adapter's identity (defaults: the token's own adapter and target). */
    async function consume(
      token: string,
      overrides: {
        adapterId?: string;
        targetSystem?: string;
        key?: string;
        tenantId?: string;
        app?: App;
      } = {},
    ): Promise<Verdict> {
      const res = await post(
        {
          token,
          adapterId: overrides.adapterId ?? ADAPTER_ID,
          targetSystem: overrides.targetSystem ?? TARGET_SYSTEM,
        },
        overrides.key,
        overrides.tenantId,
        overrides.app,
      );
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Verdict;
    }

    async function nonceRows(nonce: string) {
      return t.storage.db.selectFrom('token_nonces').selectAll().where('nonce', '=', nonce).execute();
    }

    async function assertRejected(token: string, reason: string, nonce?: string): Promise<void> {
      assert.deepEqual(await consume(token), { valid: false, reason });
      if (nonce !== undefined) assert.deepEqual(await nonceRows(nonce), [], `nonce consumed on ${reason}`);
    }

    before(async () => {
      t = await createTestApp(engine);
      acme = await t.createTenant('acme');
      globex = await t.createTenant('globex');
      agent = await issueKey(t, 'acme', acme.ownerKey.key, 'agent');
    });
    after(async () => {
      await t.close();
    });

    test('a valid token: 200 {valid: true, claims}; its replay: NONCE_ALREADY_CONSUMED', async () => {
      const minted = await mintFor(t, 'acme');
      const res = await post({ token: minted.token, adapterId: ADAPTER_ID, targetSystem: TARGET_SYSTEM });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { valid: true, claims: minted.claims });

      const rows = await nonceRows(minted.claims.nonce);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.tenant_id, 'acme');
      assert.equal(rows[0]?.intent_id, minted.claims.intentId);
      assert.equal(rows[0]?.adapter_id, ADAPTER_ID);
      assert.equal(rows[0]?.consumed_at, t.clock());

      const replay = await post({ token: minted.token, adapterId: ADAPTER_ID, targetSystem: TARGET_SYSTEM });
      assert.equal(replay.statusCode, 200, replay.body);
      assert.deepEqual(replay.json(), { valid: false, reason: 'NONCE_ALREADY_CONSUMED' });
      // Through /v1 too.
      const v1 = await t.app.inject({
        method: 'POST',
        url: '/v1/authority/tokens/consume',
        headers: bearer(agent.key, 'acme'),
        payload: { token: minted.token, adapterId: ADAPTER_ID, targetSystem: TARGET_SYSTEM },
      });
      assert.deepEqual(v1.json(), { valid: false, reason: 'NONCE_ALREADY_CONSUMED' });
      assert.equal((await nonceRows(minted.claims.nonce)).length, 1);
    });

    test("a successful consume writes exactly one token.consumed audit entry with the token's intentId", async () => {
      const minted = await mintFor(t, 'acme');
      const forIntent = async () =>
        (await auditEntries(t.storage, 'acme', 'token.consumed')).filter(
          (e) => e.intentId === minted.claims.intentId,
        );
      assert.deepEqual(await forIntent(), []);
      assert.equal((await consume(minted.token)).valid, true);
      const entries = await forIntent();
      assert.equal(entries.length, 1);
      assert.equal(entries[0]?.actorId, agent.id);
      assert.equal(entries[0]?.actorType, 'principal:api-key');
      assert.equal(entries[0]?.payload.nonce, minted.claims.nonce);
      assert.equal(entries[0]?.payload.adapterId, ADAPTER_ID);
      assert.equal(entries[0]?.payload.targetSystem, TARGET_SYSTEM);
      // A replay and a rejection record nothing.
      assert.equal((await consume(minted.token)).reason, 'NONCE_ALREADY_CONSUMED');
      assert.equal((await forIntent()).length, 1);
    });

    test("the token.consumed entry of a real intent's token carries that intent's correlationId", async () => {
      const decided = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: bearer(agent.key, 'acme'),
        payload: intentPayload('list open pull requests'),
      });
      assert.equal(decided.statusCode, 200, decided.body);
      const { intentId, correlationId, authorityDecisionToken } = decided.json() as {
        intentId: string;
        correlationId: string;
        authorityDecisionToken: string;
      };
      const claims = JSON.parse(
        Buffer.from(authorityDecisionToken.split('.')[1] ?? '', 'base64url').toString('utf8'),
      ) as { adapterId: string; targetSystem: string };
      const verdict = await consume(authorityDecisionToken, {
        adapterId: claims.adapterId,
        targetSystem: claims.targetSystem,
      });
      assert.equal(verdict.valid, true, JSON.stringify(verdict));
      const entries = (await auditEntries(t.storage, 'acme', 'token.consumed')).filter(
        (e) => e.intentId === intentId,
      );
      assert.equal(entries.length, 1);
      assert.equal(entries[0]?.correlationId, correlationId, 'every later record of an intent (contract §0)');
    });

    test('wrong adapterId: TOKEN_ADAPTER_MISMATCH, the nonce stays unconsumed', async () => {
      const minted = await mintFor(t, 'acme');
      assert.deepEqual(await consume(minted.token, { adapterId: 'github-other' }), {
        valid: false,
        reason: 'TOKEN_ADAPTER_MISMATCH',
      });
      assert.deepEqual(await nonceRows(minted.claims.nonce), []);
      assert.equal((await consume(minted.token)).valid, true);
    });

    test('wrong targetSystem: TOKEN_TARGET_MISMATCH, the nonce stays unconsumed', async () => {
      const minted = await mintFor(t, 'acme');
      assert.deepEqual(await consume(minted.token, { targetSystem: 'acme/other' }), {
        valid: false,
        reason: 'TOKEN_TARGET_MISMATCH',
      });
      assert.deepEqual(await nonceRows(minted.claims.nonce), []);
      assert.equal((await consume(minted.token)).valid, true);
    });

    test('expiry: valid up to exp + 5 s skew, then TOKEN_EXPIRED (and the nonce stays unconsumed)', async () => {
      // Start on a whole second, so iat * 1000 is the clock.
      t.clock.advance((1000 - (t.clock() % 1000)) % 1000);
      const early = await mintFor(t, 'acme');
      const late = await mintFor(t, 'acme');
      const expired = await mintFor(t, 'acme');
      t.clock.advance(304_999);
      assert.equal((await consume(early.token)).valid, true);
      t.clock.advance(1);
      await assertRejected(late.token, 'TOKEN_EXPIRED', late.claims.nonce);
      t.clock.advance(1_000);
      await assertRejected(expired.token, 'TOKEN_EXPIRED', expired.claims.nonce);
    });

    test("another tenant's token: KID_MISMATCH (its kid belongs to that tenant)", async () => {
      const foreign = await mintFor(t, 'globex');
      assert.match(foreign.kid, /^globex-/);
      await assertRejected(foreign.token, 'KID_MISMATCH', foreign.claims.nonce);
      // Claiming to be acme inside does not help: the kid still is globex's.
      const forged = await mintDecisionToken(
        await t.services.signingKeys.signer('globex'),
        tokenRequest('acme'),
        t.clock(),
      );
      await assertRejected(forged.token, 'KID_MISMATCH', forged.claims.nonce);
      // globex's own adapter accepts its token.
      const globexAgent = await issueKey(t, 'globex', globex.ownerKey.key, 'agent');
      assert.equal((await consume(foreign.token, { key: globexAgent.key, tenantId: 'globex' })).valid, true);
    });

    test('a token of a key that was later RETIRED: KID_MISMATCH; of a PREVIOUS key: valid', async () => {
      const tenant = await t.createTenant('rotating');
      const rotAgent = await issueKey(t, 'rotating', tenant.ownerKey.key, 'agent');
      const rotate = async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/authority/keys/rotate',
          headers: bearer(tenant.ownerKey.key, 'rotating'),
        });
        assert.equal(res.statusCode, 201, res.body);
      };
      const asRotating = { key: rotAgent.key, tenantId: 'rotating' };
      const firstSigner = await t.services.signingKeys.signer('rotating');
      const live: MintedToken = await mintFor(t, 'rotating');
      const old: MintedToken = await mintFor(t, 'rotating');

      await rotate();
      // The first key is PREVIOUS: its tokens still verify.
      assert.equal((await consume(live.token, asRotating)).valid, true);
      t.clock.advance(ROTATION_GUARD_MS);
      await rotate();
      // Now RETIRED. The kid check comes before expiry, so the reason is KID_MISMATCH...
      assert.deepEqual(await consume(old.token, asRotating), { valid: false, reason: 'KID_MISMATCH' });
      // ...and a token the retired key signs today (not expired) is refused just the same.
      const fresh = await mintDecisionToken(firstSigner, tokenRequest('rotating'), t.clock());
      assert.deepEqual(await consume(fresh.token, asRotating), { valid: false, reason: 'KID_MISMATCH' });
      assert.deepEqual(await nonceRows(fresh.claims.nonce), []);
    });

    test('malformed and forged tokens: TOKEN_MALFORMED or SIGNATURE_VERIFICATION_FAILED, nothing consumed', async () => {
      const signer = await t.services.signingKeys.signer('acme');
      const minted = await mintFor(t, 'acme');
      const [header, payload, signature] = minted.token.split('.') as [string, string, string];

      for (const garbage of [
        'garbage',
        'a.b',
        'a.b.c.d',
        '..',
        `${header}.${payload}`,
        `${header}.${payload}.${signature}=`,
        `${b64json('not an object')}.${payload}.${signature}`,
        `${b64json({ alg: 'EdDSA', typ: 'JWT' })}.${payload}.${signature}`,
        `!!!.${payload}.${signature}`,
      ]) {
        assert.deepEqual(await consume(garbage), { valid: false, reason: 'TOKEN_MALFORMED' }, garbage);
      }

      const noneHeader = b64json({ alg: 'none', typ: 'JWT', kid: signer.kid });
      const hsHeader = b64json({ alg: 'HS256', typ: 'JWT', kid: signer.kid });
      const publicX = Buffer.from(String((await t.services.signingKeys.ensureActive('acme')).publicJwk.x));
      const hsSignature = createHmac('sha256', publicX).update(`${hsHeader}.${payload}`).digest('base64url');
      const tampered = b64json({ ...minted.claims, targetSystem: 'acme/other' });
      for (const forged of [
        `${noneHeader}.${payload}.`,
        `${noneHeader}.${payload}.${signature}`,
        `${hsHeader}.${payload}.${hsSignature}`,
        `${header}.${tampered}.${signature}`,
        `${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`,
      ]) {
        assert.deepEqual(
          await consume(forged),
          { valid: false, reason: 'SIGNATURE_VERIFICATION_FAILED' },
          forged,
        );
      }

      // Properly signed by acme's key, but with claims the contract rejects, in its order.
      const signed = (claims: Record<string, unknown>) => signCompact(signer, JSON.stringify(claims));
      const base = minted.claims;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...base, iss: 'someone-else' }, 'SIGNATURE_VERIFICATION_FAILED'],
        [{ ...base, aud: 'github-other' }, 'SIGNATURE_VERIFICATION_FAILED'],
        [{ ...base, iat: undefined }, 'TOKEN_MALFORMED'],
        [{ ...base, exp: base.iat + 301 }, 'TOKEN_TTL_EXCEEDS_LIMIT'],
        [{ ...base, iat: base.iat + 6, exp: base.exp + 6 }, 'TOKEN_NOT_YET_VALID'],
        [{ ...base, nbf: base.iat + 60 }, 'TOKEN_NOT_YET_VALID'],
        [{ ...base, nbf: 'later' }, 'TOKEN_MALFORMED'],
        [{ ...base, nbf: base.iat + 60, decision: 'DENIED' }, 'TOKEN_NOT_YET_VALID'],
        [{ ...base, decision: 'DENIED' }, 'TOKEN_DECISION_INVALID'],
        [{ ...base, tenantId: 'globex' }, 'TOKEN_TENANT_MISMATCH'],
      ];
      for (const [claims, reason] of cases) {
        assert.deepEqual(
          await consume(await signed(claims)),
          { valid: false, reason },
          JSON.stringify(claims),
        );
      }
      assert.deepEqual(await nonceRows(base.nonce), [], 'the nonce was consumed by a rejected token');
      // The genuine token is still good.
      assert.equal((await consume(minted.token)).valid, true);
    });

    test('a token whose iat, exp and nbf are not integers verifies, answered 200 with its claims as signed (RFC 7519 NumericDate)', async () => {
      const signer = await t.services.signingKeys.signer('acme');
      const base = (await mintFor(t, 'acme')).claims;
      const claims = { ...base, iat: base.iat - 0.5, exp: base.exp - 0.5, nbf: base.iat - 10.25 };
      const res = await post({
        token: await signCompact(signer, JSON.stringify(claims)),
        adapterId: ADAPTER_ID,
        targetSystem: TARGET_SYSTEM,
      });
      assert.equal(res.statusCode, 200, res.body);
      const verdict = res.json();
      assert.equal(verdict.valid, true, res.body);
      assert.deepEqual(
        [verdict.claims.iat, verdict.claims.exp, verdict.claims.nbf],
        [claims.iat, claims.exp, claims.nbf],
      );
      assert.equal((await nonceRows(base.nonce)).length, 1, 'consumed once, with the 200 that says so');
    });

    test('ES256: minted signatures are low-S; the high-S twin is SIGNATURE_VERIFICATION_FAILED and consumes nothing', async () => {
      const tenant = await t.createTenant('es-tenant');
      const owner = await issueKey(t, 'es-tenant', tenant.ownerKey.key, 'owner');
      const switched = await t.app.inject({
        method: 'PUT',
        url: '/authority/keys/algorithm',
        headers: bearer(owner.key, 'es-tenant'),
        payload: { alg: 'ES256' },
      });
      assert.equal(switched.statusCode, 200, switched.body);
      const half = P256_ORDER >> 1n;
      for (let i = 0; i < 12; i += 1) {
        const minted = await mintFor(t, 'es-tenant');
        const signature = Buffer.from(minted.token.split('.')[2] ?? '', 'base64url');
        const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
        assert.ok(s <= half, 'minted with a high S');
        const twin = `${minted.token.slice(0, minted.token.lastIndexOf('.'))}.${Buffer.concat([
          signature.subarray(0, 32),
          Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex'),
        ]).toString('base64url')}`;
        const edge = await issueKey(t, 'es-tenant', tenant.ownerKey.key, 'agent');
        const verdict = await consume(twin, { key: edge.key, tenantId: 'es-tenant' });
        assert.deepEqual(verdict, { valid: false, reason: 'SIGNATURE_VERIFICATION_FAILED' });
        assert.deepEqual(await nonceRows(minted.claims.nonce), []);
        assert.equal((await consume(minted.token, { key: edge.key, tenantId: 'es-tenant' })).valid, true);
      }
    });

    test('kill switch on: TENANT_KILL_SWITCH, the nonce stays unconsumed; off again: valid', async () => {
      const minted = await mintFor(t, 'acme');
      const setKillSwitch = (enabled: number) =>
        t.storage.db
          .updateTable('tenants')
          .set({ kill_switch_enabled: enabled })
          .where('id', '=', 'acme')
          .execute();
      await setKillSwitch(1);
      try {
        await assertRejected(minted.token, 'TENANT_KILL_SWITCH', minted.claims.nonce);
        // Whatever the token.
        assert.deepEqual(await consume('garbage'), { valid: false, reason: 'TENANT_KILL_SWITCH' });
      } finally {
        await setKillSwitch(0);
      }
      assert.equal((await consume(minted.token)).valid, true);
    });

    test('permission intent:token:consume: an auditor key is 403 FORBIDDEN; an edge key may consume', async () => {
      const minted = await mintFor(t, 'acme');
      const body = { token: minted.token, adapterId: ADAPTER_ID, targetSystem: TARGET_SYSTEM };
      const auditor = await issueKey(t, 'acme', acme.ownerKey.key, 'auditor');
      const error = assertError(await post(body, auditor.key), 403, 'FORBIDDEN');
      assert.equal(error.details?.permission, 'intent:token:consume');
      assert.deepEqual(await nonceRows(minted.claims.nonce), []);
      // Another tenant's key with acme in the header.
      assertError(await post(body, globex.ownerKey.key, 'acme'), 403, 'TENANT_MISMATCH');
      assertError(
        await t.app.inject({ method: 'POST', url: '/authority/tokens/consume', payload: body }),
        401,
        'UNAUTHORIZED',
      );
      const edge = await issueKey(t, 'acme', acme.ownerKey.key, 'edge');
      assert.equal((await consume(minted.token, { key: edge.key })).valid, true);
    });

    test('the longest token the service can mint is consumed; a longer one is 200 TOKEN_MALFORMED, never 400', async () => {
      // proposedAction at its 4,000 characters, each written \u00XX in the claims: the longest token.
      const longest = `list ${'\u0001'.repeat(3_995)}`;
      const decided = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: bearer(agent.key, 'acme'),
        payload: intentPayload(longest),
      });
      assert.equal(decided.statusCode, 200, decided.body.slice(0, 500));
      const token = decided.json().authorityDecisionToken as string;
      assert.ok(token.length > 32_000, `${token.length} characters`);
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
        adapterId: string;
        targetSystem: string;
        proposedAction: string;
      };
      assert.equal(claims.proposedAction, longest);
      const verdict = await consume(token, {
        adapterId: claims.adapterId,
        targetSystem: claims.targetSystem,
      });
      assert.equal(verdict.valid, true, JSON.stringify(verdict).slice(0, 300));
      const tooLong = await consume(`${'x'.repeat(65_537)}`);
      assert.deepEqual(tooLong, { valid: false, reason: 'TOKEN_MALFORMED' });
    });

    test('a bad body: 400 VALIDATION_ERROR', async () => {
      const minted = await mintFor(t, 'acme');
      const good = { token: minted.token, adapterId: ADAPTER_ID, targetSystem: TARGET_SYSTEM };
      for (const body of [
        {},
        { adapterId: ADAPTER_ID, targetSystem: TARGET_SYSTEM },
        { token: minted.token, targetSystem: TARGET_SYSTEM },
        { token: minted.token, adapterId: ADAPTER_ID },
        { ...good, token: '' },
        { ...good, adapterId: '' },
        { ...good, targetSystem: '' },
        { ...good, token: 42 },
        { ...good, extra: 'member' },
        [good],
      ]) {
        const error = assertError(await post(body), 400, 'VALIDATION_ERROR');
        assert.ok(Array.isArray(error.details?.issues), JSON.stringify(error));
      }
      const notJson = await t.app.inject({
        method: 'POST',
        url: '/authority/tokens/consume',
        headers: { ...bearer(agent.key, 'acme'), 'content-type': 'application/json' },
        payload: '{"token": ',
      });
      assert.equal(notJson.statusCode, 400, notJson.body);
      assert.deepEqual(await nonceRows(minted.claims.nonce), []);
      assert.equal((await consume(minted.token)).valid, true);
    });

    test('50 concurrent consumes of one token: exactly one valid, 49 NONCE_ALREADY_CONSUMED', async () => {
      const minted = await mintFor(t, 'acme');
      const body = { token: minted.token, adapterId: ADAPTER_ID, targetSystem: TARGET_SYSTEM };
      const responses = await Promise.all(Array.from({ length: 50 }, () => post(body)));
      for (const res of responses) assert.equal(res.statusCode, 200, res.body);
      const verdicts = responses.map((res) => res.json() as Verdict);
      assert.equal(verdicts.filter((v) => v.valid).length, 1);
      const rejected = verdicts.filter((v) => !v.valid);
      assert.equal(rejected.length, 49);
      for (const verdict of rejected)
        assert.deepEqual(verdict, { valid: false, reason: 'NONCE_ALREADY_CONSUMED' });
      assert.equal((await nonceRows(minted.claims.nonce)).length, 1);
      const entries = (await auditEntries(t.storage, 'acme', 'token.consumed')).filter(
        (e) => e.intentId === minted.claims.intentId,
      );
      assert.equal(entries.length, 1);
    });

    test('single use is enforced by the database, not by process memory: two servers over one database', async () => {
      const second = await buildSecondApp(t);
      try {
        const one = await mintFor(t, 'acme');
        assert.equal((await consume(one.token)).valid, true);
        assert.deepEqual(await consume(one.token, { app: second.app }), {
          valid: false,
          reason: 'NONCE_ALREADY_CONSUMED',
        });

        const two = await mintFor(t, 'acme');
        assert.equal((await consume(two.token, { app: second.app })).valid, true);
        assert.deepEqual(await consume(two.token), { valid: false, reason: 'NONCE_ALREADY_CONSUMED' });

        // Concurrently, spread over both servers.
        const three = await mintFor(t, 'acme');
        const verdicts = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            consume(three.token, { app: i % 2 === 0 ? t.app : second.app }),
          ),
        );
        assert.equal(verdicts.filter((v) => v.valid).length, 1);
        assert.equal(verdicts.filter((v) => v.reason === 'NONCE_ALREADY_CONSUMED').length, 19);
      } finally {
        await second.app.close();
      }
    });
  });
}
