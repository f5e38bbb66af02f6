import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CompactSign,
  type CryptoKey,
  decodeJwt,
  exportJWK,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
  importPKCS8,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import {
  type AuthorityTokenVerification,
  InMemoryNonceStore,
  isVerificationFailureReason,
  type KeySource,
  KeySourceError,
  type NonceStore,
  NonceStoreError,
  parseKid,
  RemoteNonceStore,
  remoteJwks,
  staticJwks,
  TOKEN_VERIFICATION_REASONS,
  type VerificationFailureReason,
  type VerifyAuthorityTokenOptions,
  verifyAuthorityToken,
} from '../src/index.js';
import { asMinted, withS } from './audit-fixtures.js';

type Alg = 'EdDSA' | 'RS256' | 'ES256';

interface TestKey {
  alg: Alg;
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

const TENANT = 'acme';
const ADAPTER = 'github-main';
const TARGET = 'acme/api';
const NOW_S = 1_700_000_100;
const NOW_MS = NOW_S * 1000;
const EXPECTED = { tenantId: TENANT, adapterId: ADAPTER, targetSystem: TARGET };

async function makeKey(alg: Alg, kid: string): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicKey, publicJwk };
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

function claims(overrides: Record<string, unknown> = {}): JWTPayload {
  const iat = NOW_S - 10;
  const exp = iat + 300;
  const base: Record<string, unknown> = {
    intentId: '0190f5c2-1111-7000-8000-000000000001',
    tenantId: TENANT,
    adapterId: ADAPTER,
    adapterTarget: TARGET,
    targetSystem: TARGET,
    proposedAction: 'merge pull request #42',
    decision: 'APPROVED',
    issuedAt: iso(iat),
    expiresAt: iso(exp),
    nonce: randomBytes(16).toString('base64url'),
    iss: 'service-authority',
    aud: ADAPTER,
    iat,
    exp,
    ...overrides,
  };
  for (const [name, value] of Object.entries(base)) if (value === undefined) delete base[name];
  return base as JWTPayload;
}

async function mint(
  key: TestKey,
  overrides: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const token = await new SignJWT(claims(overrides))
    .setProtectedHeader({ alg: key.alg, typ: 'JWT', kid: key.kid, ...header })
    .sign(key.privateKey);
  return asMinted(token, key.alg);
}

/** Signs arbitrary payload bytes (not necessarily a JSON claim set). */
async function signRaw(key: TestKey, payload: string): Promise<string> {
  const token = await new CompactSign(new TextEncoder().encode(payload))
    .setProtectedHeader({ alg: key.alg, typ: 'JWT', kid: key.kid })
    .sign(key.privateKey);
  return asMinted(token, key.alg);
}

function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

function assertInvalid(result: AuthorityTokenVerification, reason: VerificationFailureReason): void {
  assert.equal(result.valid, false, `expected ${reason}, got valid: true`);
  if (!result.valid)
    assert.equal(result.reason, reason, `expected ${reason}, got ${result.reason} (${result.detail})`);
}

function assertValid(result: AuthorityTokenVerification): void {
  assert.equal(
    result.valid,
    true,
    result.valid ? '' : `expected valid, got ${result.reason} (${result.detail})`,
  );
}

interface TestServer {
  url: string;
  requests: number;
  close(): Promise<void>;
}

