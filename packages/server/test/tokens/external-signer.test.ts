import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import ipaddr from 'ipaddr.js';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { type EgressPolicy, isAddressAllowed, type Resolver } from '../../src/egress/egress-client.js';
import type { CidrBlock } from '../../src/foundation/ip-allowlist.js';
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js';
import { mintDecisionToken } from '../../src/tokens/decision-token.js';
import { ExternalSignerError } from '../../src/tokens/external-signer.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { ADAPTER_ID, allKeys, assertError, auditEntries, bearer, tokenRequest } from '../helpers/tokens.js';

const VAULT_TOKEN = 'hvs.test-vault-token-5f3a9c0e1d7b';
const ROTATION_GUARD_MS = 305_000;

type Mode = 'ok' | 'high-s' | '500' | 'garbage' | 'no-signature' | 'wrong-key' | 'hang';

/** The order of the P-256 group. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const sOf = (signature: Buffer) => BigInt(`0x${signature.subarray(32).toString('hex')}`);

interface VaultRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * A stand-in for HashiCorp Vault's transit engine: `POST /v1/transit/sign/<key>` with
 * `{input, hash_algorithm, signature_algorithm, marshaling_algorithm}` answers
 * `{data: {signature: "vault:v1:<base64url>"}}`, signing with a real private key.
 */
class FakeVault {
  mode: Mode = 'ok';
  readonly requests: VaultRequest[] = [];
  private readonly keys = new Map<string, { alg: 'EdDSA' | 'ES256'; privateKey: KeyObject }>();
  private readonly other = {
    EdDSA: generateKeyPairSync('ed25519').privateKey,
    ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
  };
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A new transit key; returns its sign URL on 127.0.0.1 and the public JWK. */
  addKey(name: string, alg: 'EdDSA' | 'ES256') {
    const pair =
      alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.keys.set(name, { alg, privateKey: pair.privateKey });
    return {
      signUrl: this.url(name),
      publicJwk: pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>,
    };
  }

  url(name: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}/v1/transit/sign/${name}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {}
      this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };
      if (this.mode === 'hang') return; // never answers
      if (req.headers['x-vault-token'] !== VAULT_TOKEN) return reply(403, { errors: ['permission denied'] });
      const match = /^\/v1\/transit\/sign\/([^/]+)$/.exec(req.url ?? '');
      const key = match ? this.keys.get(match[1] as string) : undefined;
      if (req.method !== 'POST' || !key || typeof body.input !== 'string') {
        return reply(400, { errors: ['bad request'] });
      }
      if (this.mode === '500') return reply(500, { errors: ['internal error'] });
      if (this.mode === 'garbage') return reply(200, '<html>not json</html>');
      if (this.mode === 'no-signature') return reply(200, { data: {} });
      const input = Buffer.from(body.input, 'base64');
      const privateKey = this.mode === 'wrong-key' ? this.other[key.alg] : key.privateKey;
      let signature =
        key.alg === 'EdDSA'
          ? sign(null, input, privateKey)
          : sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      // Vault's ECDSA signatures come with either S; this mode always answers the high one.
      if (this.mode === 'high-s' && sOf(signature) <= P256_ORDER >> 1n) {
        const high = Buffer.from((P256_ORDER - sOf(signature)).toString(16).padStart(64, '0'), 'hex');
        signature = Buffer.concat([signature.subarray(0, 32), high]);
      }
      reply(200, { data: { signature: `vault:v1:${signature.toString('base64url')}`, key_version: 1 } });
    });
  }
}

