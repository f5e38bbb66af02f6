// Authority Decision Token vectors: valid tokens and tokens that fail each check of contract §5, for
// each algorithm, with the reason the contract says a verifier must report (the first failing check).
import { createHash, createHmac } from 'node:crypto';
import { ALGS, type Alg, key, signatureTwins, signInput, type VectorKey } from './vector-keys.js';

/** The verifier's clock in every token vector, unix seconds. */
export const TOKEN_NOW = 1_700_000_100;
export const TENANT = 'acme';
export const ADAPTER = 'github-main';
export const TARGET = 'acme/api';

/** What the verifier reports: `reason` is `null` exactly when `valid`. */
export type Expectation = { valid: true; reason: null } | { valid: false; reason: string };

export interface TokenVector {
  name: string;
  description: string;
  /** The algorithm of the key the kid names, or `null` for structural garbage. */
  alg: Alg | null;
  token: string;
  /** Nonces the verifier's store holds already when this token is presented. */
  consumedNonces: string[];
  expected: Expectation;
}

const VALID: Expectation = { valid: true, reason: null };
const fails = (reason: string): Expectation => ({ valid: false, reason });

function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** A fixed nonce per vector, so that regenerating gives the same tokens. */
function nonceFor(name: string): string {
  return createHash('sha256').update(name).digest().subarray(0, 16).toString('base64url');
}

/** The claims the service mints (contract §5), issued 10 s before the vectors' now, TTL 300 s. */
export function tokenClaims(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = typeof overrides.iat === 'number' ? overrides.iat : TOKEN_NOW - 10;
  const exp = typeof overrides.exp === 'number' ? overrides.exp : iat + 300;
  const claims: Record<string, unknown> = {
    intentId: '0190f5c2-1111-7000-8000-000000000001',
    tenantId: TENANT,
    adapterId: ADAPTER,
    adapterTarget: TARGET,
    targetSystem: TARGET,
    proposedAction: 'merge pull request #42',
    decision: 'APPROVED',
    issuedAt: iso(iat),
    expiresAt: iso(exp),
    nonce: nonceFor(name),
    iss: 'service-authority',
    aud: ADAPTER,
    iat,
    exp,
    ...overrides,
  };
  for (const [member, value] of Object.entries(claims)) if (value === undefined) delete claims[member];
  return claims;
}

/** A compact JWS over `payload` (claims or raw text), header `{alg, typ: "JWT", kid}` plus `header`. */
export function compact(
  signer: VectorKey,
  payload: Record<string, unknown> | string,
  header: Record<string, unknown> = {},
): string {
  const protectedHeader = { alg: signer.alg, typ: 'JWT', kid: signer.kid, ...header };
  const input = `${b64url(protectedHeader)}.${b64url(payload)}`;
  const alg = String(protectedHeader.alg);
  return `${input}.${signInput(signer, alg, Buffer.from(input, 'ascii')).toString('base64url')}`;
}

/**
 * Two ES256 tokens over the same claims whose signatures are twins, (r, s) and (r, n - s): `high`
 * (s > n/2, a correct ECDSA signature that every verifier must refuse) and `low`, the one the
 * service mints.
 */
export function es256Twins(
  signer: VectorKey,
  claims: Record<string, unknown>,
): { high: string; low: string } {
  const input = `${b64url({ alg: 'ES256', typ: 'JWT', kid: signer.kid })}.${b64url(claims)}`;
  const { high, low } = signatureTwins(signer, Buffer.from(input, 'ascii'));
  return { high: `${input}.${high.toString('base64url')}`, low: `${input}.${low.toString('base64url')}` };
}

/** The token with one payload member changed after signing. */
function tamper(token: string, member: string, value: unknown): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  decoded[member] = value;
  return `${header}.${b64url(decoded)}.${signature}`;
}

/** Flips the unused low bits of the last base64url character: same bytes, non-canonical text. */
function nonCanonical(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = token.at(-1) ?? 'A';
  return token.slice(0, -1) + (alphabet[alphabet.indexOf(last) ^ 1] ?? 'A');
}

