import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type JWK, type JWTPayload, SignJWT } from 'jose';
import {
  cosigner,
  ed25519NoteSigner,
  formatCheckpoint,
  type KeySource,
  parseVerifierKey,
  RECEIPT_VERIFICATION_REASONS,
  type Receipt,
  type ReceiptV1,
  type ReceiptVerification,
  type ReceiptVerificationReason,
  signNote,
  staticJwks,
  verifyReceipt,
} from '../src/index.js';
import {
  type Alg,
  asMinted,
  type Entry,
  flipChar,
  flipHex,
  jcs,
  makeEntry,
  makeKey,
  rehash,
  signText,
  TENANT,
  type TestKey,
  ZEROS,
} from './audit-fixtures.js';
import { ReferenceTree } from './transparency/rfc9162-reference.js';

const INTENT = '0190f5c2-1111-7000-8000-000000000001';
const OTHER_INTENT = '0190f5c2-1111-7000-8000-000000000002';
const ADAPTER = 'github-main';
const TARGET = 'acme/api';
/** Positions of the intent's entries in the test chain; 2-3-4 are consecutive, so linked. */
const INTENT_INDICES = [2, 3, 4, 7, 9];
const CHAIN_LENGTH = 12;
const SEAL_TYP = 'authority-receipt-seal+jws';
const ALGS = ['EdDSA', 'RS256', 'ES256'] as const;

let keys: Record<Alg, TestKey>;
let retired: TestKey;
let unpinned: TestKey;
let otherTenant: TestKey;
let forger: TestKey;
/** The tenant's current JWKS (what the receipt embeds). */
let currentJwks: { keys: JWK[] };
/** What a verifier pins: current JWKS plus the archive of retired keys (plus another tenant's key). */
let pinned: { keys: JWK[] };
let chain: Entry[];

interface ReceiptSpec {
  sealKey?: TestKey;
  tokenKey?: TestKey;
  decision?: string;
  token?: 'none';
  tokenClaims?: Record<string, unknown>;
  entries?: Entry[];
  headIndex?: number;
  jwks?: { keys: JWK[] };
}

function tokenClaims(overrides: Record<string, unknown> = {}): JWTPayload {
  // Issued in 2020 and long expired: receipts are verified after their tokens expire.
  const iat = 1_600_000_000;
  const base: Record<string, unknown> = {
    intentId: INTENT,
    tenantId: TENANT,
    adapterId: ADAPTER,
    adapterTarget: TARGET,
    targetSystem: TARGET,
    proposedAction: 'merge pull request #42',
    decision: 'APPROVED',
    issuedAt: new Date(iat * 1000).toISOString(),
    expiresAt: new Date((iat + 300) * 1000).toISOString(),
    nonce: randomBytes(16).toString('base64url'),
    iss: 'service-authority',
    aud: ADAPTER,
    iat,
    exp: iat + 300,
    ...overrides,
  };
  for (const [name, value] of Object.entries(base)) if (value === undefined) delete base[name];
  return base as JWTPayload;
}

async function mintToken(key: TestKey, overrides: Record<string, unknown> = {}): Promise<string> {
  const token = await new SignJWT(tokenClaims(overrides))
    .setProtectedHeader({ alg: key.alg, typ: 'JWT', kid: key.kid })
    .sign(key.privateKey);
  return asMinted(token, key.alg);
}

/** (Re)signs a receipt's seal over its current fields. */
async function seal(receipt: ReceiptV1, key: TestKey, typ = SEAL_TYP, kid = key.kid): Promise<ReceiptV1> {
  const { signature: _old, ...fields } = receipt.seal;
  return { ...receipt, seal: { ...fields, signature: await signText(key, jcs(fields), typ, kid) } };
}