describe('isAddressAllowed', () => {
  const closed: EgressPolicy = { allowPrivate: false, allowCidrs: [] };
  const cidrs = (...list: string[]): CidrBlock[] => list.map((c) => ipaddr.parseCIDR(c) as CidrBlock);

  test('public IPv4 and IPv6 addresses are allowed', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.15.255.255',
      '172.32.0.1',
      '192.169.0.1',
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(isAddressAllowed(address, closed), true, address);
    }
  });

  test('private, loopback, link-local, unique-local, reserved and IPv4-mapped private addresses are refused', () => {
    for (const address of [
      // RFC 1918
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      // loopback
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      // link-local (cloud metadata)
      '169.254.169.254',
      'fe80::1',
      // unique-local
      'fc00::1',
      'fd12:3456:789a::1',
      // unspecified, broadcast, multicast, carrier-grade NAT
      '0.0.0.0',
      '::',
      '255.255.255.255',
      '224.0.0.1',
      'ff02::1',
      '100.64.0.1',
      // IPv4-mapped IPv6, dotted and hexadecimal forms
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      '::ffff:192.168.0.1',
      '::ffff:a00:1',
      '::ffff:7f00:1',
    ]) {
      assert.equal(isAddressAllowed(address, closed), false, address);
    }
  });

  test('ALLOW_PRIVATE_EGRESS allows everything', () => {
    const open: EgressPolicy = { allowPrivate: true, allowCidrs: [] };
    for (const address of ['10.0.0.1', '127.0.0.1', '::1', '169.254.169.254', 'fd00::1', '::ffff:10.0.0.1']) {
      assert.equal(isAddressAllowed(address, open), true, address);
    }
  });

  test('EGRESS_ALLOW_CIDRS opens exactly the listed ranges, IPv4-mapped forms included', () => {
    const policy: EgressPolicy = { allowPrivate: false, allowCidrs: cidrs('127.0.0.0/8', 'fd00:1::/32') };
    for (const address of ['127.0.0.1', '127.255.0.9', '::ffff:127.0.0.1', 'fd00:1::5', '8.8.8.8']) {
      assert.equal(isAddressAllowed(address, policy), true, address);
    }
    for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '169.254.169.254', '::1', 'fd00:2::5', 'fe80::1']) {
      assert.equal(isAddressAllowed(address, policy), false, address);
    }
  });
});

describe('egress configuration', () => {
  test('EGRESS_ALLOW_CIDRS takes CIDR blocks and single addresses', () => {
    const config = loadConfig({ EGRESS_ALLOW_CIDRS: '127.0.0.0/8, 10.1.2.3,fd00::/8' });
    assert.equal(config.egress.allowPrivate, false);
    assert.deepEqual(
      config.egress.allowCidrs.map(([net, bits]) => `${net.toString()}/${bits}`),
      ['127.0.0.0/8', '10.1.2.3/32', 'fd00::/8'],
    );
    assert.equal(loadConfig({ ALLOW_PRIVATE_EGRESS: '1' }).egress.allowPrivate, true);
    assert.deepEqual(loadConfig({}).egress, { allowPrivate: false, allowCidrs: [] });
  });

  test('an invalid EGRESS_ALLOW_CIDRS or ALLOW_PRIVATE_EGRESS fails, naming the variable', () => {
    for (const [variable, value] of [
      ['EGRESS_ALLOW_CIDRS', 'not-a-cidr'],
      ['EGRESS_ALLOW_CIDRS', '127.0.0.0/8,10.0.0.0/99'],
      ['ALLOW_PRIVATE_EGRESS', 'yes'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.equal(error.variable, variable);
          assert.ok(error.message.startsWith(variable), error.message);
          return true;
        },
      );
    }
  });
});

