import assert from 'node:assert/strict';
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js';
import { createTestApp, TEST_MASTER_KEY, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { allKeys, assertError, auditEntries, bearer, issueKey, PRIVATE_MEMBERS } from '../helpers/tokens.js';

interface KeyView {
  kid: string;
  tenantId: string;
  alg: string;
  status: 'ACTIVE' | 'PREVIOUS' | 'RETIRED';
  publicJwk: JsonWebKey;
  createdAt: string;
  rotatedAt: string | null;
  retiredAt: string | null;
  source: 'local' | 'external';
}

interface Jwk extends JsonWebKey {
  kid: string;
  alg: string;
  use: string;
}

const ROTATION_GUARD_MS = 305_000;
const KEY_FIELDS = [
  'alg',
  'createdAt',
  'kid',
  'publicJwk',
  'retiredAt',
  'rotatedAt',
  'source',
  'status',
  'tenantId',
];

/** The body must carry no private key material, by name or by PEM text. */
function assertNoPrivateMaterial(body: string): void {
  assert.ok(!body.includes('PRIVATE KEY'), 'PEM private key in the body');
  assert.ok(!body.includes('private'), `"private" in the body: ${body}`);
  const keys = allKeys(JSON.parse(body));
  for (const member of PRIVATE_MEMBERS) assert.ok(!keys.includes(member), `member ${member} in the body`);
  for (const member of ['headers', 'signHeaders', 'sign_headers', 'privateKey', 'private_key']) {
    assert.ok(!keys.includes(member), `member ${member} in the body`);
  }
}

for (const engine of ENGINES) {
  describe(`signing keys (${engine})`, () => {
    let t: TestApp;
    let acme: CreatedTenant;
    let globex: CreatedTenant;

    const iso = () => new Date(t.clock()).toISOString();

    async function tenant(id: string): Promise<{ id: string; owner: string }> {
      const created = await t.createTenant(id);
      return { id, owner: created.ownerKey.key };
    }

    async function listKeys(tenantId: string, key: string): Promise<KeyView[]> {
      const res = await t.app.inject({
        method: 'GET',
        url: '/authority/keys',
        headers: bearer(key, tenantId),
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { keys: KeyView[] }).keys;
    }

    const rotate = (tenantId: string, key: string) =>
      t.app.inject({ method: 'POST', url: '/authority/keys/rotate', headers: bearer(key, tenantId) });

    const setAlgorithm = (tenantId: string, key: string, payload: unknown) =>
      t.app.inject({
        method: 'PUT',
        url: '/authority/keys/algorithm',
        headers: bearer(key, tenantId),
        payload: payload as object,
      });

    const byKid = (keys: KeyView[], kid: string) => {
      const found = keys.find((k) => k.kid === kid);
      assert.ok(found, `kid ${kid} not listed`);
      return found;
    };

    async function rowCount(tenantId: string): Promise<number> {
      const rows = await t.storage.db
        .selectFrom('signing_keys')
        .select('kid')
        .where('tenant_id', '=', tenantId)
        .execute();
      return rows.length;
    }

    before(async () => {
      t = await createTestApp(engine);
      acme = await t.createTenant('acme');
      globex = await t.createTenant('globex');
    });
    after(async () => {
      await t.close();
    });

    test('first use creates one EdDSA ACTIVE local key whose kid has the contract form', async () => {
      assert.equal(await rowCount('acme'), 0, 'tenant creation makes no signing key');
      t.clock.advance(1_500);
      const key = await t.services.signingKeys.ensureActive('acme');
      assert.match(key.kid, /^acme-\d+-[A-Z2-7]{8}$/);
      assert.equal(key.kid.split('-')[1], String(Math.floor(t.clock() / 1000)));
      assert.equal(key.tenantId, 'acme');
      assert.equal(key.alg, 'EdDSA');
      assert.equal(key.status, 'ACTIVE');
      assert.equal(key.source, 'local');
      assert.equal(key.createdAt, iso());
      assert.equal(key.rotatedAt, null);
      assert.equal(key.retiredAt, null);
      assert.equal(key.publicJwk.kty, 'OKP');
      assert.equal(key.publicJwk.crv, 'Ed25519');
      assert.equal(key.publicJwk.d, undefined);
      // Later uses return the same key and create nothing.
      t.clock.advance(10_000);
      assert.equal((await t.services.signingKeys.ensureActive('acme')).kid, key.kid);
      assert.equal((await t.services.signingKeys.signer('acme')).kid, key.kid);
      assert.equal(await rowCount('acme'), 1);
    });

    test('concurrent first use: 10 parallel ensureActive calls yield exactly one ACTIVE key', async () => {
      await t.createTenant('race');
      const results = await Promise.all(
        Array.from({ length: 10 }, () => t.services.signingKeys.ensureActive('race')),
      );
      const kids = new Set(results.map((r) => r.kid));
      assert.equal(kids.size, 1, `several kids returned: ${[...kids].join(', ')}`);
      const rows = await t.storage.db
        .selectFrom('signing_keys')
        .select(['kid', 'status'])
        .where('tenant_id', '=', 'race')
        .execute();
      assert.deepEqual(rows, [{ kid: [...kids][0], status: 'ACTIVE' }]);
    });

    test('GET /authority/keys lists the keys with statuses and never private material', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/authority/keys',
        headers: bearer(acme.ownerKey.key, 'acme'),
      });
      assert.equal(res.statusCode, 200, res.body);
      assertNoPrivateMaterial(res.body);
      const { keys } = res.json() as { keys: KeyView[] };
      assert.equal(keys.length, 1);
      const [key] = keys as [KeyView];
      assert.deepEqual(Object.keys(key).sort(), KEY_FIELDS);
      assert.equal(key.status, 'ACTIVE');
      assert.equal(key.alg, 'EdDSA');
      // The /v1 prefix reaches the same route.
      const v1 = await t.app.inject({
        method: 'GET',
        url: '/v1/authority/keys',
        headers: bearer(acme.ownerKey.key, 'acme'),
      });
      assert.equal(v1.statusCode, 200, v1.body);
      assert.deepEqual(v1.json(), res.json());
    });

    test('rotate: 201, ACTIVE → PREVIOUS; within 305 s every rotating path is 409; then PREVIOUS → RETIRED', async () => {
      const { id, owner } = await tenant('rotor');
      const [first] = (await listKeys(id, owner)) as [KeyView];

      t.clock.advance(2_000);
      const rotatedAt1 = iso();
      // A body-less POST, with or without content-type: application/json.
      const res = await t.app.inject({
        method: 'POST',
        url: '/authority/keys/rotate',
        headers: { ...bearer(owner, id), 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 201, res.body);
      assertNoPrivateMaterial(res.body);
      const second = res.json() as KeyView;
      assert.match(second.kid, /^rotor-\d+-[A-Z2-7]{8}$/);
      assert.notEqual(second.kid, first.kid);
      assert.equal(second.status, 'ACTIVE');
      assert.equal(second.alg, 'EdDSA');
      assert.equal(second.source, 'local');
      assert.equal(second.createdAt, rotatedAt1);
      let keys = await listKeys(id, owner);
      assert.equal(keys.length, 2);
      assert.equal(byKid(keys, second.kid).status, 'ACTIVE');
      assert.equal(byKid(keys, first.kid).status, 'PREVIOUS');
      assert.equal(byKid(keys, first.kid).rotatedAt, rotatedAt1);
      assert.equal(byKid(keys, first.kid).retiredAt, null);
      assert.equal((await t.services.signingKeys.signer(id)).kid, second.kid);

      // 1 ms before the guard ends: every path that rotates answers 409 and changes nothing.
      t.clock.advance(ROTATION_GUARD_MS - 1);
      const conflict = assertError(await rotate(id, owner), 409, 'CONFLICT');
      assert.equal(conflict.details?.retryAfterSeconds, 1);
      assertError(await setAlgorithm(id, owner, { alg: 'ES256' }), 409, 'CONFLICT');
      assertError(await setAlgorithm(id, owner, { alg: 'EdDSA' }), 409, 'CONFLICT');
      assert.deepEqual(await listKeys(id, owner), keys);
      assert.equal(await rowCount(id), 2);

      t.clock.advance(1);
      const retiredAt = iso();
      const third = await rotate(id, owner);
      assert.equal(third.statusCode, 201, third.body);
      const thirdKid = (third.json() as KeyView).kid;
      keys = await listKeys(id, owner);
      assert.equal(keys.length, 3);
      assert.equal(byKid(keys, thirdKid).status, 'ACTIVE');
      assert.equal(byKid(keys, second.kid).status, 'PREVIOUS');
      assert.equal(byKid(keys, second.kid).rotatedAt, retiredAt);
      const oldest = byKid(keys, first.kid);
      assert.equal(oldest.status, 'RETIRED');
      assert.equal(oldest.retiredAt, retiredAt);
      assert.equal(oldest.rotatedAt, rotatedAt1);
      assert.equal(keys.filter((k) => k.status === 'ACTIVE').length, 1);

      // Immediately again: 409 (the new PREVIOUS just stopped being ACTIVE).
      const again = assertError(await rotate(id, owner), 409, 'CONFLICT');
      assert.equal(again.details?.retryAfterSeconds, 305);
    });

    test('concurrent rotations: exactly one 201, the others 409 CONFLICT, one ACTIVE key', async () => {
      const { id, owner } = await tenant('stampede');
      const [first] = (await listKeys(id, owner)) as [KeyView];
      const responses = await Promise.all([
        ...Array.from({ length: 4 }, () => rotate(id, owner)),
        setAlgorithm(id, owner, { alg: 'EdDSA' }),
      ]);
      const succeeded = responses.filter((res) => res.statusCode === 200 || res.statusCode === 201);
      assert.equal(succeeded.length, 1, responses.map((res) => `${res.statusCode} ${res.body}`).join('\n'));
      for (const res of responses.filter((r) => !succeeded.includes(r))) assertError(res, 409, 'CONFLICT');
      const keys = await listKeys(id, owner);
      assert.equal(keys.length, 2);
      assert.equal(byKid(keys, first.kid).status, 'PREVIOUS');
      const winner = succeeded[0] as (typeof succeeded)[number];
      assert.equal(byKid(keys, (winner.json() as KeyView).kid).status, 'ACTIVE');
      assert.equal((await auditEntries(t.storage, id, 'keys.rotated')).length, 1);
    });

    test('PUT /authority/keys/algorithm switches to RS256 (RSA-4096) and ES256; a bad alg is 400', async () => {
      const { id, owner } = await tenant('algos');
      const [eddsa] = (await listKeys(id, owner)) as [KeyView];

      const rs = await setAlgorithm(id, owner, { alg: 'RS256' });
      assert.equal(rs.statusCode, 200, rs.body);
      assertNoPrivateMaterial(rs.body);
      const rsKey = rs.json() as KeyView;
      assert.equal(rsKey.alg, 'RS256');
      assert.equal(rsKey.status, 'ACTIVE');
      assert.equal(rsKey.publicJwk.kty, 'RSA');
      const rsaPublic = createPublicKey({ key: rsKey.publicJwk, format: 'jwk' });
      assert.equal(rsaPublic.asymmetricKeyType, 'rsa');
      assert.equal(rsaPublic.asymmetricKeyDetails?.modulusLength, 4096);
      const signer = await t.services.signingKeys.signer(id);
      assert.equal(signer.kid, rsKey.kid);
      assert.equal(signer.alg, 'RS256');
      let keys = await listKeys(id, owner);
      assert.equal(byKid(keys, eddsa.kid).status, 'PREVIOUS');

      t.clock.advance(ROTATION_GUARD_MS);
      const es = await setAlgorithm(id, owner, { alg: 'ES256' });
      assert.equal(es.statusCode, 200, es.body);
      const esKey = es.json() as KeyView;
      assert.equal(esKey.alg, 'ES256');
      assert.equal(esKey.publicJwk.kty, 'EC');
      assert.equal(esKey.publicJwk.crv, 'P-256');
      keys = await listKeys(id, owner);
      assert.equal(byKid(keys, esKey.kid).status, 'ACTIVE');
      assert.equal(byKid(keys, rsKey.kid).status, 'PREVIOUS');
      assert.equal(byKid(keys, eddsa.kid).status, 'RETIRED');

      // A plain rotation keeps the current algorithm.
      t.clock.advance(ROTATION_GUARD_MS);
      const rotated = await rotate(id, owner);
      assert.equal(rotated.statusCode, 201, rotated.body);
      assert.equal((rotated.json() as KeyView).alg, 'ES256');

      // Bad input: 400 (although a rotation would be allowed now), and nothing changes.
      t.clock.advance(ROTATION_GUARD_MS);
      const before = await listKeys(id, owner);
      for (const payload of [
        { alg: 'HS256' },
        { alg: 'none' },
        { alg: 'eddsa' },
        { alg: 'RS512' },
        { alg: '' },
        { alg: 256 },
        {},
        { alg: 'ES256', extra: true },
      ]) {
        const error = assertError(await setAlgorithm(id, owner, payload), 400, 'VALIDATION_ERROR');
        assert.ok(Array.isArray(error.details?.issues), JSON.stringify(error));
      }
      assert.deepEqual(await listKeys(id, owner), before);
    });

    test('JWKS: public, cached 300 s, exactly the ACTIVE and PREVIOUS keys; the archive: exactly the RETIRED ones', async () => {
      const { id, owner } = await tenant('pubkeys');
      // A fresh tenant: the JWKS creates the first key, the archive is empty.
      const fresh = await t.app.inject({ method: 'GET', url: `/.well-known/authority/${id}/jwks.json` });
      assert.equal(fresh.statusCode, 200, fresh.body);
      assert.equal((fresh.json() as { keys: Jwk[] }).keys.length, 1);
      const emptyArchive = await t.app.inject({
        method: 'GET',
        url: `/.well-known/authority/${id}/jwks-archive.json`,
      });
      assert.equal(emptyArchive.statusCode, 200, emptyArchive.body);
      assert.deepEqual(emptyArchive.json(), { keys: [] });

      assert.equal((await rotate(id, owner)).statusCode, 201);
      t.clock.advance(ROTATION_GUARD_MS);
      assert.equal((await rotate(id, owner)).statusCode, 201);
      t.clock.advance(ROTATION_GUARD_MS);
      assert.equal((await setAlgorithm(id, owner, { alg: 'ES256' })).statusCode, 200);
      const keys = await listKeys(id, owner);
      const kidsOf = (status: string) =>
        keys
          .filter((k) => k.status === status)
          .map((k) => k.kid)
          .sort();
      assert.equal(kidsOf('ACTIVE').length, 1);
      assert.equal(kidsOf('PREVIOUS').length, 1);
      assert.equal(kidsOf('RETIRED').length, 2);

      for (const prefix of ['', '/v1']) {
        // No credential, no tenant header.
        const res = await t.app.inject({
          method: 'GET',
          url: `${prefix}/.well-known/authority/${id}/jwks.json`,
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['cache-control'], 'public, max-age=300');
        assertNoPrivateMaterial(res.body);
        const jwks = (res.json() as { keys: Jwk[] }).keys;
        assert.deepEqual(jwks.map((k) => k.kid).sort(), [...kidsOf('ACTIVE'), ...kidsOf('PREVIOUS')].sort());
        for (const jwk of jwks) {
          const listed = byKid(keys, jwk.kid);
          assert.equal(jwk.alg, listed.alg);
          assert.equal(jwk.use, 'sig');
          assert.deepEqual(jwk, { ...listed.publicJwk, kid: listed.kid, alg: listed.alg, use: 'sig' });
          // Usable as a public key.
          assert.equal(createPublicKey({ key: jwk, format: 'jwk' }).type, 'public');
        }

        const archive = await t.app.inject({
          method: 'GET',
          url: `${prefix}/.well-known/authority/${id}/jwks-archive.json`,
        });
        assert.equal(archive.statusCode, 200, archive.body);
        assertNoPrivateMaterial(archive.body);
        const retired = (archive.json() as { keys: Jwk[] }).keys;
        assert.deepEqual(retired.map((k) => k.kid).sort(), kidsOf('RETIRED'));
        for (const jwk of retired) {
          const listed = byKid(keys, jwk.kid);
          assert.deepEqual(jwk, { ...listed.publicJwk, kid: listed.kid, alg: listed.alg, use: 'sig' });
        }
      }
    });

    test('JWKS and archive of an unknown tenant: 404, and nothing is created', async () => {
      for (const url of [
        '/.well-known/authority/no-such-tenant/jwks.json',
        '/.well-known/authority/no-such-tenant/jwks-archive.json',
        '/v1/.well-known/authority/no-such-tenant/jwks.json',
        '/v1/.well-known/authority/no-such-tenant/jwks-archive.json',
      ]) {
        assertError(await t.app.inject({ method: 'GET', url }), 404, 'NOT_FOUND');
      }
      assert.equal(await rowCount('no-such-tenant'), 0);
    });

    test('private keys at rest are sealed under the master key (AES-256-GCM)', async () => {
      const rows = await t.storage.db
        .selectFrom('signing_keys')
        .select(['kid', 'private_key', 'public_jwk'])
        .where('tenant_id', '=', 'acme')
        .execute();
      assert.ok(rows.length >= 1);
      for (const row of rows) {
        assert.equal(typeof row.private_key, 'string');
        const sealed = row.private_key as string;
        assert.ok(!sealed.includes('PRIVATE KEY'), 'plaintext PEM at rest');
        assert.ok(!sealed.includes('-----BEGIN'), 'plaintext PEM at rest');
        assert.equal(JSON.parse(row.public_jwk).d, undefined);
        // The right master key opens it (and it is the key of the published public JWK)...
        const pem = createSecretBox(TEST_MASTER_KEY)
          .open(sealed, `signing-key:acme:${row.kid}`)
          .toString('utf8');
        assert.match(pem, /PRIVATE KEY/);
        const derived = createPublicKey(pem).export({ format: 'jwk' });
        assert.deepEqual(derived, JSON.parse(row.public_jwk));
        // ...another does not, whatever the context.
        const other = createSecretBox(Buffer.alloc(32, 8));
        assert.throws(() => other.open(sealed, `signing-key:acme:${row.kid}`));
        // Nor does the right key under another row's context.
        assert.throws(() => createSecretBox(TEST_MASTER_KEY).open(sealed, 'signing-key:acme:other-kid'));
      }
    });

    test('every rotation appends one keys.rotated audit entry whose actorId is the caller key id', async () => {
      const { id, owner } = await tenant('audited');
      await t.createTenant('audited-2');
      const admin = await issueKey(t, id, owner, 'admin');
      const ownerKeyId = (
        await t.storage.db
          .selectFrom('api_keys')
          .select('id')
          .where('tenant_id', '=', id)
          .where('role', '=', 'owner')
          .executeTakeFirstOrThrow()
      ).id;
      const [first] = (await listKeys(id, owner)) as [KeyView];
      assert.deepEqual(await auditEntries(t.storage, id, 'keys.rotated'), []);

      const r1 = await rotate(id, admin.key);
      assert.equal(r1.statusCode, 201, r1.body);
      const kid1 = (r1.json() as KeyView).kid;
      // A refused rotation records nothing.
      assertError(await rotate(id, owner), 409, 'CONFLICT');
      t.clock.advance(ROTATION_GUARD_MS);
      const r2 = await setAlgorithm(id, owner, { alg: 'ES256' });
      assert.equal(r2.statusCode, 200, r2.body);
      const kid2 = (r2.json() as KeyView).kid;
      t.clock.advance(ROTATION_GUARD_MS);
      const r3 = await rotate(id, owner);
      assert.equal(r3.statusCode, 201, r3.body);
      const kid3 = (r3.json() as KeyView).kid;

      const entries = await auditEntries(t.storage, id, 'keys.rotated');
      assert.equal(entries.length, 3);
      assert.deepEqual(
        entries.map((e) => e.actorId),
        [admin.id, ownerKeyId, ownerKeyId],
      );
      for (const entry of entries) {
        assert.equal(entry.actorType, 'principal:api-key');
        assert.equal(entry.intentId, null);
      }
      assert.deepEqual(
        entries.map((e) => e.payload.kid),
        [kid1, kid2, kid3],
      );
      assert.equal(entries[0]?.payload.previousKid, first.kid);
      assert.equal(entries[1]?.payload.alg, 'ES256');
      assert.equal(entries[2]?.payload.retiredKid, kid1);
      // Other tenants' chains are untouched.
      assert.deepEqual(await auditEntries(t.storage, 'audited-2', 'keys.rotated'), []);
    });

    test('permissions: only keys with authority:keys:* read or rotate; 403 FORBIDDEN names the permission', async () => {
      const { id, owner } = await tenant('perms');
      const admin = await issueKey(t, id, owner, 'admin');
      assert.equal((await listKeys(id, admin.key)).length, 1);
      for (const role of ['auditor', 'agent', 'approver', 'policy_admin', 'edge']) {
        const issued = await issueKey(t, id, owner, role);
        const read = assertError(
          await t.app.inject({ method: 'GET', url: '/authority/keys', headers: bearer(issued.key, id) }),
          403,
          'FORBIDDEN',
        );
        assert.equal(read.details?.permission, 'authority:keys:read', role);
        const write = assertError(await rotate(id, issued.key), 403, 'FORBIDDEN');
        assert.equal(write.details?.permission, 'authority:keys:write', role);
        const alg = assertError(await setAlgorithm(id, issued.key, { alg: 'ES256' }), 403, 'FORBIDDEN');
        assert.equal(alg.details?.permission, 'authority:keys:write', role);
        const external = assertError(
          await t.app.inject({
            method: 'POST',
            url: '/authority/keys/external',
            headers: bearer(issued.key, id),
            payload: {},
          }),
          403,
          'FORBIDDEN',
        );
        assert.equal(external.details?.permission, 'authority:keys:write', role);
      }
      assert.equal(await rowCount(id), 1, 'no refused call rotated');
      // No credential at all: 401.
      assertError(
        await t.app.inject({ method: 'GET', url: '/authority/keys', headers: { 'x-tenant-id': id } }),
        401,
        'UNAUTHORIZED',
      );
    });

    test("tenant isolation: a tenant's key lists only its own keys and cannot act on another's", async () => {
      const globexKeys = await listKeys('globex', globex.ownerKey.key);
      assert.ok(globexKeys.length >= 1);
      for (const key of globexKeys) {
        assert.equal(key.tenantId, 'globex');
        assert.match(key.kid, /^globex-\d+-[A-Z2-7]{8}$/);
      }
      const acmeBefore = await listKeys('acme', acme.ownerKey.key);
      const acmeKids = new Set(acmeBefore.map((k) => k.kid));
      assert.ok(globexKeys.every((k) => !acmeKids.has(k.kid)));

      // globex's key with acme in the header: 403 TENANT_MISMATCH, on read and on rotate.
      assertError(
        await t.app.inject({
          method: 'GET',
          url: '/authority/keys',
          headers: bearer(globex.ownerKey.key, 'acme'),
        }),
        403,
        'TENANT_MISMATCH',
      );
      assertError(await rotate('acme', globex.ownerKey.key), 403, 'TENANT_MISMATCH');
      // globex rotating its own keys leaves acme's untouched.
      t.clock.advance(ROTATION_GUARD_MS);
      assert.equal((await rotate('globex', globex.ownerKey.key)).statusCode, 201);
      assert.deepEqual(await listKeys('acme', acme.ownerKey.key), acmeBefore);
    });
  });
}