/** ES256 signature re-encoded as ASN.1 DER instead of the raw `r || s` JWS requires. */
function derSignature(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const raw = Buffer.from(signature, 'base64url');
  const integer = (bytes: Buffer) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
    let body = bytes.subarray(start);
    if ((body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const sequence = Buffer.concat([integer(raw.subarray(0, 32)), integer(raw.subarray(32))]);
  const der = Buffer.concat([Buffer.from([0x30, sequence.length]), sequence]);
  return `${header}.${payload}.${der.toString('base64url')}`;
}

function perAlgorithm(keys: Record<string, VectorKey>, alg: Alg): TokenVector[] {
  const active = key(keys, `${alg}/active`);
  const out: TokenVector[] = [];
  const add = (
    suffix: string,
    description: string,
    build: (name: string) => string,
    expected: Expectation,
    consumed: (name: string) => string[] = () => [],
  ) => {
    const name = `${alg}/${suffix}`;
    out.push({ name, description, alg, token: build(name), consumedNonces: consumed(name), expected });
  };
  const mint = (overrides: Record<string, unknown> = {}, signer = active, header = {}) => {
    return (name: string) => compact(signer, tokenClaims(name, overrides), header);
  };
  const N = TOKEN_NOW;

  add('valid', 'a token as the service mints it, TTL 300 s', mint(), VALID);
  add('valid-expired-within-skew', 'exp 4 s ago: inside the 5 s skew', mint({ iat: N - 304 }), VALID);
  add('valid-iat-within-skew', 'iat 5 s ahead: at the skew limit', mint({ iat: N + 5 }), VALID);
  add('valid-nbf-within-skew', 'nbf 5 s ahead: at the skew limit', mint({ nbf: N + 5 }), VALID);
  add(
    'valid-longest-action',
    'proposedAction at its 4,000 characters, each a control character written \\u00XX in the claims: the longest token the service mints (about 33,000 characters)',
    mint({ proposedAction: `list ${'\u0001'.repeat(3_995)}` }),
    VALID,
  );
  add(
    'valid-ttl-fractional',
    'iat and exp need not be integers',
    mint({ iat: N - 10.5, exp: N + 289.5 }),
    VALID,
  );

  add(
    'malformed-missing-nonce',
    'signed, but without a nonce claim',
    mint({ nonce: undefined }),
    fails('TOKEN_MALFORMED'),
  );
  add('malformed-empty-nonce', 'signed, with an empty nonce', mint({ nonce: '' }), fails('TOKEN_MALFORMED'));
  add(
    'malformed-iat-string',
    'signed, iat is a string',
    mint({ iat: String(N - 10), exp: N + 290 }),
    fails('TOKEN_MALFORMED'),
  );
  add(
    'malformed-intent-number',
    'signed, intentId is a number',
    mint({ intentId: 7 }),
    fails('TOKEN_MALFORMED'),
  );
  add(
    'malformed-payload-not-json',
    'signed, the payload is not JSON',
    () => compact(active, 'not json'),
    fails('TOKEN_MALFORMED'),
  );
  add(
    'malformed-payload-array',
    'signed, the payload is a JSON array',
    () => compact(active, '[1,2,3]'),
    fails('TOKEN_MALFORMED'),
  );
  add(
    'malformed-non-canonical-signature',
    'the signature with its unused trailing bits set',
    (name) => nonCanonical(mint()(name)),
    fails('TOKEN_MALFORMED'),
  );

  add(
    'kid-unknown',
    'a kid of the tenant that the key set does not hold',
    mint({}, active, { kid: 'acme-1700000009-UNKNOWNK' }),
    fails('KID_MISMATCH'),
  );
  add(
    'kid-retired-key',
    'signed by a RETIRED key: not in the JWKS any more',
    mint({}, key(keys, `${alg}/retired`)),
    fails('KID_MISMATCH'),
  );
  add(
    'kid-other-tenant',
    "another tenant's key, even though the set lists it",
    mint({ tenantId: 'globex' }, key(keys, `${alg}/globex`)),
    fails('KID_MISMATCH'),
  );
  add(
    'kid-not-contract-form',
    'a kid not of the form <tenant>-<seconds>-<base32>',
    mint({}, active, { kid: 'acme-1700000000-edactive' }),
    fails('KID_MISMATCH'),
  );

  add(
    'signature-other-key',
    'signed by another key under the real kid',
    mint({}, key(keys, `${alg}/impostor`)),
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  add(
    'signature-tampered-payload',
    'targetSystem changed after signing',
    (name) => tamper(mint()(name), 'proposedAction', 'delete the repository'),
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  add(
    'signature-alg-none',
    'alg none with an empty signature under the real kid',
    (name) => `${b64url({ alg: 'none', typ: 'JWT', kid: active.kid })}.${b64url(tokenClaims(name))}.`,
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  add(
    'signature-hs256-public-key',
    'HS256 keyed with the public JWK text (algorithm confusion)',
    (name) => {
      const input = `${b64url({ alg: 'HS256', typ: 'JWT', kid: active.kid })}.${b64url(tokenClaims(name))}`;
      const mac = createHmac('sha256', JSON.stringify(active.publicJwk)).update(input).digest('base64url');
      return `${input}.${mac}`;
    },
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  const other: Alg = alg === 'EdDSA' ? 'ES256' : 'EdDSA';
  add(
    'signature-header-alg-not-key',
    `a valid ${other} signature under the ${alg} key's kid`,
    mint({}, key(keys, `${other}/active`), { kid: active.kid }),
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  add(
    'signature-wrong-issuer',
    'iss is not service-authority',
    mint({ iss: 'service-authority-evil' }),
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  add('signature-missing-issuer', 'no iss', mint({ iss: undefined }), fails('SIGNATURE_VERIFICATION_FAILED'));
  add(
    'signature-aud-not-adapter',
    "aud is not the token's own adapterId",
    mint({ aud: 'service-edge-verifier' }),
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  add(
    'signature-aud-array',
    'aud is an array holding the adapterId',
    mint({ aud: [ADAPTER] }),
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );

  add(
    'ttl-exceeds-limit',
    'exp - iat = 301 s',
    mint({ iat: N - 10, exp: N + 291 }),
    fails('TOKEN_TTL_EXCEEDS_LIMIT'),
  );
  add('expired', 'exp + 5 s skew = now', mint({ iat: N - 305 }), fails('TOKEN_EXPIRED'));
  add(
    'not-yet-valid-iat',
    'iat 6 s in the future, beyond the skew',
    mint({ iat: N + 6 }),
    fails('TOKEN_NOT_YET_VALID'),
  );
  add(
    'not-yet-valid-nbf',
    'nbf 6 s in the future, beyond the skew',
    mint({ nbf: N + 6 }),
    fails('TOKEN_NOT_YET_VALID'),
  );
  add('decision-denied', 'decision DENIED', mint({ decision: 'DENIED' }), fails('TOKEN_DECISION_INVALID'));
  add(
    'decision-lower-case',
    'decision approved (lower case)',
    mint({ decision: 'approved' }),
    fails('TOKEN_DECISION_INVALID'),
  );
  add(
    'tenant-mismatch',
    'minted for another tenant under our kid',
    mint({ tenantId: 'globex' }),
    fails('TOKEN_TENANT_MISMATCH'),
  );
  add(
    'adapter-mismatch',
    'minted for another adapter',
    mint({ adapterId: 'jira-main', aud: 'jira-main' }),
    fails('TOKEN_ADAPTER_MISMATCH'),
  );
  add(
    'target-mismatch',
    'minted for another target',
    mint({ targetSystem: 'acme/web', adapterTarget: 'acme/web' }),
    fails('TOKEN_TARGET_MISMATCH'),
  );
  add(
    'nonce-consumed',
    'a valid token whose nonce was used before',
    mint(),
    fails('NONCE_ALREADY_CONSUMED'),
    (name) => [nonceFor(name)],
  );

  // Several failures at once: the first in the contract's order is reported.
  add(
    'order-issuer-before-ttl',
    'wrong iss and TTL 400 s',
    mint({ iss: 'x', exp: N + 390 }),
    fails('SIGNATURE_VERIFICATION_FAILED'),
  );
  add(
    'order-ttl-before-expiry',
    'TTL 301 s and long expired',
    mint({ iat: N - 1000, exp: N - 699 }),
    fails('TOKEN_TTL_EXCEEDS_LIMIT'),
  );
  add(
    'order-expiry-before-binding',
    'expired, DENIED, other tenant, adapter and target',
    mint({
      iat: N - 400,
      decision: 'DENIED',
      tenantId: 'globex',
      adapterId: 'x',
      aud: 'x',
      targetSystem: 'y',
    }),
    fails('TOKEN_EXPIRED'),
  );
  add(
    'order-not-yet-valid-before-decision',
    'nbf in the future and DENIED',
    mint({ nbf: N + 60, decision: 'DENIED' }),
    fails('TOKEN_NOT_YET_VALID'),
  );
  add(
    'order-decision-before-tenant',
    'DENIED and another tenant',
    mint({ decision: 'DENIED', tenantId: 'globex' }),
    fails('TOKEN_DECISION_INVALID'),
  );
  add(
    'order-tenant-before-adapter',
    'another tenant and another adapter',
    mint({ tenantId: 'globex', adapterId: 'x', aud: 'x' }),
    fails('TOKEN_TENANT_MISMATCH'),
  );
  add(
    'order-adapter-before-target',
    'another adapter and another target',
    mint({ adapterId: 'x', aud: 'x', targetSystem: 'y' }),
    fails('TOKEN_ADAPTER_MISMATCH'),
  );
  add(
    'order-expiry-before-nonce',
    'expired, and its nonce was used',
    mint({ iat: N - 400 }),
    fails('TOKEN_EXPIRED'),
    (name) => [nonceFor(name)],
  );
  return out;
}

function specific(keys: Record<string, VectorKey>): TokenVector[] {
  const rsa = key(keys, 'RS256/active');
  const es = key(keys, 'ES256/active');
  const weak = key(keys, 'RS256/weak');
  const vector = (name: string, alg: Alg, description: string, token: string, expected: Expectation) => ({
    name,
    description,
    alg,
    token,
    consumedNonces: [],
    expected,
  });
  const twins = es256Twins(es, tokenClaims('ES256/s-twins'));
  const expiredTwins = es256Twins(
    es,
    tokenClaims('ES256/order-high-s-before-expiry', { iat: TOKEN_NOW - 400 }),
  );
  return [
    vector(
      'ES256/valid-low-s-twin',
      'ES256',
      'the low-S twin (r, n - s) of ES256/signature-high-s-twin: the form the service mints',
      twins.low,
      VALID,
    ),
    vector(
      'ES256/signature-high-s-twin',
      'ES256',
      'the high-S twin (r, s > n/2) of ES256/valid-low-s-twin: a correct ECDSA signature, but not low-S',
      twins.high,
      fails('SIGNATURE_VERIFICATION_FAILED'),
    ),
    vector(
      'ES256/order-high-s-before-expiry',
      'ES256',
      'a high-S signature on an expired token',
      expiredTwins.high,
      fails('SIGNATURE_VERIFICATION_FAILED'),
    ),
    vector(
      'RS256/signature-ps256-same-key',
      'RS256',
      'PS256 signature by the RS256 private key',
      compact(rsa, tokenClaims('RS256/signature-ps256-same-key'), { alg: 'PS256' }),
      fails('SIGNATURE_VERIFICATION_FAILED'),
    ),
    vector(
      'RS256/signature-weak-key',
      'RS256',
      'signed by a published 1024-bit RSA key: below the 2048-bit minimum',
      compact(weak, tokenClaims('RS256/signature-weak-key')),
      fails('SIGNATURE_VERIFICATION_FAILED'),
    ),
    vector(
      'EdDSA/signature-crit-unknown',
      'EdDSA',
      'a correct signature, but the header declares a critical extension nobody implements',
      compact(key(keys, 'EdDSA/active'), tokenClaims('EdDSA/signature-crit-unknown'), {
        crit: ['urn:example:unknown'],
        'urn:example:unknown': true,
      }),
      fails('SIGNATURE_VERIFICATION_FAILED'),
    ),
    vector(
      'ES256/signature-der-encoded',
      'ES256',
      'a correct ECDSA signature in DER instead of raw r || s',
      derSignature(compact(es, tokenClaims('ES256/signature-der-encoded'))),
      fails('SIGNATURE_VERIFICATION_FAILED'),
    ),
  ];
}

function structural(keys: Record<string, VectorKey>): TokenVector[] {
  const ed = key(keys, 'EdDSA/active');
  const claims = b64url(tokenClaims('structural'));
  const garbage: [string, string, string, string][] = [
    ['empty', 'the empty string', '', 'TOKEN_MALFORMED'],
    ['one-part', 'no dots', 'garbage', 'TOKEN_MALFORMED'],
    ['two-parts', 'two parts', 'a.b', 'TOKEN_MALFORMED'],
    ['four-parts', 'four parts', 'a.b.c.d', 'TOKEN_MALFORMED'],
    ['empty-parts', 'three empty parts', '..', 'TOKEN_MALFORMED'],
    ['not-base64url', 'characters outside base64url', 'not base64!.eyJ9.sig', 'TOKEN_MALFORMED'],
    [
      'padded-header',
      'base64 padding in the header',
      `${b64url({ alg: 'EdDSA', kid: ed.kid })}=.${claims}.c2ln`,
      'TOKEN_MALFORMED',
    ],
    [
      'empty-payload',
      'an empty payload part',
      `${b64url({ alg: 'EdDSA', kid: ed.kid })}..c2ln`,
      'TOKEN_MALFORMED',
    ],
    ['header-not-json', 'the header is not JSON', `${b64url('not json')}.${claims}.c2ln`, 'TOKEN_MALFORMED'],
    ['header-array', 'the header is a JSON array', `${b64url([1, 2])}.${claims}.c2ln`, 'TOKEN_MALFORMED'],
    [
      'header-not-utf8',
      'the header is not UTF-8',
      `${Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')}.${claims}.c2ln`,
      'TOKEN_MALFORMED',
    ],
    [
      'header-no-kid',
      'no kid in the header',
      `${b64url({ alg: 'EdDSA', typ: 'JWT' })}.${claims}.c2ln`,
      'TOKEN_MALFORMED',
    ],
    [
      'header-empty-kid',
      'an empty kid',
      `${b64url({ alg: 'EdDSA', kid: '' })}.${claims}.c2ln`,
      'TOKEN_MALFORMED',
    ],
    [
      'header-numeric-kid',
      'a numeric kid',
      `${b64url({ alg: 'EdDSA', kid: 42 })}.${claims}.c2ln`,
      'TOKEN_MALFORMED',
    ],
    ['header-no-alg', 'no alg in the header', `${b64url({ kid: ed.kid })}.${claims}.c2ln`, 'TOKEN_MALFORMED'],
    [
      'alg-none-no-kid',
      'alg none without a kid',
      `${b64url({ alg: 'none', typ: 'JWT' })}.${claims}.`,
      'TOKEN_MALFORMED',
    ],
    ['too-long', 'longer than 65 536 characters', 'x'.repeat(65_537), 'TOKEN_MALFORMED'],
    [
      'alg-none-unknown-kid',
      'alg none under a kid nobody published: the kid fails first',
      `${b64url({ alg: 'none', kid: 'acme-1700000000-ZZZZZZZZ' })}.${claims}.`,
      'KID_MISMATCH',
    ],
    [
      'kid-tenant-only',
      'a kid that is just the tenant',
      `${b64url({ alg: 'EdDSA', kid: 'acme' })}.${claims}.c2ln`,
      'KID_MISMATCH',
    ],
    [
      'kid-newline',
      'a kid whose tenant part holds a line break',
      `${b64url({ alg: 'EdDSA', kid: 'ac\nme-1700000000-EDACTIVE' })}.${claims}.c2ln`,
      'KID_MISMATCH',
    ],
    [
      'kid-trailing-newline',
      'a kid with a trailing line break',
      `${b64url({ alg: 'EdDSA', kid: `${ed.kid}\n` })}.${claims}.c2ln`,
      'KID_MISMATCH',
    ],
  ];
  return garbage.map(([name, description, token, reason]) => ({
    name: `structure/${name}`,
    description,
    alg: null,
    token,
    consumedNonces: [],
    expected: fails(reason),
  }));
}

/**
 * Every token vector, and the key set they are verified against (the tenant's ACTIVE keys, another
 * tenant's keys and a weak RSA key; the RETIRED keys are left out, as the JWKS leaves them out).
 *
 * @example
 * ```ts
 * const { jwks, vectors } = tokenVectors(loadVectorKeys(file));
 * ```
 */
export function tokenVectors(keys: Record<string, VectorKey>) {
  const published = [
    ...ALGS.map((alg) => key(keys, `${alg}/active`).publicJwk),
    ...ALGS.map((alg) => key(keys, `${alg}/globex`).publicJwk),
    key(keys, 'RS256/weak').publicJwk,
  ];
  return {
    description:
      'Authority Decision Tokens (contract §5). Verify each token at `now` (unix seconds) with a clock skew of ' +
      '`clockSkewSeconds`, against `jwks`, for the adapter `expected`, with a nonce store that already holds ' +
      '`consumedNonces`; the result must be `expected` (reason null when valid). A token that fails must not ' +
      'consume its nonce; a valid one must, so presenting it again gives NONCE_ALREADY_CONSUMED.',
    now: TOKEN_NOW,
    clockSkewSeconds: 5,
    expected: { tenantId: TENANT, adapterId: ADAPTER, targetSystem: TARGET },
    jwks: { keys: published },
    vectors: [...ALGS.flatMap((alg) => perAlgorithm(keys, alg)), ...specific(keys), ...structural(keys)],
  };
}