async function startServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    state.requests += 1;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const result: TestServer = {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return result;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

let ed: TestKey;
let rs: TestKey;
let es: TestKey;
let retired: TestKey;
let otherTenant: TestKey;
let keys: Record<Alg, TestKey>;
let jwks: KeySource;

function options(overrides: Partial<VerifyAuthorityTokenOptions> = {}): VerifyAuthorityTokenOptions {
  return { jwks, expected: EXPECTED, clock: () => NOW_MS, ...overrides };
}

before(async () => {
  ed = await makeKey('EdDSA', 'acme-1700000000-ABCDEFGH');
  rs = await makeKey('RS256', 'acme-1700000001-RSAKEY22');
  es = await makeKey('ES256', 'acme-1700000002-ECKEY234');
  retired = await makeKey('EdDSA', 'acme-1690000000-RETIRED2');
  otherTenant = await makeKey('EdDSA', 'globex-1700000000-ABCDEFGH');
  keys = { EdDSA: ed, RS256: rs, ES256: es };
  // The tenant's published set: ACTIVE and PREVIOUS keys only, plus (to prove the prefix check
  // does not rely on absence) another tenant's key.
  jwks = staticJwks({ keys: [ed.publicJwk, rs.publicJwk, es.publicJwk, otherTenant.publicJwk] });
});

describe('verifyAuthorityToken: valid tokens', () => {
  for (const alg of ['EdDSA', 'RS256', 'ES256'] as const) {
    it(`accepts a valid ${alg} token and returns its claims`, async () => {
      const token = await mint(keys[alg]);
      const result = await verifyAuthorityToken(token, options());
      assertValid(result);
      assert.ok(result.valid);
      assert.equal(result.claims.tenantId, TENANT);
      assert.equal(result.claims.adapterId, ADAPTER);
      assert.equal(result.claims.targetSystem, TARGET);
      assert.equal(result.claims.decision, 'APPROVED');
      assert.equal(result.claims.iss, 'service-authority');
      assert.equal(result.claims.exp - result.claims.iat, 300);
      assert.equal(result.nonceConsumed, false);
    });
  }

  it('accepts a token signed under the pinned kid', async () => {
    const result = await verifyAuthorityToken(await mint(rs), options({ pinnedKid: rs.kid }));
    assertValid(result);
  });

  it('reports nonceConsumed when a store is given', async () => {
    const result = await verifyAuthorityToken(
      await mint(ed),
      options({ nonceStore: new InMemoryNonceStore() }),
    );
    assert.ok(result.valid);
    assert.equal(result.nonceConsumed, true);
  });

  it('accepts a TTL of exactly 300 s', async () => {
    const result = await verifyAuthorityToken(await mint(ed, { iat: NOW_S, exp: NOW_S + 300 }), options());
    assertValid(result);
  });
});

describe('verifyAuthorityToken: TOKEN_MALFORMED', () => {
  const garbage = [
    '',
    'garbage',
    'a.b',
    'a.b.c.d',
    '..',
    '...',
    'not base64!.eyJ9.sig',
    `${b64url('not json')}.${b64url({})}.sig`,
    `${b64url([1, 2])}.${b64url({})}.sig`,
    `${b64url({ alg: 'EdDSA', typ: 'JWT' })}.${b64url({})}.c2ln`,
    `${b64url({ alg: 'EdDSA', kid: '' })}.${b64url({})}.c2ln`,
    `${b64url({ alg: 'EdDSA', kid: 42 })}.${b64url({})}.c2ln`,
    `${b64url({ kid: 'acme-1700000000-ABCDEFGH' })}.${b64url({})}.c2ln`,
    `${b64url({ alg: 'EdDSA', kid: 'acme-1700000000-ABCDEFGH' })}=.${b64url({})}.c2ln`,
    `${b64url({ alg: 'EdDSA', kid: 'acme-1700000000-ABCDEFGH' })}..c2ln`,
    `${Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')}.${b64url({})}.c2ln`,
    `x`.repeat(65_537),
  ];
  for (const [index, token] of garbage.entries()) {
    it(`rejects garbage #${index} (${JSON.stringify(token.slice(0, 40))})`, async () => {
      assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_MALFORMED');
    });
  }

  it('rejects non-string tokens without throwing', async () => {
    for (const token of [undefined, null, 42, {}, ['a.b.c']]) {
      assertInvalid(await verifyAuthorityToken(token as unknown as string, options()), 'TOKEN_MALFORMED');
    }
  });

  it('rejects an over-long but otherwise valid-looking token', async () => {
    const token = await mint(ed, { proposedAction: 'x'.repeat(60_000) });
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_MALFORMED');
  });

  it('rejects a non-canonical base64url signature (unused trailing bits set)', async () => {
    const token = await mint(ed); // 64-byte signature: 86 chars, the last one carries 4 unused bits
    const last = token.at(-1) ?? '';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const index = alphabet.indexOf(last);
    const sibling = alphabet[index ^ 1] ?? 'A'; // same top bits, different unused low bit
    const mutated = token.slice(0, -1) + sibling;
    assert.deepEqual(
      Buffer.from(mutated.split('.')[2] ?? '', 'base64url'),
      Buffer.from(token.split('.')[2] ?? '', 'base64url'),
      'the mutated signature decodes to the same bytes',
    );
    assertInvalid(await verifyAuthorityToken(mutated, options()), 'TOKEN_MALFORMED');
  });

  it('rejects a correctly signed payload that is not JSON', async () => {
    assertInvalid(await verifyAuthorityToken(await signRaw(ed, 'not json'), options()), 'TOKEN_MALFORMED');
    assertInvalid(await verifyAuthorityToken(await signRaw(ed, '[1,2,3]'), options()), 'TOKEN_MALFORMED');
  });

  it('rejects a correctly signed token with a missing or ill-typed claim', async () => {
    for (const overrides of [
      { nonce: undefined },
      { nonce: '' },
      { intentId: 7 },
      { adapterTarget: undefined },
      { iat: '1700000090' },
      { exp: null },
      { decision: undefined },
    ]) {
      const result = await verifyAuthorityToken(await mint(ed, overrides), options());
      assertInvalid(result, 'TOKEN_MALFORMED');
    }
  });
});

describe('verifyAuthorityToken: KID_MISMATCH', () => {
  it("rejects another tenant's kid even when its key is in the set", async () => {
    const token = await mint(otherTenant, { tenantId: 'globex' });
    assertInvalid(await verifyAuthorityToken(token, options()), 'KID_MISMATCH');
  });

  it('rejects a token whose kid claims our tenant but is unknown (a RETIRED key)', async () => {
    assertInvalid(await verifyAuthorityToken(await mint(retired), options()), 'KID_MISMATCH');
  });

  it('rejects a kid not of the contract form', async () => {
    for (const kid of [
      'acme',
      'acme-1700000000',
      'acme-1700000000-abcdefgh',
      'acme-x-ABCDEFGH',
      'acme-1700000000-ABCDEFG1',
    ]) {
      const token = await mint(ed, {}, { kid });
      assertInvalid(await verifyAuthorityToken(token, options()), 'KID_MISMATCH');
    }
  });

  it('rejects a kid that is not the pinned one', async () => {
    assertInvalid(await verifyAuthorityToken(await mint(ed), options({ pinnedKid: rs.kid })), 'KID_MISMATCH');
  });

  it('checks the kid before the signature (a forged token under an unknown kid)', async () => {
    const forged = `${b64url({ alg: 'none', kid: 'acme-1700000000-ZZZZZZZZ' })}.${b64url(claims())}.`;
    assertInvalid(await verifyAuthorityToken(forged, options()), 'KID_MISMATCH');
  });

  it('rejects a key source answering with a key of another kid', async () => {
    const lying: KeySource = { getKey: async () => rs.publicJwk };
    assertInvalid(await verifyAuthorityToken(await mint(ed), options({ jwks: lying })), 'KID_MISMATCH');
  });

  it('reports KEY_SOURCE_UNAVAILABLE when the key source throws', async () => {
    const broken: KeySource = {
      getKey: async () => {
        throw new KeySourceError('down');
      },
    };
    assertInvalid(
      await verifyAuthorityToken(await mint(ed), options({ jwks: broken })),
      'KEY_SOURCE_UNAVAILABLE',
    );
  });
});

describe('verifyAuthorityToken: SIGNATURE_VERIFICATION_FAILED', () => {
  it('rejects alg: none (hand-built unsigned token)', async () => {
    for (const alg of ['none', 'None', 'NONE']) {
      const token = `${b64url({ alg, typ: 'JWT', kid: ed.kid })}.${b64url(claims())}.`;
      assertInvalid(await verifyAuthorityToken(token, options()), 'SIGNATURE_VERIFICATION_FAILED');
    }
  });

  it('rejects HS256 keyed with the public key bytes (JWK text and PEM)', async () => {
    for (const key of [ed, rs, es]) {
      const secrets = [JSON.stringify(key.publicJwk), await exportSPKI(key.publicKey)];
      for (const secret of secrets) {
        const token = await new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid })
          .sign(new TextEncoder().encode(secret));
        assertInvalid(await verifyAuthorityToken(token, options()), 'SIGNATURE_VERIFICATION_FAILED');
      }
    }
  });

  it('accepts an ES256 signature only in low-S form: the high-S twin of a valid token fails', async () => {
    for (let i = 0; i < 8; i += 1) {
      const token = await mint(es);
      assertValid(await verifyAuthorityToken(token, options()));
      const twin = withS(token, 'high');
      assert.notEqual(twin, token);
      const result = await verifyAuthorityToken(twin, options());
      assertInvalid(result, 'SIGNATURE_VERIFICATION_FAILED');
      assert.ok(!result.valid && /low-S/.test(result.detail), result.valid ? '' : result.detail);
    }
  });

  it("rejects an RS256 key's kid with a token whose header names another algorithm", async () => {
    const pkcs8 = await exportPKCS8(rs.privateKey);
    for (const alg of ['PS256', 'RS384', 'RS512']) {
      // Signed with the very same RSA private key, under the other algorithm.
      const token = await new SignJWT(claims())
        .setProtectedHeader({ alg, typ: 'JWT', kid: rs.kid })
        .sign(await importPKCS8(pkcs8, alg));
      assertInvalid(await verifyAuthorityToken(token, options()), 'SIGNATURE_VERIFICATION_FAILED');
    }
  });

  it("rejects a header alg that is not the key's (EdDSA token under the ES256 kid)", async () => {
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: es.kid })
      .sign(ed.privateKey);
    assertInvalid(await verifyAuthorityToken(token, options()), 'SIGNATURE_VERIFICATION_FAILED');
  });

  it('rejects a token signed by another key under a known kid', async () => {
    const impostor = await makeKey('EdDSA', ed.kid);
    assertInvalid(
      await verifyAuthorityToken(await mint(impostor), options()),
      'SIGNATURE_VERIFICATION_FAILED',
    );
  });

  it('rejects a tampered payload', async () => {
    const token = await mint(ed);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    decoded.targetSystem = 'acme/production';
    const tampered = `${header}.${b64url(decoded)}.${signature}`;
    assertInvalid(await verifyAuthorityToken(tampered, options()), 'SIGNATURE_VERIFICATION_FAILED');
    // One byte of the encoded payload.
    const middle = Math.floor(payload.length / 2);
    const flipped = payload[middle] === 'A' ? 'B' : 'A';
    const oneByte = `${header}.${payload.slice(0, middle)}${flipped}${payload.slice(middle + 1)}.${signature}`;
    assertInvalid(await verifyAuthorityToken(oneByte, options()), 'SIGNATURE_VERIFICATION_FAILED');
  });

  it('rejects a wrong, missing or non-string iss', async () => {
    for (const iss of ['service-authority-evil', 'Service-Authority', undefined, ['service-authority']]) {
      assertInvalid(
        await verifyAuthorityToken(await mint(ed, { iss }), options()),
        'SIGNATURE_VERIFICATION_FAILED',
      );
    }
  });

  it("rejects an aud that is not the token's own adapterId", async () => {
    for (const aud of ['service-edge-verifier', 'other-adapter', undefined, [ADAPTER]]) {
      assertInvalid(
        await verifyAuthorityToken(await mint(ed, { aud }), options()),
        'SIGNATURE_VERIFICATION_FAILED',
      );
    }
  });

  it('rejects keys that are unusable for the verifier (no alg, symmetric)', async () => {
    const noAlg: KeySource = { getKey: async () => ({ ...ed.publicJwk, alg: undefined }) };
    assertInvalid(
      await verifyAuthorityToken(await mint(ed), options({ jwks: noAlg })),
      'SIGNATURE_VERIFICATION_FAILED',
    );
    const oct: KeySource = { getKey: async (kid) => ({ kty: 'oct', k: 'c2VjcmV0', alg: 'HS256', kid }) };
    const hs = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: ed.kid })
      .sign(new TextEncoder().encode('secret'));
    assertInvalid(await verifyAuthorityToken(hs, options({ jwks: oct })), 'SIGNATURE_VERIFICATION_FAILED');
  });

  it('rejects a header with crit, even one naming b64 (no extension is understood)', async () => {
    const token = await mint(ed, {}, { crit: ['b64'], b64: true });
    const result = await verifyAuthorityToken(token, options());
    assertInvalid(result, 'SIGNATURE_VERIFICATION_FAILED');
    assert.ok(!result.valid && /crit/.test(result.detail), result.valid ? '' : result.detail);
  });

  it('rejects an RSA key under 2048 bits, whose signature is otherwise valid', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = { ...weak.publicKey.export({ format: 'jwk' }), kid: rs.kid, alg: 'RS256' } as JWK;
    const input = `${b64url({ alg: 'RS256', typ: 'JWT', kid: rs.kid })}.${b64url(claims())}`;
    const token = `${input}.${sign('sha256', Buffer.from(input), weak.privateKey).toString('base64url')}`;
    const result = await verifyAuthorityToken(token, options({ jwks: staticJwks({ keys: [jwk] }) }));
    assertInvalid(result, 'SIGNATURE_VERIFICATION_FAILED');
    assert.ok(!result.valid && /2048/.test(result.detail), result.valid ? '' : result.detail);
  });

  it('rejects an ES256 signature that is not 64 bytes (DER instead of r || s)', async () => {
    const token = await mint(es);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const raw = Buffer.from(signature, 'base64url');
    const der = Buffer.concat([
      Buffer.from([0x30, 0x44, 0x02, 0x20]),
      raw.subarray(0, 32),
      Buffer.from([0x02, 0x20]),
      raw.subarray(32),
    ]);
    assertInvalid(
      await verifyAuthorityToken(`${header}.${payload}.${der.toString('base64url')}`, options()),
      'SIGNATURE_VERIFICATION_FAILED',
    );
  });
});

