import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { buildPhysicalClaims, type PhysicalTokenClaims } from '../../src/physical/domain/index.js';
import { createPhysicalSigner, type PhysicalSigner } from '../../src/physical/use-cases/physical-signer.js';
import { createTestApp, manualClock, TEST_MASTER_KEY, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { tokenRequest } from './fixtures.js';

function claimsAt(nowMs: number, jti = 'jti-1'): PhysicalTokenClaims {
  return buildPhysicalClaims({
    issuer: 'https://authority.example.test',
    tenantId: 'acme',
    jti,
    nowMs,
    decision: {
      decision: 'ALLOW',
      httpStatus: 200,
      auditGap: false,
      clauseId: 'allow-when-clear',
      clauseIds: ['allow-when-clear'],
      safeDefault: 'stop',
      reasons: [],
      oiCode: 'OI-1501',
      hypotheses: ['OI-1501'],
      safetyBit: false,
      safetyCitations: [],
      explanation: null,
      operatorTicketId: null,
    },
    request: tokenRequest(),
    physicalStateRef: null,
  });
}

/** Verifies with jose at the test clock's time (the manual clock is not the wall clock). */
async function verifyWith(jwks: { keys: unknown[] }, token: string, atMs: number) {
  const { kid } = decodeProtectedHeader(token);
  const jwk = (jwks.keys as JWK[]).find((key) => key.kid === kid);
  assert.ok(jwk, `kid ${kid} is published`);
  const { payload, protectedHeader } = await jwtVerify(token, await importJWK(jwk, 'RS256'), {
    algorithms: ['RS256'],
    audience: 'service-edge-verifier',
    currentDate: new Date(atMs),
  });
  return { payload, protectedHeader };
}

for (const engine of ENGINES) {
  describe(`physical signer (${engine})`, () => {
    let t: TestApp;
    /** A second instance over the same database (another process behind the load balancer). */
    let other: PhysicalSigner;
    const otherClock = manualClock();

    before(async () => {
      t = await createTestApp(engine);
      other = createPhysicalSigner({
        storage: t.storage,
        clock: otherClock,
        secretBox: createSecretBox(TEST_MASTER_KEY),
        bits: 2048,
        ephemeral: false,
      });
    });
    after(async () => {
      await t.close();
    });

    it('creates one RSA-2048 key on first use, race-free across instances, sealed at rest', async () => {
      const [a, b, c] = await Promise.all([
        t.services.physical.signer.ensureActive(),
        other.ensureActive(),
        t.services.physical.signer.ensureActive(),
      ]);
      assert.ok(a && b && c);
      assert.equal(a.kid, b.kid);
      assert.equal(a.kid, c.kid);
      assert.equal(a.bits, 2048);
      assert.match(a.kid, /^physical-\d+-[A-Z2-7]{8}$/);
      const rows = await t.storage.db.selectFrom('physical_signing_keys').selectAll().execute();
      assert.equal(rows.length, 1);
      assert.doesNotMatch(rows[0]?.private_key ?? '', /PRIVATE KEY/);
      const jwks = await t.services.physical.signer.jwks();
      assert.equal(jwks.keys.length, 1);
      const key = jwks.keys[0];
      assert.deepEqual(Object.keys(key ?? {}).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
      assert.equal(
        createPublicKey({ key: key as JWK, format: 'jwk' }).asymmetricKeyDetails?.modulusLength,
        2048,
      );
    });

    it('signs asynchronously with the ACTIVE key; every instance and a restart sign with the same key', async () => {
      const claims = claimsAt(t.clock());
      const signed = await t.services.physical.signer.sign(claims);
      const byOther = await other.sign(claims);
      assert.equal(signed.kid, byOther.kid);
      const { payload, protectedHeader } = await verifyWith(await other.jwks(), signed.token, t.clock());
      assert.deepEqual(protectedHeader, { alg: 'RS256', typ: 'JWT', kid: signed.kid });
      assert.deepEqual(payload, claims);
      // A signer built after a restart reads the persisted key.
      const restarted = createPhysicalSigner({
        storage: t.storage,
        clock: t.clock,
        secretBox: createSecretBox(TEST_MASTER_KEY),
        bits: 2048,
        ephemeral: false,
      });
      assert.equal((await restarted.sign(claims)).kid, signed.kid);
    });

    it('rotates: the JWKS serves current and previous, a second rotation within 305 s is 409, then the oldest retires', async () => {
      const before = (await t.services.physical.signer.ensureActive()).kid;
      const oldToken = (await t.services.physical.signer.sign(claimsAt(t.clock(), 'old'))).token;
      const rotation = await t.services.physical.signer.rotate();
      assert.equal(rotation.previous?.kid, before);
      assert.equal(rotation.previous?.status, 'PREVIOUS');
      assert.equal(rotation.retired, null);
      const jwks = await t.services.physical.signer.jwks();
      assert.deepEqual(jwks.keys.map((key) => key.kid).sort(), [before, rotation.active.kid].sort());
      const newToken = await t.services.physical.signer.sign(claimsAt(t.clock(), 'new'));
      assert.equal(newToken.kid, rotation.active.kid);
      await verifyWith(jwks, oldToken, t.clock());
      await verifyWith(jwks, newToken.token, t.clock());

      await assert.rejects(
        t.services.physical.signer.rotate(),
        (error: Error & { code?: string; details?: { retryAfterSeconds?: number } }) => {
          assert.equal(error.code, 'CONFLICT');
          assert.equal(error.details?.retryAfterSeconds, 305);
          return true;
        },
      );
      t.clock.advance(305_000);
      const third = await t.services.physical.signer.rotate();
      assert.equal(third.retired?.kid, before);
      assert.equal(third.previous?.kid, rotation.active.kid);
      const after = await t.services.physical.signer.jwks();
      assert.deepEqual(
        after.keys.map((key) => key.kid).sort(),
        [rotation.active.kid, third.active.kid].sort(),
      );
      const statuses = Object.fromEntries(
        (await t.services.physical.signer.list()).map((k) => [k.kid, k.status]),
      );
      assert.equal(statuses[before], 'RETIRED');
    });

    it('lets exactly one of two concurrent rotations (two instances) win', async () => {
      t.clock.advance(305_000);
      otherClock.advance(t.clock() - otherClock());
      const outcomes = await Promise.allSettled([t.services.physical.signer.rotate(), other.rotate()]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o) => o.status === 'rejected');
      assert.equal(won.length, 1, JSON.stringify(outcomes.map((o) => o.status)));
      assert.equal(lost.length, 1);
      assert.equal((lost[0] as PromiseRejectedResult).reason.code, 'CONFLICT');
      const active = await t.storage.db
        .selectFrom('physical_signing_keys')
        .select('kid')
        .where('status', '=', 'ACTIVE')
        .execute();
      assert.equal(active.length, 1);
    });

    it('serves GET /.well-known/jwks.json publicly with a cache header', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'public, max-age=300');
      const body = res.json() as { keys: Array<Record<string, string>> };
      assert.equal(body.keys.length, 2);
      for (const key of body.keys) {
        assert.equal(key.kty, 'RSA');
        assert.equal(key.alg, 'RS256');
        assert.equal(key.use, 'sig');
        assert.equal(typeof key.kid, 'string');
        assert.equal(key.d, undefined, 'never a private member');
      }
      assert.deepEqual(body, await t.services.physical.signer.jwks());
    });
  });
}