async function buildReceipt(spec: ReceiptSpec = {}): Promise<ReceiptV1> {
  const sealKey = spec.sealKey ?? keys.EdDSA;
  const entries = spec.entries ?? chain.filter((entry) => entry.intentId === INTENT);
  const headIndex = spec.headIndex ?? CHAIN_LENGTH - 1;
  const head = chain[headIndex] ?? chain[chain.length - 1];
  const token = spec.token === 'none' ? null : await mintToken(spec.tokenKey ?? sealKey, spec.tokenClaims);
  const unsealed: ReceiptV1 = {
    receiptVersion: 1,
    intentId: INTENT,
    tenantId: TENANT,
    decision: spec.decision ?? 'APPROVED',
    token,
    entries: entries as unknown as ReceiptV1['entries'],
    seal: {
      tenantId: TENANT,
      intentId: INTENT,
      entryHashes: entries.map((entry) => entry.entryHash),
      headIndex,
      headHash: head?.entryHash ?? ZEROS,
      issuedAt: '2026-11-22T04:00:00.000Z',
      signature: '',
    },
    jwks: spec.jwks ?? currentJwks,
  };
  return seal(unsealed, sealKey);
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function assertValid(result: ReceiptVerification): void {
  assert.equal(
    result.valid,
    true,
    result.valid ? '' : `expected valid, got ${result.reason} (${result.detail})`,
  );
}

function assertInvalid(result: ReceiptVerification, ...reasons: ReceiptVerificationReason[]): void {
  assert.equal(result.valid, false, `expected ${reasons.join(' or ')}, got valid: true`);
  if (!result.valid) {
    assert.ok(
      reasons.includes(result.reason),
      `expected ${reasons.join(' or ')}, got ${result.reason} (${result.detail})`,
    );
  }
}

const verify = (receipt: unknown, jwks: { keys: JWK[] } | KeySource = pinned) =>
  verifyReceipt(receipt, { jwks });

before(async () => {
  keys = {
    EdDSA: await makeKey('EdDSA', 'acme-1700000000-ABCDEFGH'),
    RS256: await makeKey('RS256', 'acme-1700000001-RSAKEY22'),
    ES256: await makeKey('ES256', 'acme-1700000002-ECKEY234'),
  };
  retired = await makeKey('EdDSA', 'acme-1690000000-RETIRED2');
  unpinned = await makeKey('EdDSA', 'acme-1700000003-UNPINNED');
  otherTenant = await makeKey('EdDSA', 'globex-1700000000-ABCDEFGH');
  // The forger reuses the real ACTIVE kid: only the pinned key material tells them apart.
  forger = await makeKey('EdDSA', keys.EdDSA.kid);
  currentJwks = { keys: ALGS.map((alg) => keys[alg].publicJwk) };
  pinned = { keys: [...currentJwks.keys, retired.publicJwk, otherTenant.publicJwk] };
  chain = [];
  let previous = ZEROS;
  for (let index = 0; index < CHAIN_LENGTH; index += 1) {
    const ofIntent = INTENT_INDICES.includes(index);
    const entry = makeEntry(
      index,
      previous,
      ofIntent
        ? {
            intentId: INTENT,
            actorType: 'principal:api-key',
            eventType: index === 2 ? 'intent.received' : 'token.consumed',
            payload: {
              nonce: `n-${index}`,
              adapterId: ADAPTER,
              targetSystem: TARGET,
              tokenKid: keys.EdDSA.kid,
            },
          }
        : {},
    );
    chain.push(entry);
    previous = entry.entryHash;
  }
});

describe('verifyReceipt: valid receipts', () => {
  for (const alg of ALGS) {
    it(`verifies a receipt whose seal and token are signed with ${alg}`, async () => {
      const receipt = await buildReceipt({ sealKey: keys[alg] });
      const result = await verify(receipt);
      assertValid(result);
      assert.ok(result.valid);
      assert.deepEqual(result.receipt, receipt);
      assert.notEqual(result.receipt, receipt, 'the result is a copy');
      assert.equal(result.tokenClaims?.intentId, INTENT);
      assert.equal(result.tokenClaims?.proposedAction, 'merge pull request #42');
    });
  }

  it('verifies the JSON text of a receipt, and with a matching expectedTenantId', async () => {
    const receipt = await buildReceipt();
    assertValid(await verifyReceipt(JSON.stringify(receipt), { jwks: pinned, expectedTenantId: TENANT }));
  });

  it('verifies with the pinned keys given as a key source (staticJwks)', async () => {
    assertValid(await verify(await buildReceipt(), staticJwks(pinned)));
  });

  it('accepts a kid listed twice with identical keys (JWKS and archive merged) but not with different keys', async () => {
    const receipt = await buildReceipt();
    assertValid(await verify(receipt, { keys: [...pinned.keys, { ...keys.EdDSA.publicJwk }] }));
    await assert.rejects(
      verifyReceipt(receipt, { jwks: { keys: [...pinned.keys, { ...forger.publicJwk }] } }),
      TypeError,
    );
  });

  it('does not check token expiry: a token that expired years ago verifies', async () => {
    const receipt = await buildReceipt();
    const result = await verify(receipt);
    assert.ok(result.valid);
    assert.ok((result.tokenClaims?.exp ?? 0) * 1000 < Date.now());
  });

  it('verifies a token signed by a RETIRED key from the archive, and only when the archive is pinned', async () => {
    const receipt = await buildReceipt({ sealKey: keys.ES256, tokenKey: retired });
    assertValid(await verify(receipt));
    assertInvalid(await verify(receipt, currentJwks), 'TOKEN_INVALID');
  });

  it('verifies a receipt that embeds the JWKS and the archive, as the service does', async () => {
    const receipt = await buildReceipt({ jwks: { keys: [...currentJwks.keys, retired.publicJwk] } });
    assertValid(await verify(receipt));
  });

  it('verifies a DENIED receipt without a token', async () => {
    const result = await verify(await buildReceipt({ decision: 'DENIED', token: 'none' }));
    assertValid(result);
    assert.ok(result.valid);
    assert.equal(result.tokenClaims, null);
  });

  it('verifies a receipt whose last entry is the sealed head', async () => {
    assertValid(await verify(await buildReceipt({ headIndex: 9 })));
  });
});

describe('verifyReceipt: structure and tenant', () => {
  it('rejects values that are not receipts as RECEIPT_MALFORMED', async () => {
    const receipt = await buildReceipt();
    const { jwks: _jwks, ...withoutJwks } = receipt;
    const cases: unknown[] = [
      undefined,
      null,
      42,
      'not json',
      '[]',
      [],
      {},
      { ...receipt, receiptVersion: 2 },
      { ...receipt, receiptVersion: '1' },
      { ...receipt, extra: true },
      withoutJwks,
      { ...receipt, entries: [] },
      { ...receipt, token: '' },
      { ...receipt, decision: 7 },
      { ...receipt, seal: { ...receipt.seal, headIndex: -1 } },
      { ...receipt, seal: { ...receipt.seal, headHash: receipt.seal.headHash.toUpperCase() } },
      { ...receipt, seal: { ...receipt.seal, issuedAt: '2026-11-22T04:00:00Z' } },
      { ...receipt, seal: { ...receipt.seal, note: 'unsigned' } },
      { ...receipt, entries: [{ ...receipt.entries[0], createdAt: '2026-02-30T00:00:00.000Z' }] },
      { ...receipt, entries: [{ ...receipt.entries[0], index: 1.5 }] },
      { ...receipt, jwks: { keys: 'none' } },
    ];
    for (const value of cases) assertInvalid(await verify(value), 'RECEIPT_MALFORMED');
  });

  it('reports TENANT_MISMATCH when the receipt belongs to another tenant than expected', async () => {
    const result = await verifyReceipt(await buildReceipt(), { jwks: pinned, expectedTenantId: 'globex' });
    assertInvalid(result, 'TENANT_MISMATCH');
  });

  it('throws a TypeError for bad options only', async () => {
    const receipt = await buildReceipt();
    await assert.rejects(verifyReceipt(receipt, undefined as never), TypeError);
    await assert.rejects(verifyReceipt(receipt, { jwks: 'keys' as never }), TypeError);
    await assert.rejects(
      verifyReceipt(receipt, { jwks: { keys: [{ kty: 'oct', k: 'x', kid: 'a' }] } }),
      TypeError,
    );
    await assert.rejects(verifyReceipt(receipt, { jwks: pinned, expectedTenantId: '' }), TypeError);
  });

  it('lists its reasons in check order', () => {
    assert.equal(RECEIPT_VERIFICATION_REASONS[0], 'RECEIPT_MALFORMED');
    assert.ok(RECEIPT_VERIFICATION_REASONS.includes('SEAL_SIGNATURE_INVALID'));
  });
});

describe('verifyReceipt: tampering', () => {
  for (const alg of ALGS) {
    it(`fails when any single character of the ${alg} token changes`, async () => {
      const receipt = await buildReceipt({ sealKey: keys[alg] });
      const token = receipt.token ?? '';
      for (let position = 0; position < token.length; position += 1) {
        const result = await verify({ ...receipt, token: flipChar(token, position) });
        assertInvalid(result, 'TOKEN_INVALID');
      }
    });

    it(`fails when any single character of the ${alg} seal signature changes`, async () => {
      const receipt = await buildReceipt({ sealKey: keys[alg] });
      const { signature } = receipt.seal;
      for (let position = 0; position < signature.length; position += 1) {
        const result = await verify({
          ...receipt,
          seal: { ...receipt.seal, signature: flipChar(signature, position) },
        });
        assertInvalid(result, 'SEAL_SIGNATURE_INVALID');
      }
    });
  }

  it('fails when any member of any entry changes (ENTRY_HASH_MISMATCH), or its hash changes', async () => {
    const receipt = await buildReceipt();
    const changes: Record<string, (value: unknown) => unknown> = {
      index: (value) => (value as number) + 1,
      tenantId: () => 'globex',
      correlationId: () => '0190f5c2-0000-7000-8000-ffffffffffff',
      intentId: () => OTHER_INTENT,
      actorId: () => 'key_01HY',
      actorType: () => 'principal:user',
      eventType: () => 'token.issued',
      payload: (value) => ({ ...(value as Record<string, unknown>), targetSystem: 'acme/other' }),
      previousHash: (value) => flipHex(value as string, 63),
      entryHash: (value) => flipHex(value as string, 10),
      createdAt: () => '2026-11-22T03:31:22.769Z',
    };
    for (const [position] of receipt.entries.entries()) {
      for (const [member, change] of Object.entries(changes)) {
        const tampered = clone(receipt);
        const entry = tampered.entries[position] as unknown as Record<string, unknown>;
        entry[member] = change(entry[member]);
        assertInvalid(await verify(tampered), 'ENTRY_HASH_MISMATCH');
      }
    }
  });

  it('fails when a payload field changes and the entry hash is recomputed (SEAL_MISMATCH, or ENTRY_MISMATCH when linked)', async () => {
    const receipt = await buildReceipt();
    const forge = (position: number) => {
      const tampered = clone(receipt);
      const original = tampered.entries[position] as unknown as Record<string, unknown>;
      tampered.entries[position] = rehash({
        ...original,
        payload: { nonce: 'forged' },
      }) as unknown as ReceiptV1['entries'][0];
      return tampered;
    };
    // Entry 9 is the intent's last entry: only the seal's entryHashes catch the new hash.
    assertInvalid(await verify(forge(4)), 'SEAL_MISMATCH');
    // Entry 3 is followed by entry 4 in the receipt, whose previousHash no longer matches.
    assertInvalid(await verify(forge(1)), 'ENTRY_MISMATCH');
  });

  it('fails when an entry is moved to another intent or tenant, even re-hashed and re-sealed (ENTRY_MISMATCH)', async () => {
    for (const change of [{ intentId: OTHER_INTENT }, { tenantId: 'globex' }, { intentId: null }]) {
      const receipt = await buildReceipt();
      const entries = clone(receipt.entries) as unknown as Entry[];
      entries[3] = rehash({ ...entries[3], ...change });
      const resealed = await buildReceipt({ entries });
      assertInvalid(await verify(resealed), 'ENTRY_MISMATCH');
    }
  });

  it('fails when the entries are out of chain order or do not link where consecutive (ENTRY_MISMATCH)', async () => {
    const entries = chain.filter((entry) => entry.intentId === INTENT);
    const swapped = [entries[1], entries[0], ...entries.slice(2)] as Entry[];
    assertInvalid(await verify(await buildReceipt({ entries: swapped })), 'ENTRY_MISMATCH');
    const relinked = [...entries];
    relinked[1] = rehash({ ...entries[1], previousHash: flipHex(entries[0]?.entryHash ?? '') });
    assertInvalid(await verify(await buildReceipt({ entries: relinked })), 'ENTRY_MISMATCH');
  });

  it('fails when any seal field changes', async () => {
    const receipt = await buildReceipt();
    const cases: Array<[Partial<ReceiptV1['seal']>, ReceiptVerificationReason]> = [
      [{ tenantId: 'globex' }, 'SEAL_MISMATCH'],
      [{ intentId: OTHER_INTENT }, 'SEAL_MISMATCH'],
      [
        { entryHashes: receipt.seal.entryHashes.map((hash, i) => (i === 2 ? flipHex(hash) : hash)) },
        'SEAL_MISMATCH',
      ],
      [{ entryHashes: receipt.seal.entryHashes.slice(1) }, 'SEAL_MISMATCH'],
      [{ headIndex: receipt.seal.headIndex + 1 }, 'SEAL_SIGNATURE_INVALID'],
      [{ headIndex: 8 }, 'SEAL_MISMATCH'],
      [{ headHash: flipHex(receipt.seal.headHash, 5) }, 'SEAL_SIGNATURE_INVALID'],
      [{ issuedAt: '2026-11-22T04:00:00.001Z' }, 'SEAL_SIGNATURE_INVALID'],
    ];
    for (const [change, reason] of cases) {
      assertInvalid(await verify({ ...receipt, seal: { ...receipt.seal, ...change } }), reason);
    }
  });

  it('fails when an entry index is above headIndex, even with a validly signed seal', async () => {
    const receipt = await buildReceipt({ headIndex: 8 });
    assertInvalid(await verify(receipt), 'SEAL_MISMATCH');
  });

  it('fails when the sealed head is one of the entries but headHash is not its hash', async () => {
    const receipt = await buildReceipt({ headIndex: 9 });
    const tampered = await seal(
      { ...receipt, seal: { ...receipt.seal, headHash: flipHex(receipt.seal.headHash) } },
      keys.EdDSA,
    );
    assertInvalid(await verify(tampered), 'SEAL_MISMATCH');
  });
});

describe('verifyReceipt: keys and signatures', () => {
  it("fails when the embedded jwks is swapped for a forger's key and the receipt re-signed by the forger", async () => {
    const forged = await buildReceipt({ sealKey: forger, jwks: { keys: [forger.publicJwk] } });
    // Against the forger's own key it would pass: only pinning stops it.
    assertValid(await verify(forged, { keys: [forger.publicJwk] }));
    assertInvalid(await verify(forged), 'SEAL_SIGNATURE_INVALID');
    const renamed = await makeKey('EdDSA', 'acme-1700000009-FORGERKK');
    const forgedNewKid = await buildReceipt({ sealKey: renamed, jwks: { keys: [renamed.publicJwk] } });
    assertInvalid(await verify(forgedNewKid), 'SEAL_SIGNATURE_INVALID');
  });

  it('fails when the token is re-signed by a forger under the real kid', async () => {
    const receipt = await buildReceipt({ sealKey: keys.ES256, tokenKey: forger });
    assertInvalid(await verify(receipt), 'TOKEN_INVALID');
  });

  it('fails when the token or the seal is signed by a key that is not pinned', async () => {
    assertInvalid(await verify(await buildReceipt({ tokenKey: unpinned })), 'TOKEN_INVALID');
    assertInvalid(
      await verify(await buildReceipt({ sealKey: unpinned, tokenKey: keys.EdDSA })),
      'SEAL_SIGNATURE_INVALID',
    );
  });

  it("fails when the token or the seal is signed by another tenant's pinned key", async () => {
    assertInvalid(await verify(await buildReceipt({ tokenKey: otherTenant })), 'TOKEN_INVALID');
    assertInvalid(
      await verify(await buildReceipt({ sealKey: otherTenant, tokenKey: keys.EdDSA })),
      'SEAL_SIGNATURE_INVALID',
    );
  });

  it("fails when the seal uses an algorithm other than the pinned key's, another typ, or a non-canonical payload", async () => {
    const receipt = await buildReceipt();
    // An EdDSA signature presented under the ES256 key's kid.
    assertInvalid(
      await verify(await seal(receipt, keys.EdDSA, SEAL_TYP, keys.ES256.kid)),
      'SEAL_SIGNATURE_INVALID',
    );
    assertInvalid(await verify(await seal(receipt, keys.EdDSA, 'JWT')), 'SEAL_SIGNATURE_INVALID');
    const { signature: _s, ...fields } = receipt.seal;
    for (const text of [JSON.stringify(fields), JSON.stringify(JSON.parse(jcs(fields)), null, 1)]) {
      assert.notEqual(text, jcs(fields));
      const nonCanonical = await signText(keys.EdDSA, text, SEAL_TYP);
      const result = await verify({ ...receipt, seal: { ...receipt.seal, signature: nonCanonical } });
      assertInvalid(result, 'SEAL_SIGNATURE_INVALID');
    }
  });

  it('requires a token on an APPROVED receipt and refuses one on any other decision', async () => {
    assertInvalid(await verify(await buildReceipt({ token: 'none' })), 'TOKEN_INVALID');
    assertInvalid(await verify(await buildReceipt({ decision: 'DENIED' })), 'TOKEN_INVALID');
  });

  it('fails when the token names another intent or tenant, is not APPROVED, or has a bad iss or aud', async () => {
    const cases: Array<Record<string, unknown>> = [
      { intentId: OTHER_INTENT },
      { tenantId: 'globex' },
      { decision: 'DENIED' },
      { iss: 'someone-else' },
      { aud: 'another-adapter' },
      { nonce: undefined },
    ];
    for (const claims of cases) {
      const result = await verify(await buildReceipt({ tokenClaims: claims }));
      assertInvalid(result, 'TOKEN_INVALID');
    }
  });

  it('fails when the embedded jwks lists a key that is not pinned or differs from the pinned one', async () => {
    const extra = await buildReceipt({ jwks: { keys: [...currentJwks.keys, unpinned.publicJwk] } });
    assertInvalid(await verify(extra), 'EMBEDDED_JWKS_MISMATCH');
    const altered = await buildReceipt({ jwks: { keys: [{ ...keys.EdDSA.publicJwk, use: 'enc' }] } });
    assertInvalid(await verify(altered), 'EMBEDDED_JWKS_MISMATCH');
    const twice = await buildReceipt({ jwks: { keys: [keys.EdDSA.publicJwk, keys.EdDSA.publicJwk] } });
    assertInvalid(await verify(twice), 'EMBEDDED_JWKS_MISMATCH');
  });

  it('reports KEY_SOURCE_UNAVAILABLE when a pinned key source throws', async () => {
    const failing: KeySource = {
      getKey: async () => {
        throw new Error('vault down');
      },
    };
    assertInvalid(await verify(await buildReceipt(), failing), 'KEY_SOURCE_UNAVAILABLE');
  });
});

describe('property: a one-character mutation of a receipt never verifies', () => {
  for (const alg of ALGS) {
    it(`holds for the JSON text of an ${alg} receipt`, async () => {
      const receipt = await buildReceipt({ sealKey: keys[alg] });
      const text = JSON.stringify(receipt);
      const original = jcs(JSON.parse(text));
      assertValid(await verify(text));
      const alphabet = [...'AZaz09_-."{}[]:,\\ eE+1'];
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: text.length - 1 }),
          fc.oneof(
            fc.constantFrom(...alphabet),
            fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
            fc.integer({ min: -2, max: 2 }).map((delta) => delta), // neighbour of the original
          ),
          async (position, replacementSpec) => {
            const current = text.charCodeAt(position);
            const replacement =
              typeof replacementSpec === 'number'
                ? String.fromCharCode(Math.max(0x20, current + replacementSpec))
                : replacementSpec;
            const mutated = text.slice(0, position) + replacement + text.slice(position + 1);
            if (mutated === text) return;
            let parsed: unknown;
            try {
              parsed = JSON.parse(mutated);
            } catch {
              assertInvalid(await verify(mutated), 'RECEIPT_MALFORMED');
              return;
            }
            // A change that leaves the JSON value itself unchanged is not a mutation of the receipt.
            let same = false;
            try {
              same = jcs(parsed) === original;
            } catch {
              same = false;
            }
            const result = await verify(mutated);
            if (same) assertValid(result);
            else
              assert.equal(
                result.valid,
                false,
                `mutation at ${position} to ${JSON.stringify(replacement)} verified`,
              );
          },
        ),
        { numRuns: alg === 'EdDSA' ? 1_500 : 500 },
      );
    });
  }
});