describe('verifyAuthorityToken: lifetime', () => {
  it('rejects exp - iat of 301 s', async () => {
    const token = await mint(ed, { iat: NOW_S, exp: NOW_S + 301 });
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_TTL_EXCEEDS_LIMIT');
  });

  it('rejects a token issued beyond the skew in the future as TOKEN_NOT_YET_VALID', async () => {
    const token = await mint(ed, { iat: NOW_S + 60, exp: NOW_S + 360 });
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_NOT_YET_VALID');
    const withinSkew = await mint(ed, { iat: NOW_S + 5, exp: NOW_S + 305 });
    assertValid(await verifyAuthorityToken(withinSkew, options()));
    const justBeyond = await mint(ed, { iat: NOW_S + 6, exp: NOW_S + 306 });
    assertInvalid(await verifyAuthorityToken(justBeyond, options()), 'TOKEN_NOT_YET_VALID');
  });

  it('honours nbf when present: not valid before nbf - skew; a non-numeric nbf is malformed', async () => {
    const later = await mint(ed, { nbf: NOW_S + 30 });
    assertInvalid(await verifyAuthorityToken(later, options()), 'TOKEN_NOT_YET_VALID');
    assertValid(await verifyAuthorityToken(later, options({ clock: () => (NOW_S + 25) * 1000 })));
    assertValid(await verifyAuthorityToken(await mint(ed, { nbf: NOW_S + 5 }), options()));
    assertValid(await verifyAuthorityToken(await mint(ed, { nbf: NOW_S - 10 }), options()));
    for (const nbf of ['soon', null, Number.NaN, [1]]) {
      const token = await signRaw(ed, JSON.stringify(claims({ nbf })));
      assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_MALFORMED');
    }
  });

  it('orders TTL, expiry, not-yet-valid, then the decision (contract §5)', async () => {
    const all = { decision: 'DENIED', nbf: NOW_S + 100 };
    assertInvalid(
      await verifyAuthorityToken(await mint(ed, { ...all, iat: NOW_S - 10, exp: NOW_S + 291 }), options()),
      'TOKEN_TTL_EXCEEDS_LIMIT',
    );
    assertInvalid(
      await verifyAuthorityToken(await mint(ed, { ...all, iat: NOW_S - 400, exp: NOW_S - 100 }), options()),
      'TOKEN_EXPIRED',
    );
    assertInvalid(await verifyAuthorityToken(await mint(ed, all), options()), 'TOKEN_NOT_YET_VALID');
    assertInvalid(
      await verifyAuthorityToken(await mint(ed, { decision: 'DENIED' }), options()),
      'TOKEN_DECISION_INVALID',
    );
  });

  it('reports the TTL before the expiry', async () => {
    const token = await mint(ed, { iat: NOW_S - 1000, exp: NOW_S - 1000 + 301 });
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_TTL_EXCEEDS_LIMIT');
  });

  it('rejects a token past exp + 5 s and accepts one just inside the skew', async () => {
    const token = await mint(ed);
    const { exp } = decodeJwt(token) as { exp: number };
    assertInvalid(
      await verifyAuthorityToken(token, options({ clock: () => (exp + 5) * 1000 + 1 })),
      'TOKEN_EXPIRED',
    );
    assertInvalid(
      await verifyAuthorityToken(token, options({ clock: () => (exp + 5) * 1000 })),
      'TOKEN_EXPIRED',
    );
    assertValid(await verifyAuthorityToken(token, options({ clock: () => (exp + 5) * 1000 - 1 })));
    assertValid(await verifyAuthorityToken(token, options({ clock: () => (exp + 2) * 1000 })));
  });

  it('honours a custom skew', async () => {
    const token = await mint(ed);
    const { exp } = decodeJwt(token) as { exp: number };
    const late = () => (exp + 2) * 1000;
    assertInvalid(
      await verifyAuthorityToken(token, options({ clock: late, clockSkewSeconds: 0 })),
      'TOKEN_EXPIRED',
    );
    assertValid(await verifyAuthorityToken(token, options({ clock: late, clockSkewSeconds: 3 })));
  });
});