describe('physical signer options', () => {
  it('makes RSA-4096 keys when PHYSICAL_KEY_BITS=4096', async () => {
    const t = await createTestApp('sqlite', { PHYSICAL_KEY_BITS: '4096' });
    try {
      const key = (await t.services.physical.signer.jwks()).keys[0] as JWK;
      assert.equal(createPublicKey({ key, format: 'jwk' }).asymmetricKeyDetails?.modulusLength, 4096);
      assert.equal((await t.services.physical.signer.ensureActive()).bits, 4096);
    } finally {
      await t.close();
    }
  });

  it('keeps an ephemeral key in process memory only, behind PHYSICAL_SIGNER_EPHEMERAL=1', async () => {
    const t = await createTestApp('sqlite', { PHYSICAL_SIGNER_EPHEMERAL: '1' });
    try {
      const signer = t.services.physical.signer;
      assert.equal(signer.ephemeral, true);
      const signed = await signer.sign(claimsAt(t.clock()));
      await verifyWith(await signer.jwks(), signed.token, t.clock());
      const stored = await t.storage.db.selectFrom('physical_signing_keys').selectAll().execute();
      assert.deepEqual(stored, []);
      // Another process (or a restart) has its own key.
      const restarted = createPhysicalSigner({
        storage: t.storage,
        clock: t.clock,
        secretBox: createSecretBox(TEST_MASTER_KEY),
        bits: 2048,
        ephemeral: true,
      });
      assert.notEqual((await restarted.ensureActive()).kid, signed.kid);
      const rotation = await signer.rotate();
      assert.equal(rotation.previous?.kid, signed.kid);
      assert.equal((await signer.jwks()).keys.length, 2);
    } finally {
      await t.close();
    }
  });
});
