// Receipt vectors: receipts of version 1 (contract §6) and version 2 (contract §15,
// receipt-v2-vectors.ts) as the service issues them and tampered in each way a verifier must catch,
// with the reason it reports. The chain and the seals come from receipt-chain.ts.
import {
  buildChain,
  buildReceipt,
  clone,
  INTENT,
  type Json,
  OTHER_INTENT,
  type ReceiptVector,
  rehash,
  SEAL_TYP,
  type Spec,
  signSeal,
} from './receipt-chain.js';
import { receiptV2Vectors } from './receipt-v2-vectors.js';
import { type Expectation, TENANT } from './token-vectors.js';
import { ALGS, type Alg, key, type VectorKey } from './vector-keys.js';

/**
 * Every receipt vector, the key set a verifier pins (the tenant's JWKS plus its archive) and the
 * tenant's log key.
 *
 * @example
 * ```ts
 * const { pinnedJwks, pinnedLogKey, vectors } = receiptVectors(loadVectorKeys(file));
 * ```
 */
export function receiptVectors(keys: Record<string, VectorKey>) {
  const VALID: Expectation = { valid: true, reason: null };
  const fails = (reason: string): Expectation => ({ valid: false, reason });
  const active = (alg: Alg) => key(keys, `${alg}/active`);
  const ed = active('EdDSA');
  const current = { keys: ALGS.map((alg) => active(alg).publicJwk) };
  const pinned = { keys: [...current.keys, ...ALGS.map((alg) => key(keys, `${alg}/retired`).publicJwk)] };
  const chain = buildChain();
  const vectors: ReceiptVector[] = [];
  const add = (name: string, description: string, receipt: Json, expected: Expectation, tenant?: string) =>
    vectors.push({ name, description, expectedTenantId: tenant ?? null, logKey: null, receipt, expected });
  const receipt = (name: string, spec: Partial<Spec> = {}) =>
    buildReceipt(chain, name, { sealKey: ed, jwks: current, ...spec });

  for (const alg of ALGS) {
    add(
      `valid-${alg}`,
      `seal and token signed with ${alg}`,
      receipt(`valid-${alg}`, { sealKey: active(alg) }),
      VALID,
    );
  }
  add(
    'valid-denied-no-token',
    'a DENIED intent: no token',
    receipt('denied', { decision: 'DENIED', token: 'none' }),
    VALID,
  );
  add(
    'valid-token-retired-key',
    'the token was signed by a key retired since: the archive is pinned',
    receipt('retired', { tokenKey: key(keys, 'EdDSA/retired') }),
    VALID,
  );
  add(
    'valid-expected-tenant',
    'the expected tenant is the receipt tenant',
    receipt('tenant-ok'),
    VALID,
    TENANT,
  );

  const wrongVersion = { ...receipt('version'), receiptVersion: 3 };
  add('malformed-version', 'receiptVersion 3', wrongVersion, fails('RECEIPT_MALFORMED'));
  add(
    'malformed-unknown-member',
    'an unknown top-level member',
    { ...receipt('unknown'), extra: true },
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-no-entries',
    'an empty entries list',
    { ...receipt('empty'), entries: [] },
    fails('RECEIPT_MALFORMED'),
  );
  const badTime = clone(receipt('time'));
  (badTime.entries as Json[])[0] = {
    ...(badTime.entries as Json[])[0],
    createdAt: '2023-02-30T00:00:00.000Z',
  };
  add('malformed-created-at', 'an entry created on 30 February', badTime, fails('RECEIPT_MALFORMED'));

  add(
    'tenant-mismatch',
    'a receipt of acme checked as globex',
    receipt('tenant'),
    fails('TENANT_MISMATCH'),
    'globex',
  );

  const tampered = clone(receipt('tampered'));
  ((tampered.entries as Json[])[1]?.payload as Json).nonce = 'n-forged';
  add(
    'entry-tampered',
    "an entry's payload changed, its entryHash kept",
    tampered,
    fails('ENTRY_HASH_MISMATCH'),
  );

  const ofIntent = chain.filter((entry) => entry.intentId === INTENT);
  const relinked = ofIntent.map((entry, position) =>
    position === 0 ? rehash({ ...entry, payload: { forged: true } }) : entry,
  );
  add(
    'entry-rehashed-breaks-link',
    'the first entry rewritten and rehashed: the next entry no longer links to it',
    receipt('relinked', { entries: relinked }),
    fails('ENTRY_MISMATCH'),
  );
  const foreign = ofIntent.map((entry, position) =>
    position === 4 ? rehash({ ...entry, intentId: OTHER_INTENT }) : entry,
  );
  add(
    'entry-other-intent',
    'an entry of another intent',
    receipt('foreign', { entries: foreign }),
    fails('ENTRY_MISMATCH'),
  );

  const lastRewritten = clone(receipt('last'));
  const rewrittenEntries = lastRewritten.entries as Json[];
  rewrittenEntries[4] = rehash({ ...(rewrittenEntries[4] as Json), payload: { forged: true } });
  add(
    'seal-entry-hashes-differ',
    'the last entry rewritten and rehashed, the seal left as it was',
    lastRewritten,
    fails('SEAL_MISMATCH'),
  );
  add(
    'seal-head-before-entry',
    'a correctly signed seal whose head lies before the last entry',
    receipt('head', { headIndex: 8 }),
    fails('SEAL_MISMATCH'),
  );

  const sealTampered = clone(receipt('seal-tampered'));
  (sealTampered.seal as Json).issuedAt = '2023-11-14T22:06:00.000Z';
  add(
    'seal-field-changed',
    'seal.issuedAt changed after signing',
    sealTampered,
    fails('SEAL_SIGNATURE_INVALID'),
  );
  add(
    'seal-unpinned-key',
    'sealed by a key of the tenant that nobody pinned',
    receipt('seal-unpinned', { sealKey: key(keys, 'EdDSA/unpinned'), tokenKey: ed }),
    fails('SEAL_SIGNATURE_INVALID'),
  );
  add(
    'seal-wrong-typ',
    'a seal JWS whose typ is not authority-receipt-seal+jws',
    signSeal(receipt('seal-typ'), ed, 'JWT'),
    fails('SEAL_SIGNATURE_INVALID'),
  );

  add(
    'seal-high-s',
    'an ES256 seal signed with the high-S twin of its signature',
    signSeal(receipt('seal-high-s', { sealKey: active('ES256') }), active('ES256'), SEAL_TYP, true),
    fails('SEAL_SIGNATURE_INVALID'),
  );

  add(
    'token-other-intent',
    'a genuine token of another intent',
    receipt('token-intent', { tokenOverrides: { intentId: OTHER_INTENT } }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-forged',
    'a token signed under the real kid by another key',
    receipt('token-forged', { tokenKey: key(keys, 'EdDSA/impostor') }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-high-s',
    'an ES256 token signed with the high-S twin of its signature',
    receipt('token-high-s', { tokenKey: active('ES256'), token: 'high-s' }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-missing',
    'an APPROVED receipt without a token',
    receipt('no-token', { token: 'none' }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-on-denied',
    'a DENIED receipt carrying a token',
    receipt('denied-token', { decision: 'DENIED' }),
    fails('TOKEN_INVALID'),
  );

  add(
    'embedded-jwks-unpinned',
    'the embedded key set lists a key the verifier does not pin',
    receipt('embedded', { jwks: { keys: [...current.keys, key(keys, 'EdDSA/unpinned').publicJwk] } }),
    fails('EMBEDDED_JWKS_MISMATCH'),
  );

  const v2 = receiptV2Vectors(keys);
  return {
    description:
      'Receipts of version 1 (contract §6) and version 2 (contract §15). Verify each `receipt` offline ' +
      'against `pinnedJwks` only (the embedded jwks is never trusted), with the expected tenant ' +
      '`expectedTenantId` when not null and the log verifier key `logKey` when not null (no log key ' +
      'when null); the result must be `expected`. `pinnedLogKey` is the log key of tenant acme, which ' +
      'most version-2 vectors are given; `otherLogKeys` are the keys of other logs the attacks use. A ' +
      'vector whose receipt is not version 2 gives the same result when `pinnedLogKey` is given as well. ' +
      'Version 2 order: RECEIPT_MALFORMED, LOG_KEY_MISSING, TENANT_MISMATCH, ENTRY_HASH_MISMATCH, ' +
      'ENTRY_MISMATCH, SEAL_MISMATCH, SEAL_SIGNATURE_INVALID, CHECKPOINT_INVALID, ' +
      'INCLUSION_PROOF_INVALID, TOKEN_INVALID, EMBEDDED_JWKS_MISMATCH. Test-only keys.',
    pinnedJwks: pinned,
    pinnedLogKey: v2.pinnedLogKey,
    otherLogKeys: v2.otherLogKeys,
    witnessKey: v2.witnessKey,
    vectors: [...vectors, ...v2.vectors],
  };
}