describe('verifyAuthorityToken: decision and binding', () => {
  it('rejects decision DENIED (and other non-APPROVED values)', async () => {
    for (const decision of ['DENIED', 'ESCALATED', 'approved', 'ALLOW']) {
      assertInvalid(
        await verifyAuthorityToken(await mint(ed, { decision }), options()),
        'TOKEN_DECISION_INVALID',
      );
    }
  });

  it('rejects a tenant mismatch', async () => {
    const token = await mint(ed, { tenantId: 'globex' });
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_TENANT_MISMATCH');
  });

  it('rejects a token minted for another adapter', async () => {
    const token = await mint(ed, { adapterId: 'jira-main', aud: 'jira-main' });
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_ADAPTER_MISMATCH');
  });

  it('rejects a token minted for another target', async () => {
    const token = await mint(ed, { targetSystem: 'acme/other', adapterTarget: 'acme/other' });
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_TARGET_MISMATCH');
  });

  it('reports the first failure in the contract order', async () => {
    const many = { decision: 'DENIED', tenantId: 'globex', adapterId: 'x', aud: 'x', targetSystem: 'y' };
    const token = await mint(ed, many);
    assertInvalid(await verifyAuthorityToken(token, options()), 'TOKEN_DECISION_INVALID');
    const expired = await mint(ed, { ...many, iat: NOW_S - 1000, exp: NOW_S - 700 });
    assertInvalid(await verifyAuthorityToken(expired, options()), 'TOKEN_EXPIRED');
    const binding = await mint(ed, { adapterId: 'x', aud: 'x', targetSystem: 'y' });
    assertInvalid(await verifyAuthorityToken(binding, options()), 'TOKEN_ADAPTER_MISMATCH');
    const wrongAudToo = await mint(ed, { ...many, aud: 'nope' });
    assertInvalid(await verifyAuthorityToken(wrongAudToo, options()), 'SIGNATURE_VERIFICATION_FAILED');
  });
});

