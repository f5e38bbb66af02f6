import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
} from 'jose';
import type { JwsSigner } from '../../src/crypto/jws.js';
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js';
import { mintDecisionToken } from '../../src/tokens/decision-token.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ADAPTER_ID, bearer, mintFor, tokenRequest } from '../helpers/tokens.js';

const CLAIMS = [
  'intentId',
  'tenantId',
  'adapterId',
  'adapterTarget',
  'targetSystem',
  'proposedAction',
  'decision',
  'issuedAt',
  'expiresAt',
  'nonce',
  'iss',
  'aud',
  'iat',
  'exp',
];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ROTATION_GUARD_MS = 305_000;

describe('Authority Decision Token', () => {
  let t: TestApp;
  let acme: CreatedTenant;

  async function jwks(tenantId = 'acme'): Promise<JSONWebKeySet> {
    const res = await t.app.inject({ method: 'GET', url: `/.well-known/authority/${tenantId}/jwks.json` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as JSONWebKeySet;
  }

  /** jose's own verification against the published JWKS, at the manual clock's time. */
  async function joseVerify(token: string, alg: string, keySet?: JSONWebKeySet) {
    return jwtVerify(token, createLocalJWKSet(keySet ?? (await jwks())), {
      algorithms: [alg],
      issuer: 'service-authority',
      audience: ADAPTER_ID,
      typ: 'JWT',
      currentDate: new Date(t.clock()),
    });
  }

  async function switchAlgorithm(alg: string): Promise<void> {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/authority/keys/algorithm',
      headers: bearer(acme.ownerKey.key, 'acme'),
      payload: { alg },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().alg, alg);
  }

  before(async () => {
    t = await createTestApp('sqlite');
    acme = await t.createTenant('acme');
  });
  after(async () => {
    await t.close();
  });

  test('header is exactly {alg, typ: JWT, kid}; claims are exactly the contract list', async () => {
    // Mid-second, so that whole-second iat/exp and their ISO forms are visibly derived from the clock.
    t.clock.advance(1_234);
    const request = tokenRequest('acme', {
      adapterTarget: 'acme/api#main',
      proposedAction: 'deploy build 7 to staging',
    });
    const signer = await t.services.signingKeys.signer('acme');
    const minted = await mintDecisionToken(signer, request, t.clock());

    const header = decodeProtectedHeader(minted.token);
    assert.deepEqual(header, { alg: 'EdDSA', typ: 'JWT', kid: signer.kid });
    assert.equal(minted.kid, signer.kid);
    assert.match(signer.kid, /^acme-\d+-[A-Z2-7]{8}$/);

    const claims = decodeJwt(minted.token) as JWTPayload & Record<string, unknown>;
    assert.deepEqual(Object.keys(claims).sort(), [...CLAIMS].sort());
    assert.equal('tid' in claims, false);
    assert.deepEqual(claims, minted.claims);
    assert.equal(claims.intentId, request.intentId);
    assert.equal(claims.tenantId, 'acme');
    assert.equal(claims.adapterId, ADAPTER_ID);
    assert.equal(claims.adapterTarget, 'acme/api#main');
    assert.equal(claims.targetSystem, request.targetSystem);
    assert.equal(claims.proposedAction, 'deploy build 7 to staging');
    assert.equal(claims.decision, 'APPROVED');
    assert.equal(claims.iss, 'service-authority');
    assert.equal(claims.aud, ADAPTER_ID);
    assert.equal(claims.iat, Math.floor(t.clock() / 1000));
    assert.equal(claims.exp, (claims.iat as number) + 300);
    assert.match(claims.issuedAt as string, ISO_MS);
    assert.match(claims.expiresAt as string, ISO_MS);
    assert.equal(Date.parse(claims.issuedAt as string), (claims.iat as number) * 1000);
    assert.equal(Date.parse(claims.expiresAt as string), (claims.exp as number) * 1000);
    assert.equal(claims.issuedAt, new Date((claims.iat as number) * 1000).toISOString());
    assert.equal(claims.expiresAt, new Date((claims.exp as number) * 1000).toISOString());
  });

  test('nonce: 128 random bits in base64url, different on every token', async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { claims } = await mintFor(t, 'acme');
      assert.match(claims.nonce, /^[A-Za-z0-9_-]{22}$/);
      const bytes = Buffer.from(claims.nonce, 'base64url');
      assert.equal(bytes.length, 16);
      assert.equal(bytes.toString('base64url'), claims.nonce);
      nonces.add(claims.nonce);
    }
    assert.equal(nonces.size, 50);
  });

  test('TTL: 300 s by default, shorter when asked, capped at 300 s', async () => {
    const ttl = async (ttlSeconds?: number) => {
      const minted = await mintFor(t, 'acme', ttlSeconds === undefined ? {} : { ttlSeconds });
      const decoded = decodeJwt(minted.token);
      assert.equal(decoded.iat, Math.floor(t.clock() / 1000));
      assert.equal(
        Date.parse(minted.claims.expiresAt) - Date.parse(minted.claims.issuedAt),
        ((decoded.exp as number) - (decoded.iat as number)) * 1000,
      );
      return (decoded.exp as number) - (decoded.iat as number);
    };
    assert.equal(await ttl(), 300);
    assert.equal(await ttl(60), 60);
    assert.equal(await ttl(300), 300);
    assert.equal(await ttl(301), 300);
    assert.equal(await ttl(86_400), 300);
    const signer = await t.services.signingKeys.signer('acme');
    for (const ttlSeconds of [0, -5, 1.5]) {
      await assert.rejects(
        mintDecisionToken(signer, tokenRequest('acme', { ttlSeconds }), t.clock()),
        `ttlSeconds ${ttlSeconds} accepted`,
      );
    }
  });

  test('jose verifies tokens of every algorithm against the JWKS; PREVIOUS verifies, RETIRED does not', async () => {
    const signers: Record<string, JwsSigner> = {};

    // EdDSA: the default first key.
    signers.EdDSA = await t.services.signingKeys.signer('acme');
    assert.equal(signers.EdDSA.alg, 'EdDSA');
    const ed = await mintFor(t, 'acme');
    const verifiedEd = await joseVerify(ed.token, 'EdDSA');
    assert.deepEqual(verifiedEd.payload, ed.claims);
    assert.deepEqual(verifiedEd.protectedHeader, { alg: 'EdDSA', typ: 'JWT', kid: signers.EdDSA.kid });
    // The accepted algorithm is pinned: the same token is refused when only RS256 is allowed.
    await assert.rejects(joseVerify(ed.token, 'RS256'));

    // RS256 (RSA-4096): the EdDSA key becomes PREVIOUS and its tokens still verify.
    await switchAlgorithm('RS256');
    signers.RS256 = await t.services.signingKeys.signer('acme');
    assert.equal(signers.RS256.alg, 'RS256');
    const rs = await mintFor(t, 'acme');
    assert.equal(decodeProtectedHeader(rs.token).kid, signers.RS256.kid);
    const verifiedRs = await joseVerify(rs.token, 'RS256');
    assert.deepEqual(verifiedRs.payload, rs.claims);
    assert.deepEqual(verifiedRs.protectedHeader, { alg: 'RS256', typ: 'JWT', kid: signers.RS256.kid });
    assert.deepEqual((await joseVerify(ed.token, 'EdDSA')).payload, ed.claims);
    await assert.rejects(joseVerify(rs.token, 'EdDSA'));

    // ES256, 305 s later: RS256 becomes PREVIOUS, EdDSA becomes RETIRED.
    t.clock.advance(ROTATION_GUARD_MS);
    await switchAlgorithm('ES256');
    signers.ES256 = await t.services.signingKeys.signer('acme');
    assert.equal(signers.ES256.alg, 'ES256');
    const es = await mintFor(t, 'acme');
    const verifiedEs = await joseVerify(es.token, 'ES256');
    assert.deepEqual(verifiedEs.payload, es.claims);
    assert.deepEqual(verifiedEs.protectedHeader, { alg: 'ES256', typ: 'JWT', kid: signers.ES256.kid });

    const current = await jwks();
    assert.deepEqual(current.keys.map((k) => k.kid).sort(), [signers.RS256.kid, signers.ES256.kid].sort());

    // A token signed now by the PREVIOUS (RS256) key verifies.
    const rsNow = await mintDecisionToken(signers.RS256, tokenRequest('acme'), t.clock());
    assert.deepEqual((await joseVerify(rsNow.token, 'RS256', current)).payload, rsNow.claims);

    // A token signed now by the RETIRED (EdDSA) key does not: its kid is not in the JWKS.
    const edNow = await mintDecisionToken(signers.EdDSA, tokenRequest('acme'), t.clock());
    await assert.rejects(joseVerify(edNow.token, 'EdDSA', current), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'ERR_JWKS_NO_MATCHING_KEY');
      return true;
    });
    // Its public key is still published in the archive (for receipts), and only there.
    const archive = await t.app.inject({
      method: 'GET',
      url: '/.well-known/authority/acme/jwks-archive.json',
    });
    const archived = archive.json() as JSONWebKeySet;
    assert.deepEqual(
      archived.keys.map((k) => k.kid),
      [signers.EdDSA.kid],
    );
    // The signature itself is fine under the archived key: the refusal above is the key's status.
    assert.deepEqual((await joseVerify(edNow.token, 'EdDSA', archived)).payload, edNow.claims);
  });
});