describe('verifyReceipt: version 2 (checkpoint and inclusion proofs, contract §15)', () => {
  const ORIGIN = `authority.example.com/audit/${TENANT}`;
  const logSigner = ed25519NoteSigner({ name: ORIGIN, seed: new Uint8Array(randomBytes(32)) });
  const forgedLog = ed25519NoteSigner({ name: ORIGIN, seed: new Uint8Array(randomBytes(32)) });
  const otherTenantLog = ed25519NoteSigner({
    name: 'authority.example.com/audit/globex',
    seed: new Uint8Array(randomBytes(32)),
  });
  const toBytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
  const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  /** Verifies against the pinned JWKS and `logKey`; `null` verifies without a log key. */
  const verify2 = (receipt: unknown, logKey: string | null = logSigner.verifierKey) =>
    verifyReceipt(receipt, logKey === null ? { jwks: pinned } : { jwks: pinned, logKey });

  /** The note of the reference tree over `leaves` (entry hashes) at `size`, signed by `signer`. */
  function note(leaves: readonly string[], size: number, signer = logSigner): string {
    const rootHash = new ReferenceTree(leaves.map(toBytes)).mth(0, size);
    return signNote(formatCheckpoint({ origin: signer.name, size, rootHash }), [signer]);
  }

  /** Version 1 made version 2: the checkpoint of its head and each entry's proof, from the reference tree. */
  async function buildReceipt2(spec: ReceiptSpec = {}): Promise<Receipt> {
    const v1 = await buildReceipt(spec);
    const leaves = chain.map((entry) => entry.entryHash);
    const size = v1.seal.headIndex + 1;
    const tree = new ReferenceTree(leaves.map(toBytes));
    return {
      ...v1,
      receiptVersion: 2,
      checkpoint: note(leaves, size),
      inclusion: v1.entries.map((entry) => ({
        index: entry.index,
        proof: tree.path(entry.index, size).map(toHex),
      })),
    };
  }

  it('verifies against the pinned log key, as text (with its newline) or parsed, for each algorithm', async () => {
    for (const alg of ALGS) {
      const receipt = await buildReceipt2({ sealKey: keys[alg] });
      const result = await verify2(receipt);
      assertValid(result);
      assert.equal(result.valid && result.receipt.receiptVersion, 2);
      assertValid(await verify2(JSON.stringify(receipt), `${logSigner.verifierKey}\n`));
      assertValid(
        await verifyReceipt(receipt, { jwks: pinned, logKey: parseVerifierKey(logSigner.verifierKey) }),
      );
    }
  });

  it('verifies a DENIED receipt, a receipt sealed at its last entry, and one whose note carries a witness cosignature', async () => {
    assertValid(await verify2(await buildReceipt2({ decision: 'DENIED', token: 'none' })));
    assertValid(await verify2(await buildReceipt2({ headIndex: 9 })));
    const receipt = await buildReceipt2();
    const witness = cosigner({ name: 'witness.example', seed: new Uint8Array(randomBytes(32)) }, Date.now);
    assertValid(
      await verify2({
        ...receipt,
        checkpoint: signNote(`${receipt.checkpoint.split('\n\n')[0]}\n`, [logSigner, witness]),
      }),
    );
  });

  it('fails with LOG_KEY_MISSING without a log key, before any other check, and never skips', async () => {
    const receipt = await buildReceipt2();
    const result = await verify2(receipt, null);
    assertInvalid(result, 'LOG_KEY_MISSING');
    assert.match(result.valid ? '' : result.detail, /log key/);
    assertInvalid(await verify2({ ...receipt, tenantId: 'globex' }, null), 'LOG_KEY_MISSING');
  });

  it('still verifies a version-1 receipt, with or without a log key', async () => {
    const receipt = await buildReceipt();
    assertValid(await verify2(receipt));
    assertValid(await verify2(receipt, null));
  });

  it('throws a TypeError for a log key that is not an Ed25519 note verifier key', async () => {
    const receipt = await buildReceipt2();
    const witness = cosigner({ name: 'witness.example', seed: new Uint8Array(randomBytes(32)) }, Date.now);
    for (const logKey of ['', 'not a key', witness.verifierKey, `${ORIGIN}+00000000+AQ==`]) {
      await assert.rejects(verify2(receipt, logKey), TypeError, logKey);
    }
    await assert.rejects(
      verifyReceipt(receipt, { jwks: pinned, logKey: { name: ORIGIN } as unknown as string }),
      TypeError,
    );
  });

  it('rejects malformed version-2 members as RECEIPT_MALFORMED', async () => {
    const receipt = await buildReceipt2();
    const { checkpoint: _c, ...withoutCheckpoint } = receipt;
    const { inclusion: _i, ...withoutInclusion } = receipt;
    const [first, ...others] = receipt.inclusion;
    const firstProof = first?.proof ?? [];
    const cases: unknown[] = [
      withoutCheckpoint,
      withoutInclusion,
      { ...receipt, checkpoint: '' },
      { ...receipt, checkpoint: 42 },
      { ...receipt, inclusion: {} },
      { ...receipt, inclusion: others },
      { ...receipt, inclusion: [...receipt.inclusion, first] },
      { ...receipt, inclusion: [{ ...first, index: (first?.index ?? 0) + 1 }, ...others] },
      { ...receipt, inclusion: [...others, first] },
      { ...receipt, inclusion: [{ ...first, extra: true }, ...others] },
      { ...receipt, inclusion: [{ index: first?.index }, ...others] },
      { ...receipt, inclusion: [{ ...first, proof: [firstProof[0]?.toUpperCase()] }, ...others] },
      { ...receipt, inclusion: [{ ...first, proof: ['ab'] }, ...others] },
      { ...receipt, inclusion: [null, ...others] },
      { ...receipt, receiptVersion: 3 },
      { ...(await buildReceipt()), inclusion: receipt.inclusion },
      { ...(await buildReceipt()), checkpoint: receipt.checkpoint },
      { ...receipt, receiptVersion: 1 },
    ];
    for (const value of cases) assertInvalid(await verify2(value), 'RECEIPT_MALFORMED');
  });

  it('fails with CHECKPOINT_INVALID for a note not signed by the pinned log key, of another tenant, or for another size', async () => {
    const receipt = await buildReceipt2({ headIndex: 9 });
    const leaves = chain.map((entry) => entry.entryHash);
    const size = receipt.seal.headIndex + 1;
    // A forger signs the true tree under the real origin: only the pinned key tells them apart.
    assertInvalid(
      await verify2({ ...receipt, checkpoint: note(leaves, size, forgedLog) }),
      'CHECKPOINT_INVALID',
    );
    // Another tenant's log, verified with that tenant's own key: valid note, wrong log.
    assertInvalid(
      await verify2(
        { ...receipt, checkpoint: note(leaves, size, otherTenantLog) },
        otherTenantLog.verifierKey,
      ),
      'CHECKPOINT_INVALID',
    );
    // The pinned key, but a note of another log: the origin is not the key's name.
    assertInvalid(
      await verify2({ ...receipt, checkpoint: note(leaves, size, otherTenantLog) }),
      'CHECKPOINT_INVALID',
    );
    for (const other of [size - 1, size + 1]) {
      assertInvalid(await verify2({ ...receipt, checkpoint: note(leaves, other) }), 'CHECKPOINT_INVALID');
    }
    assertInvalid(await verify2({ ...receipt, checkpoint: 'not a note' }), 'CHECKPOINT_INVALID');
  });

  it('fails with INCLUSION_PROOF_INVALID for a re-signed checkpoint of a rewritten or truncated history', async () => {
    const receipt = await buildReceipt2();
    const size = receipt.seal.headIndex + 1;
    // The log rewrote entry 5 (not one of the receipt's) and signed the new tree with its real key.
    const rewritten = chain.map((entry) => entry.entryHash);
    rewritten[5] = flipHex(rewritten[5] ?? ZEROS);
    assertInvalid(
      await verify2({ ...receipt, checkpoint: note(rewritten, size) }),
      'INCLUSION_PROOF_INVALID',
    );
    // A tree whose last entry was dropped and replaced: same size, another history.
    const replaced = chain.map((entry) => entry.entryHash);
    replaced[size - 1] = flipHex(replaced[size - 1] ?? ZEROS);
    assertInvalid(await verify2({ ...receipt, checkpoint: note(replaced, size) }), 'INCLUSION_PROOF_INVALID');
  });

  it('fails with INCLUSION_PROOF_INVALID for a proof of another index, or a changed, missing or extra element', async () => {
    const receipt = await buildReceipt2();
    const size = receipt.seal.headIndex + 1;
    const tree = new ReferenceTree(chain.map((entry) => toBytes(entry.entryHash)));
    const [first, second, ...rest] = receipt.inclusion;
    if (!first || !second) throw new Error('the test intent has several entries');
    const withFirst = (proof: string[]) => ({
      ...receipt,
      inclusion: [{ ...first, proof }, second, ...rest],
    });
    const otherIndex = tree.path(first.index + 1, size).map(toHex);
    const cases = [
      withFirst(otherIndex),
      withFirst(second.proof),
      withFirst(first.proof.slice(0, -1)),
      withFirst([...first.proof, first.proof[0] ?? ZEROS]),
      withFirst([]),
      ...first.proof.map((_, position) =>
        withFirst(first.proof.map((hash, at) => (at === position ? flipHex(hash) : hash))),
      ),
    ];
    for (const value of cases) assertInvalid(await verify2(value), 'INCLUSION_PROOF_INVALID');
  });

  it('checks the seal before the checkpoint, and the token after the proofs', async () => {
    const receipt = await buildReceipt2();
    const broken = { ...receipt, checkpoint: 'not a note' };
    assertInvalid(
      await verify2({ ...broken, seal: { ...broken.seal, signature: flipChar(broken.seal.signature, 10) } }),
      'SEAL_SIGNATURE_INVALID',
    );
    const forgedToken = {
      ...receipt,
      token: await mintToken(forger),
      inclusion: receipt.inclusion.map((item) => ({ ...item, proof: [] })),
    };
    assertInvalid(await verify2(forgedToken), 'INCLUSION_PROOF_INVALID');
  });

  it('never verifies when any one character of the checkpoint changes', async () => {
    const receipt = await buildReceipt2();
    for (let position = 0; position < receipt.checkpoint.length; position += 1) {
      const checkpoint = flipChar(receipt.checkpoint, position);
      if (checkpoint === receipt.checkpoint) continue;
      const result = await verify2({ ...receipt, checkpoint });
      assert.equal(result.valid, false, `position ${position} of the checkpoint`);
    }
  });
});