describe('verifyAuthorityToken: nonces', () => {
  it('rejects a replay with InMemoryNonceStore', async () => {
    const nonceStore = new InMemoryNonceStore({ clock: () => NOW_MS });
    const token = await mint(ed);
    assertValid(await verifyAuthorityToken(token, options({ nonceStore })));
    assertInvalid(await verifyAuthorityToken(token, options({ nonceStore })), 'NONCE_ALREADY_CONSUMED');
  });

  it('lets exactly one of many concurrent verifications of one token win', async () => {
    const nonceStore = new InMemoryNonceStore({ clock: () => NOW_MS });
    const token = await mint(es);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => verifyAuthorityToken(token, options({ nonceStore }))),
    );
    assert.equal(results.filter((r) => r.valid).length, 1);
  });

  it('does not consume the nonce when another check fails', async () => {
    const nonceStore = new InMemoryNonceStore({ clock: () => NOW_MS });
    const token = await mint(ed);
    const wrongTarget = { ...EXPECTED, targetSystem: 'acme/other' };
    assertInvalid(
      await verifyAuthorityToken(token, options({ nonceStore, expected: wrongTarget })),
      'TOKEN_TARGET_MISMATCH',
    );
    const { exp } = decodeJwt(token) as { exp: number };
    assertInvalid(
      await verifyAuthorityToken(token, options({ nonceStore, clock: () => (exp + 10) * 1000 })),
      'TOKEN_EXPIRED',
    );
    assert.equal(nonceStore.size, 0);
    assertValid(await verifyAuthorityToken(token, options({ nonceStore })));
    assert.equal(nonceStore.size, 1);
  });

  it('passes the token, adapter, target and exp + skew to the store', async () => {
    const calls: unknown[][] = [];
    const nonceStore: NonceStore = {
      consume: async (...args) => {
        calls.push(args);
        return true;
      },
    };
    const token = await mint(ed);
    const { nonce, exp } = decodeJwt(token) as { nonce: string; exp: number };
    assertValid(await verifyAuthorityToken(token, options({ nonceStore })));
    assert.deepEqual(calls, [[nonce, (exp + 5) * 1000, { token, adapterId: ADAPTER, targetSystem: TARGET }]]);
  });

  it('fails closed when a store throws or answers anything but true', async () => {
    const token = await mint(ed);
    const throwing: NonceStore = {
      consume: async () => {
        throw new Error('boom');
      },
    };
    assertInvalid(
      await verifyAuthorityToken(token, options({ nonceStore: throwing })),
      'NONCE_STORE_UNAVAILABLE',
    );
    const truthy = { consume: async () => 'yes' } as unknown as NonceStore;
    assertInvalid(
      await verifyAuthorityToken(token, options({ nonceStore: truthy })),
      'NONCE_ALREADY_CONSUMED',
    );
  });

  it('forgets nonces after their expiry and stays bounded', async () => {
    let now = NOW_MS;
    const store = new InMemoryNonceStore({ clock: () => now, maxEntries: 3 });
    const context = { token: 't', adapterId: ADAPTER, targetSystem: TARGET };
    assert.equal(await store.consume('a', NOW_MS + 1_000, context), true);
    assert.equal(await store.consume('b', NOW_MS + 60_000, context), true);
    assert.equal(await store.consume('c', NOW_MS + 60_000, context), true);
    assert.equal(await store.consume('a', NOW_MS + 1_000, context), false);
    // Full of live nonces: refuse rather than evict one (eviction would allow a replay).
    await assert.rejects(store.consume('d', NOW_MS + 60_000, context), NonceStoreError);
    now = NOW_MS + 2_000; // 'a' expired: a full store sweeps and makes room
    assert.equal(await store.consume('d', NOW_MS + 60_000, context), true);
    assert.equal(store.size, 3);
    now = NOW_MS + 120_000;
    assert.equal(await store.consume('e', NOW_MS + 180_000, context), true);
    assert.equal(store.size, 1);
  });

  it('maps a full in-memory store to NONCE_STORE_UNAVAILABLE', async () => {
    const nonceStore = new InMemoryNonceStore({ clock: () => NOW_MS, maxEntries: 1 });
    assertValid(await verifyAuthorityToken(await mint(ed), options({ nonceStore })));
    assertInvalid(
      await verifyAuthorityToken(await mint(ed), options({ nonceStore })),
      'NONCE_STORE_UNAVAILABLE',
    );
  });
});