for (const engine of ENGINES) {
  describe(`external signer (${engine})`, () => {
    let vault: FakeVault;
    let t: TestApp;
    const owners: Record<string, string> = {};

    const seconds = () => Math.floor(t.clock() / 1000);
    const kidFor = (tenantId: string, suffix = 'ABCDEFGH') => `${tenantId}-${seconds()}-${suffix}`;

    async function tenant(id: string, app: TestApp = t): Promise<CreatedTenant> {
      const created = await app.createTenant(id);
      owners[id] = created.ownerKey.key;
      return created;
    }

    function register(tenantId: string, body: Record<string, unknown>, app: TestApp = t) {
      return app.app.inject({
        method: 'POST',
        url: '/authority/keys/external',
        headers: bearer(owners[tenantId] as string, tenantId),
        payload: body,
      });
    }

    async function listKeys(tenantId: string, app: TestApp = t) {
      const res = await app.app.inject({
        method: 'GET',
        url: '/authority/keys',
        headers: bearer(owners[tenantId] as string, tenantId),
      });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    }

    async function jwks(tenantId: string): Promise<JSONWebKeySet> {
      const res = await t.app.inject({ method: 'GET', url: `/.well-known/authority/${tenantId}/jwks.json` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as JSONWebKeySet;
    }

    async function mintAndVerify(tenantId: string, alg: string, kid: string) {
      const signer = await t.services.signingKeys.signer(tenantId);
      assert.equal(signer.kid, kid);
      assert.equal(signer.alg, alg);
      const minted = await mintDecisionToken(signer, tokenRequest(tenantId), t.clock());
      assert.deepEqual(decodeProtectedHeader(minted.token), { alg, typ: 'JWT', kid });
      const verified = await jwtVerify(minted.token, createLocalJWKSet(await jwks(tenantId)), {
        algorithms: [alg],
        issuer: 'service-authority',
        audience: ADAPTER_ID,
        currentDate: new Date(t.clock()),
      });
      assert.deepEqual(verified.payload, minted.claims);
      return minted;
    }

    before(async () => {
      vault = new FakeVault();
      await vault.start();
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1', EXTERNAL_SIGNER_TIMEOUT_MS: '200' });
    });
    after(async () => {
      await t.close();
      await vault.stop();
    });

    test('registering an Ed25519 key: 201, ACTIVE, source external; headers never returned, stored sealed', async () => {
      await tenant('acme');
      const { signUrl, publicJwk } = vault.addKey('acme-ed', 'EdDSA');
      const before = vault.requests.length;
      const kid = kidFor('acme');
      const res = await register('acme', {
        kid,
        alg: 'EdDSA',
        publicJwk,
        signUrl,
        headers: { 'X-Vault-Token': VAULT_TOKEN },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.ok(!res.body.includes(VAULT_TOKEN), 'the vault token is echoed');
      const key = res.json();
      assert.equal(key.kid, kid);
      assert.equal(key.alg, 'EdDSA');
      assert.equal(key.status, 'ACTIVE');
      assert.equal(key.source, 'external');
      assert.equal(key.signUrl, signUrl);
      assert.deepEqual(key.publicJwk, publicJwk);
      for (const member of ['headers', 'signHeaders', 'sign_headers', 'X-Vault-Token', 'x-vault-token']) {
        assert.ok(!allKeys(key).includes(member), member);
      }

      // The signer was proved before registration, with the Vault transit request shape.
      const checks = vault.requests.slice(before);
      assert.equal(checks.length, 1);
      const check = checks[0] as VaultRequest;
      assert.equal(check.method, 'POST');
      assert.equal(check.path, '/v1/transit/sign/acme-ed');
      assert.equal(check.headers['x-vault-token'], VAULT_TOKEN);
      assert.match(String(check.headers['content-type']), /^application\/json/);
      assert.deepEqual(Object.keys(check.body).sort(), [
        'hash_algorithm',
        'input',
        'marshaling_algorithm',
        'signature_algorithm',
      ]);
      assert.equal(check.body.hash_algorithm, 'sha2-256');
      assert.equal(check.body.signature_algorithm, 'pkcs1v15');
      assert.equal(check.body.marshaling_algorithm, 'jws');

      // The listing: the external key is ACTIVE, the local first key PREVIOUS; no headers anywhere.
      const listed = await listKeys('acme');
      assert.ok(!listed.body.includes(VAULT_TOKEN));
      assert.ok(!listed.body.includes('X-Vault-Token'));
      const keys = listed.json().keys as Array<{ kid: string; status: string; source: string }>;
      assert.deepEqual(keys.map((k) => [k.source, k.status]).sort(), [
        ['external', 'ACTIVE'],
        ['local', 'PREVIOUS'],
      ]);
      for (const listedKey of keys) {
        for (const member of ['headers', 'signHeaders', 'sign_headers']) {
          assert.ok(!allKeys(listedKey).includes(member), member);
        }
      }

      // At rest: the headers are sealed, there is no private key.
      const row = await t.storage.db
        .selectFrom('signing_keys')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .where('kid', '=', kid)
        .executeTakeFirstOrThrow();
      assert.equal(typeof row.sign_headers, 'string');
      assert.ok(!(row.sign_headers as string).includes(VAULT_TOKEN));
      assert.ok(!(row.sign_headers as string).includes('X-Vault-Token'));
      assert.ok(!(row.sign_headers as string).includes(Buffer.from(VAULT_TOKEN).toString('base64')));
      assert.equal(row.private_key, null);
      assert.equal(row.sign_url, signUrl);

      // Registration is a key event: audited as a rotation.
      const [entry] = await auditEntries(t.storage, 'acme', 'keys.rotated');
      assert.equal(entry?.payload.kid, kid);
      assert.equal(entry?.payload.source, 'external');
    });

    test('tokens signed through the external Ed25519 signer verify with jose against the JWKS', async () => {
      const kid = (await listKeys('acme'))
        .json()
        .keys.find((k: { status: string }) => k.status === 'ACTIVE').kid;
      const before = vault.requests.length;
      const minted = await mintAndVerify('acme', 'EdDSA', kid);
      const requests = vault.requests.slice(before);
      assert.equal(requests.length, 1);
      // What was signed is exactly the JWS signing input.
      const input = Buffer.from(String(requests[0]?.body.input), 'base64').toString('ascii');
      assert.equal(input, minted.token.split('.').slice(0, 2).join('.'));
    });

    test('an ES256 external key (Vault jws marshaling: r||s) works end to end', async () => {
      await tenant('globex');
      const { signUrl, publicJwk } = vault.addKey('globex-es', 'ES256');
      const kid = kidFor('globex', 'QRSTUV23');
      const res = await register('globex', {
        kid,
        alg: 'ES256',
        publicJwk,
        signUrl,
        headers: { 'X-Vault-Token': VAULT_TOKEN },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().alg, 'ES256');
      await mintAndVerify('globex', 'ES256', kid);
      // A high S from the signer is written in low-S form, which is what verifiers accept.
      vault.mode = 'high-s';
      try {
        for (let i = 0; i < 4; i += 1) {
          const minted = await mintAndVerify('globex', 'ES256', kid);
          assert.ok(sOf(Buffer.from(minted.token.split('.')[2] ?? '', 'base64url')) <= P256_ORDER >> 1n);
        }
      } finally {
        vault.mode = 'ok';
      }
    });

    test('fail-closed: a signer that errs, answers garbage, signs with another key or hangs makes signing throw', async () => {
      const signer = await t.services.signingKeys.signer('acme');
      try {
        for (const mode of ['500', 'garbage', 'no-signature', 'wrong-key', 'hang'] as const) {
          vault.mode = mode;
          const before = vault.requests.length;
          await assert.rejects(
            mintDecisionToken(signer, tokenRequest('acme'), t.clock()),
            (error: unknown) => {
              assert.ok(error instanceof ExternalSignerError, `${mode}: ${String(error)}`);
              return true;
            },
            mode,
          );
          assert.equal(vault.requests.length, before + 1, mode);
          // A signer fetched afresh fails the same way.
          await assert.rejects(
            (await t.services.signingKeys.signer('acme')).sign(Buffer.from('input')),
            ExternalSignerError,
          );
        }
      } finally {
        vault.mode = 'ok';
      }
      // Healthy again: signing works.
      const row = await t.storage.db
        .selectFrom('signing_keys')
        .select('kid')
        .where('tenant_id', '=', 'acme')
        .where('status', '=', 'ACTIVE')
        .executeTakeFirstOrThrow();
      await mintAndVerify('acme', 'EdDSA', row.kid);
    });

    test('registration with a failing signer: 400 VALIDATION_ERROR and nothing changes', async () => {
      await tenant('initech');
      const { signUrl, publicJwk } = vault.addKey('initech-ed', 'EdDSA');
      const before = (await listKeys('initech')).json();
      const body = {
        kid: kidFor('initech'),
        alg: 'EdDSA',
        publicJwk,
        signUrl,
        headers: { 'X-Vault-Token': VAULT_TOKEN },
      };
      try {
        for (const mode of ['500', 'garbage', 'no-signature', 'wrong-key', 'hang'] as const) {
          vault.mode = mode;
          const error = assertError(await register('initech', body), 400, 'VALIDATION_ERROR');
          const issues = error.details?.issues as Array<{ path: string; message: string }>;
          assert.equal(issues[0]?.path, '/signUrl', mode);
        }
      } finally {
        vault.mode = 'ok';
      }
      // The wrong Vault token, a wrong key name (Vault answers 4xx).
      assertError(
        await register('initech', { ...body, headers: { 'X-Vault-Token': 'hvs.wrong' } }),
        400,
        'VALIDATION_ERROR',
      );
      assertError(await register('initech', { ...body, headers: {} }), 400, 'VALIDATION_ERROR');
      assertError(
        await register('initech', { ...body, signUrl: vault.url('no-such-key') }),
        400,
        'VALIDATION_ERROR',
      );
      // A signer answering for another key than publicJwk.
      const { publicJwk: otherJwk } = vault.addKey('initech-unused', 'EdDSA');
      assertError(await register('initech', { ...body, publicJwk: otherJwk }), 400, 'VALIDATION_ERROR');
      assert.deepEqual((await listKeys('initech')).json(), before);
      assert.deepEqual(await auditEntries(t.storage, 'initech', 'keys.rotated'), []);
      // The same request with the signer healthy is accepted.
      assert.equal((await register('initech', body)).statusCode, 201);
    });

    test('kid: the wrong tenant prefix or a malformed kid is 400, before any call to the signer', async () => {
      await tenant('hooli');
      const { signUrl, publicJwk } = vault.addKey('hooli-ed', 'EdDSA');
      const s = seconds();
      const before = vault.requests.length;
      for (const kid of [
        `acme-${s}-ABCDEFGH`,
        `hooli-corp-${s}-ABCDEFGH`,
        `xhooli-${s}-ABCDEFGH`,
        `hooli-${s}-abcdefgh`,
        `hooli-${s}-ABCDEFG`,
        `hooli-${s}-ABCDEFGHI`,
        `hooli-${s}-ABCDEFG1`,
        `hooli-${s}-ABCDEFG8`,
        `hooli-x${s}-ABCDEFGH`,
        `hooli--ABCDEFGH`,
        'hooli-ABCDEFGH',
        `hooli-${s}`,
        '',
        ` hooli-${s}-ABCDEFGH`,
        `hooli-${s}-ABCDEFGH\n`,
      ]) {
        const error = assertError(
          await register('hooli', {
            kid,
            alg: 'EdDSA',
            publicJwk,
            signUrl,
            headers: { 'X-Vault-Token': VAULT_TOKEN },
          }),
          400,
          'VALIDATION_ERROR',
        );
        assert.ok(Array.isArray(error.details?.issues), JSON.stringify(kid));
      }
      assert.equal(vault.requests.length, before, 'the signer was called for an invalid kid');
    });

    test('publicJwk not usable for alg, or an unknown alg: 400, before any call to the signer', async () => {
      await tenant('umbrella');
      const { signUrl, publicJwk: edJwk } = vault.addKey('umbrella-ed', 'EdDSA');
      const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
      const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
      const before = vault.requests.length;
      for (const [alg, publicJwk] of [
        ['ES256', edJwk],
        ['RS256', edJwk],
        ['EdDSA', p256],
        ['ES256', p384],
        ['RS256', p256],
        ['EdDSA', {}],
        ['EdDSA', { kty: 'OKP', crv: 'Ed25519', x: 'not-a-key' }],
        ['HS256', edJwk],
        ['none', edJwk],
        // A private JWK: Node would derive the public key from it, but private material is refused.
        ['EdDSA', generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })],
      ] as Array<[string, Record<string, unknown>]>) {
        const error = assertError(
          await register('umbrella', {
            kid: kidFor('umbrella'),
            alg,
            publicJwk,
            signUrl,
            headers: { 'X-Vault-Token': VAULT_TOKEN },
          }),
          400,
          'VALIDATION_ERROR',
        );
        assert.ok(Array.isArray(error.details?.issues), `${alg} ${JSON.stringify(publicJwk)}`);
      }
      // And a sign URL that is not http(s).
      assertError(
        await register('umbrella', {
          kid: kidFor('umbrella'),
          alg: 'EdDSA',
          publicJwk: edJwk,
          signUrl: 'ftp://x/y',
        }),
        400,
        'VALIDATION_ERROR',
      );
      assert.equal(vault.requests.length, before, 'the signer was called for an invalid registration');
    });

    test('registering is a rotation: the 305 s guard applies to external, rotate and algorithm alike', async () => {
      await tenant('guarded');
      const first = vault.addKey('guarded-1', 'EdDSA');
      const second = vault.addKey('guarded-2', 'ES256');
      const headers = { 'X-Vault-Token': VAULT_TOKEN };
      const kid1 = kidFor('guarded', 'AAAAAAAA');
      const r1 = await register('guarded', { kid: kid1, alg: 'EdDSA', ...first, headers });
      assert.equal(r1.statusCode, 201, r1.body);
      const kid2 = kidFor('guarded', 'BBBBBBBB');
      // Within 305 s: every rotating path answers 409.
      t.clock.advance(ROTATION_GUARD_MS - 1);
      assertError(
        await register('guarded', { kid: kid2, alg: 'ES256', ...second, headers }),
        409,
        'CONFLICT',
      );
      for (const [method, url, payload] of [
        ['POST', '/authority/keys/rotate', undefined],
        ['PUT', '/authority/keys/algorithm', { alg: 'ES256' }],
      ] as const) {
        const res = await t.app.inject({
          method,
          url,
          headers: bearer(owners.guarded as string, 'guarded'),
          payload,
        });
        assertError(res, 409, 'CONFLICT');
      }
      // An already registered kid: 409.
      t.clock.advance(1);
      assertError(await register('guarded', { kid: kid1, alg: 'EdDSA', ...first, headers }), 409, 'CONFLICT');
      // After the guard: accepted; the statuses move as for rotate.
      const r2 = await register('guarded', { kid: kid2, alg: 'ES256', ...second, headers });
      assert.equal(r2.statusCode, 201, r2.body);
      const keys = (await listKeys('guarded')).json().keys as Array<{
        kid: string;
        status: string;
        source: string;
      }>;
      const status = Object.fromEntries(keys.map((k) => [k.kid, k.status]));
      assert.equal(status[kid2], 'ACTIVE');
      assert.equal(status[kid1], 'PREVIOUS');
      const local = keys.find((k) => k.source === 'local');
      assert.equal(local?.status, 'RETIRED');
      await mintAndVerify('guarded', 'ES256', kid2);
    });
  });

  describe(`external signer egress guard (${engine})`, () => {
    let vault: FakeVault;
    const apps: TestApp[] = [];
    const resolved: string[] = [];
    const resolver: Resolver = async (host) => {
      resolved.push(host);
      const table: Record<string, string[]> = {
        'vault.example.test': ['10.0.0.5'],
        'metadata.example.test': ['169.254.169.254'],
        'mapped.example.test': ['::ffff:10.0.0.5'],
        'ula.example.test': ['fd00::5'],
        'loopback.example.test': ['127.0.0.1'],
      };
      const addresses = table[host];
      if (!addresses) throw new Error(`unknown host ${host}`);
      return addresses;
    };

    async function appWith(env: Record<string, string>): Promise<{ t: TestApp; owner: string }> {
      const t = await createTestApp(engine, { EXTERNAL_SIGNER_TIMEOUT_MS: '200', ...env }, undefined, {
        resolver,
      });
      apps.push(t);
      const created = await t.createTenant('acme');
      return { t, owner: created.ownerKey.key };
    }

    let keyCount = 0;
    /** Registers a fresh transit key; `{key}` in the URL template stands for its name. */
    function register(t: TestApp, owner: string, signUrlTemplate: string, tenantId = 'acme') {
      keyCount += 1;
      const name = `egress-${keyCount}`;
      const { publicJwk } = vault.addKey(name, 'EdDSA');
      return t.app.inject({
        method: 'POST',
        url: '/authority/keys/external',
        headers: bearer(owner, tenantId),
        payload: {
          kid: `${tenantId}-${Math.floor(t.clock() / 1000)}-ABCDEFGH`,
          alg: 'EdDSA',
          publicJwk,
          signUrl: signUrlTemplate.replace('{key}', name),
          headers: { 'X-Vault-Token': VAULT_TOKEN },
        },
      });
    }

    before(async () => {
      vault = new FakeVault();
      await vault.start();
    });
    after(async () => {
      for (const t of apps) await t.close();
      await vault.stop();
    });

    test('without ALLOW_PRIVATE_EGRESS: loopback sign URLs are refused (400) and the signer never sees a request', async () => {
      const { t, owner } = await appWith({});
      const before = vault.requests.length;
      for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', 'loopback.example.test']) {
        const res = await register(t, owner, `http://${host}:${vault.port}/v1/transit/sign/{key}`);
        const error = assertError(res, 400, 'VALIDATION_ERROR');
        const issues = error.details?.issues as Array<{ path: string; message: string }>;
        assert.equal(issues[0]?.path, '/signUrl');
        assert.match(issues[0]?.message ?? '', /refusing to connect/, host);
      }
      assert.equal(vault.requests.length, before, 'a refused sign URL was contacted');
    });

    test('host names resolving to private or link-local addresses are refused after resolution, before connecting', async () => {
      const { t, owner } = await appWith({});
      for (const host of [
        'vault.example.test',
        'metadata.example.test',
        'mapped.example.test',
        'ula.example.test',
      ]) {
        resolved.length = 0;
        const res = await register(t, owner, `http://${host}:8200/v1/transit/sign/{key}`);
        const error = assertError(res, 400, 'VALIDATION_ERROR');
        const issues = error.details?.issues as Array<{ path: string; message: string }>;
        assert.match(issues[0]?.message ?? '', /refusing to connect/, host);
        assert.deepEqual(resolved, [host], 'the injected resolver was not consulted');
      }
    });

    test('EGRESS_ALLOW_CIDRS=127.0.0.0/8 opens loopback only: 10.x stays refused', async () => {
      const { t, owner } = await appWith({ EGRESS_ALLOW_CIDRS: '127.0.0.0/8' });
      const before = vault.requests.length;
      const literal = await register(t, owner, `http://127.0.0.1:${vault.port}/v1/transit/sign/{key}`);
      assert.equal(literal.statusCode, 201, literal.body);
      assert.equal(vault.requests.length, before + 1);
      // Through a name that resolves to loopback too (another tenant: a registration is a rotation).
      const other = await t.createTenant('globex');
      const named = await register(
        t,
        other.ownerKey.key,
        `http://loopback.example.test:${vault.port}/v1/transit/sign/{key}`,
        'globex',
      );
      assert.equal(named.statusCode, 201, named.body);
      assert.equal(vault.requests.length, before + 2);
      // Signing through the registered key works under the same policy.
      const signer = await t.services.signingKeys.signer('acme');
      await mintDecisionToken(signer, tokenRequest('acme'), t.clock());
      // 10.x and link-local are still refused.
      t.clock.advance(ROTATION_GUARD_MS);
      for (const host of ['vault.example.test', 'metadata.example.test', '10.0.0.5']) {
        const error = assertError(
          await register(t, owner, `http://${host}:8200/v1/transit/sign/{key}`),
          400,
          'VALIDATION_ERROR',
        );
        assert.match(JSON.stringify(error.details), /refusing to connect/, host);
      }
    });
  });
}