describe('verifyAuthorityToken: programmer misuse throws', () => {
  it('throws TypeError for missing or ill-typed options', async () => {
    const token = await mint(ed);
    const bad: unknown[] = [
      undefined,
      {},
      { jwks },
      { jwks, expected: { tenantId: TENANT, adapterId: ADAPTER } },
      { jwks, expected: { ...EXPECTED, tenantId: '' } },
      { jwks: {}, expected: EXPECTED },
      { jwks, expected: EXPECTED, clockSkewSeconds: -1 },
      { jwks, expected: EXPECTED, clockSkewSeconds: Number.NaN },
      { jwks, expected: EXPECTED, pinnedKid: '' },
      { jwks, expected: EXPECTED, nonceStore: {} },
    ];
    for (const opts of bad) {
      await assert.rejects(verifyAuthorityToken(token, opts as VerifyAuthorityTokenOptions), TypeError);
    }
  });

  it('staticJwks rejects keys without kid or alg, duplicates and non-signature keys', () => {
    const { kid: _kid, ...noKid } = ed.publicJwk;
    assert.throws(() => staticJwks({ keys: [noKid] }), TypeError);
    assert.throws(() => staticJwks({ keys: [{ ...ed.publicJwk, alg: undefined }] }), TypeError);
    assert.throws(() => staticJwks({ keys: [{ ...ed.publicJwk, alg: 'RS256' }] }), TypeError);
    assert.throws(() => staticJwks({ keys: [ed.publicJwk, ed.publicJwk] }), TypeError);
    assert.throws(() => staticJwks({ keys: [{ ...ed.publicJwk, use: 'enc' }] }), TypeError);
    assert.throws(
      () => staticJwks({ keys: [{ kty: 'oct', k: 'c2VjcmV0', alg: 'HS256', kid: ed.kid }] }),
      TypeError,
    );
  });
});

describe('parseKid and reasons', () => {
  it('splits kids whose tenant contains dashes', () => {
    assert.deepEqual(parseKid('acme-corp-1700000000-ABCDEFGH'), {
      tenantId: 'acme-corp',
      createdAtSeconds: 1_700_000_000,
      random: 'ABCDEFGH',
    });
    assert.equal(parseKid('acme-1700000000-ABCDEFG'), undefined);
  });

  it('lists the contract reasons in order', () => {
    assert.deepEqual(TOKEN_VERIFICATION_REASONS, [
      'TOKEN_MALFORMED',
      'KID_MISMATCH',
      'SIGNATURE_VERIFICATION_FAILED',
      'TOKEN_TTL_EXCEEDS_LIMIT',
      'TOKEN_EXPIRED',
      'TOKEN_NOT_YET_VALID',
      'TOKEN_DECISION_INVALID',
      'TOKEN_TENANT_MISMATCH',
      'TOKEN_ADAPTER_MISMATCH',
      'TOKEN_TARGET_MISMATCH',
      'NONCE_ALREADY_CONSUMED',
    ]);
    assert.equal(isVerificationFailureReason('TENANT_KILL_SWITCH'), true);
    assert.equal(isVerificationFailureReason('OK'), false);
  });
});

describe('remoteJwks against a local HTTP server', () => {
  let published: { keys: JWK[] } = { keys: [] };
  let mode: 'ok' | 'error' = 'ok';
  let server: TestServer;
  let jwksUrl: string;

  before(async () => {
    server = await startServer((req, res) => {
      if (req.url !== '/.well-known/authority/acme/jwks.json')
        return sendJson(res, 404, { error: 'NOT_FOUND' });
      if (mode === 'error') return sendJson(res, 500, { error: { code: 'INTERNAL_ERROR' } });
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' });
      res.end(JSON.stringify(published));
    });
    jwksUrl = `${server.url}/.well-known/authority/acme/jwks.json`;
  });
  after(() => server.close());

  it('fetches once, re-fetches on an unknown kid at most once per 30 s, and survives an outage', async () => {
    published = { keys: [ed.publicJwk] };
    mode = 'ok';
    let now = 1_000_000;
    const source = remoteJwks(jwksUrl, { clock: () => now });
    const start = server.requests;
    const verify = (token: string) => verifyAuthorityToken(token, options({ jwks: source }));

    assertValid(await verify(await mint(ed)));
    assertValid(await verify(await mint(ed)));
    assert.equal(server.requests - start, 1, 'the set is cached');

    // Rotation just after the first load: the unknown kid is re-fetched at once (the first load
    // starts no cooldown), then the set has it.
    published = { keys: [rs.publicJwk, ed.publicJwk] };
    now += 1_000;
    assertValid(await verify(await mint(rs)));
    assert.equal(server.requests - start, 2);

    // A flood of made-up kids right after does not reach the server.
    for (const suffix of ['AAAAAAAA', 'BBBBBBBB', 'CCCCCCCC']) {
      const token = await mint(ed, {}, { kid: `acme-1700000000-${suffix}` });
      assertInvalid(await verify(token), 'KID_MISMATCH');
    }
    assert.equal(server.requests - start, 2);

    // Outage: the re-fetch fails, the cached set keeps working.
    mode = 'error';
    now += 30_000;
    assertInvalid(await verify(await mint(es)), 'KID_MISMATCH');
    assert.equal(server.requests - start, 3);
    assertValid(await verify(await mint(ed)));
    assertValid(await verify(await mint(rs)));
    assert.equal(server.requests - start, 3);

    // Back up: the next allowed re-fetch picks up the new key.
    mode = 'ok';
    published = { keys: [rs.publicJwk, ed.publicJwk, es.publicJwk] };
    now += 30_000;
    assertValid(await verify(await mint(es)));
    assert.equal(server.requests - start, 4);
  });

  it('drops a key that left the set once the cache is older than max-age', async () => {
    published = { keys: [ed.publicJwk, rs.publicJwk] };
    mode = 'ok';
    let now = 5_000_000;
    const source = remoteJwks(jwksUrl, { clock: () => now });
    assertValid(await verifyAuthorityToken(await mint(ed), options({ jwks: source })));
    published = { keys: [rs.publicJwk] }; // ed became RETIRED
    now += 60_000;
    assertValid(await verifyAuthorityToken(await mint(ed), options({ jwks: source })));
    now += 300_000;
    assertInvalid(await verifyAuthorityToken(await mint(ed), options({ jwks: source })), 'KID_MISMATCH');
  });

  it('shares one fetch between concurrent lookups', async () => {
    published = { keys: [ed.publicJwk] };
    mode = 'ok';
    const source = remoteJwks(jwksUrl, { clock: () => 0 });
    const start = server.requests;
    const found = await Promise.all(Array.from({ length: 10 }, () => source.getKey(ed.kid)));
    assert.ok(found.every((key) => key?.kid === ed.kid));
    assert.equal(server.requests - start, 1);
  });

  it('ignores unusable and duplicated keys in the published set', async () => {
    published = {
      keys: [
        { ...ed.publicJwk, alg: undefined },
        { ...rs.publicJwk, use: 'enc' },
        es.publicJwk,
        { ...es.publicJwk },
        { kty: 'oct', k: 'c2VjcmV0', alg: 'HS256', kid: 'acme-1700000000-OCTKEY22' },
      ],
    };
    mode = 'ok';
    const source = remoteJwks(jwksUrl, { clock: () => 0 });
    assert.equal(await source.getKey(ed.kid), undefined);
    assert.equal(await source.getKey(rs.kid), undefined);
    assert.equal(await source.getKey(es.kid), undefined);
    assert.equal(await source.getKey('acme-1700000000-OCTKEY22'), undefined);
  });

  it('reports KEY_SOURCE_UNAVAILABLE on a cold start during an outage, rate limited', async () => {
    mode = 'error';
    let now = 0;
    const source = remoteJwks(jwksUrl, { clock: () => now });
    const start = server.requests;
    const token = await mint(ed);
    assertInvalid(await verifyAuthorityToken(token, options({ jwks: source })), 'KEY_SOURCE_UNAVAILABLE');
    assertInvalid(await verifyAuthorityToken(token, options({ jwks: source })), 'KEY_SOURCE_UNAVAILABLE');
    assert.equal(server.requests - start, 1);
    await assert.rejects(source.getKey(ed.kid), KeySourceError);
    mode = 'ok';
    published = { keys: [ed.publicJwk] };
    now += 30_000;
    assertValid(await verifyAuthorityToken(token, options({ jwks: source })));
  });

  it('reports KEY_SOURCE_UNAVAILABLE when nothing listens', async () => {
    const dead = await startServer(() => undefined);
    const url = `${dead.url}/jwks.json`;
    await dead.close();
    const source = remoteJwks(url, { timeoutMs: 1_000 });
    assertInvalid(
      await verifyAuthorityToken(await mint(ed), options({ jwks: source })),
      'KEY_SOURCE_UNAVAILABLE',
    );
  });
});

describe('RemoteNonceStore against a local consume endpoint', () => {
  type Mode =
    | 'contract'
    | 'error500'
    | 'garbage'
    | 'html'
    | 'kill-switch'
    | 'server-expired'
    | 'unknown-reason'
    | 'hang';
  let mode: Mode = 'contract';
  const consumed = new Set<string>();
  const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: unknown }[] = [];
  let server: TestServer;

  before(async () => {
    server = await startServer((req, res, raw) => {
      const body: unknown = raw === '' ? undefined : JSON.parse(raw);
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.method !== 'POST' || !req.url?.endsWith('/authority/tokens/consume')) {
        return sendJson(res, 404, { error: { code: 'NOT_FOUND' } });
      }
      if (req.headers.authorization !== 'Bearer service_live_test' || req.headers['x-tenant-id'] !== TENANT) {
        return sendJson(res, 401, { error: { code: 'UNAUTHORIZED' } });
      }
      switch (mode) {
        case 'error500':
          return sendJson(res, 500, { error: { code: 'INTERNAL_ERROR' } });
        case 'garbage':
          return sendJson(res, 200, { ok: true });
        case 'html':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<html>proxy error</html>');
        case 'kill-switch':
          return sendJson(res, 200, { valid: false, reason: 'TENANT_KILL_SWITCH' });
        case 'server-expired':
          return sendJson(res, 200, { valid: false, reason: 'TOKEN_EXPIRED' });
        case 'unknown-reason':
          return sendJson(res, 200, { valid: false, reason: 'SOMETHING_NEW' });
        case 'hang':
          return; // never answers
        case 'contract': {
          const { token } = body as { token: string };
          const tokenClaims = decodeJwt(token);
          const nonce = String(tokenClaims.nonce);
          if (consumed.has(nonce))
            return sendJson(res, 200, { valid: false, reason: 'NONCE_ALREADY_CONSUMED' });
          consumed.add(nonce);
          return sendJson(res, 200, { valid: true, claims: tokenClaims });
        }
      }
    });
  });
  after(() => server.close());

  function store(overrides: Partial<ConstructorParameters<typeof RemoteNonceStore>[0]> = {}) {
    return new RemoteNonceStore({
      baseUrl: server.url,
      apiKey: 'service_live_test',
      tenantId: TENANT,
      ...overrides,
    });
  }

  it('consumes once, then reports NONCE_ALREADY_CONSUMED', async () => {
    mode = 'contract';
    const nonceStore = store();
    const token = await mint(ed);
    const first = await verifyAuthorityToken(token, options({ nonceStore }));
    assert.ok(first.valid);
    assert.equal(first.nonceConsumed, true);
    assertInvalid(await verifyAuthorityToken(token, options({ nonceStore })), 'NONCE_ALREADY_CONSUMED');
    const request = seen.at(-1);
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, '/authority/tokens/consume');
    assert.equal(request?.headers.authorization, 'Bearer service_live_test');
    assert.equal(request?.headers['x-tenant-id'], TENANT);
    assert.match(String(request?.headers['content-type']), /^application\/json/);
    assert.deepEqual(request?.body, { token, adapterId: ADAPTER, targetSystem: TARGET });
  });

  it('keeps a /v1 prefix of the base URL', async () => {
    mode = 'contract';
    const nonceStore = store({ baseUrl: `${server.url}/v1/` });
    assert.equal(nonceStore.endpoint, `${server.url}/v1/authority/tokens/consume`);
    assertValid(await verifyAuthorityToken(await mint(rs), options({ nonceStore })));
    assert.equal(seen.at(-1)?.url, '/v1/authority/tokens/consume');
  });

  it('does not call the store when a local check fails', async () => {
    mode = 'contract';
    const before = server.requests;
    const token = await mint(ed, { decision: 'DENIED' });
    assertInvalid(
      await verifyAuthorityToken(token, options({ nonceStore: store() })),
      'TOKEN_DECISION_INVALID',
    );
    assert.equal(server.requests, before);
  });

  for (const [failure, expected] of [
    ['error500', 'NONCE_STORE_UNAVAILABLE'],
    ['garbage', 'NONCE_STORE_UNAVAILABLE'],
    ['html', 'NONCE_STORE_UNAVAILABLE'],
    ['kill-switch', 'TENANT_KILL_SWITCH'],
    ['server-expired', 'TOKEN_EXPIRED'],
    ['unknown-reason', 'NONCE_STORE_UNAVAILABLE'],
  ] as const) {
    it(`fails closed on ${failure} (${expected})`, async () => {
      mode = failure;
      assertInvalid(await verifyAuthorityToken(await mint(ed), options({ nonceStore: store() })), expected);
    });
  }

  it('fails closed on a wrong credential (401)', async () => {
    mode = 'contract';
    const nonceStore = store({ apiKey: 'service_live_wrong' });
    assertInvalid(
      await verifyAuthorityToken(await mint(ed), options({ nonceStore })),
      'NONCE_STORE_UNAVAILABLE',
    );
  });

  it('fails closed on a timeout', async () => {
    mode = 'hang';
    const nonceStore = store({ timeoutMs: 200 });
    assertInvalid(
      await verifyAuthorityToken(await mint(ed), options({ nonceStore })),
      'NONCE_STORE_UNAVAILABLE',
    );
  });

  it('fails closed on a network error, and the store itself throws NonceStoreError', async () => {
    const dead = await startServer(() => undefined);
    const baseUrl = dead.url;
    await dead.close();
    const nonceStore = store({ baseUrl });
    const token = await mint(ed);
    assertInvalid(await verifyAuthorityToken(token, options({ nonceStore })), 'NONCE_STORE_UNAVAILABLE');
    await assert.rejects(
      nonceStore.consume('n', NOW_MS, { token, adapterId: ADAPTER, targetSystem: TARGET }),
      (error: unknown) => error instanceof NonceStoreError && error.kind === 'unavailable',
    );
  });

  it('rejects a confirmation for a different nonce', async () => {
    mode = 'contract';
    const token = await mint(ed);
    await assert.rejects(
      store().consume('another-nonce', NOW_MS, { token, adapterId: ADAPTER, targetSystem: TARGET }),
      NonceStoreError,
    );
  });
});

describe('property: a one-character mutation never verifies', () => {
  const alphabet = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ '];

  it('holds for EdDSA, RS256 and ES256 tokens', async () => {
    const tokens = {
      EdDSA: await mint(ed),
      RS256: await mint(rs),
      ES256: await mint(es),
    };
    for (const token of Object.values(tokens)) assertValid(await verifyAuthorityToken(token, options()));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('EdDSA', 'RS256', 'ES256'),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.constantFrom(...alphabet),
        async (alg: Alg, position, replacement) => {
          const token = tokens[alg];
          const index = Math.floor(position * token.length);
          fc.pre(token[index] !== replacement);
          const mutated = token.slice(0, index) + replacement + token.slice(index + 1);
          const result = await verifyAuthorityToken(mutated, options());
          return result.valid === false;
        },
      ),
      { numRuns: 500 },
    );
  });

  it('holds for every position, with a neighbouring and a same-high-bits replacement', async () => {
    const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const key of [ed, rs, es]) {
      const token = await mint(key);
      for (let index = 0; index < token.length; index += 1) {
        const original = token[index] ?? '';
        const at = b64.indexOf(original);
        const replacements = at === -1 ? ['A'] : [b64[(at + 1) % 64] ?? 'A', b64[at ^ 1] ?? 'A'];
        for (const replacement of replacements) {
          const mutated = token.slice(0, index) + replacement + token.slice(index + 1);
          const result = await verifyAuthorityToken(mutated, options());
          assert.equal(result.valid, false, `${key.alg}: mutation at ${index} verified`);
        }
      }
    }
  });
});
