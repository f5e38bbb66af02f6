import type { JWK } from 'jose';

/** The signature algorithms an Authority Decision Token can be signed with. */
export const SUPPORTED_ALGORITHMS = ['EdDSA', 'RS256', 'ES256'] as const;

/** One of {@link SUPPORTED_ALGORITHMS}. */
export type SupportedAlgorithm = (typeof SUPPORTED_ALGORITHMS)[number];

/**
 * @internal
 * Returns the algorithm a public JWK is bound to, or a description of why the key is unusable.
 * The algorithm comes from the key's own `alg` member and must match its type (`OKP`/`Ed25519` for
 * EdDSA, `EC`/`P-256` for ES256, `RSA` for RS256). Symmetric (`oct`) keys are never usable.
 *
 * @example
 * ```ts
 * keyAlgorithm({ kty: 'OKP', crv: 'Ed25519', x: '...', alg: 'EdDSA' }); // { alg: 'EdDSA' }
 * keyAlgorithm({ kty: 'oct', k: '...', alg: 'HS256' }); // { problem: 'unsupported key algorithm "HS256"' }
 * ```
 */
export function keyAlgorithm(jwk: JWK): { alg: SupportedAlgorithm } | { problem: string } {
  const { alg, kty, crv } = jwk;
  if (typeof alg !== 'string') return { problem: 'the key has no alg member' };
  switch (alg) {
    case 'EdDSA':
      return kty === 'OKP' && crv === 'Ed25519'
        ? { alg: 'EdDSA' }
        : { problem: 'EdDSA needs an OKP Ed25519 key' };
    case 'ES256':
      return kty === 'EC' && crv === 'P-256' ? { alg: 'ES256' } : { problem: 'ES256 needs an EC P-256 key' };
    case 'RS256':
      return kty === 'RSA' ? { alg: 'RS256' } : { problem: 'RS256 needs an RSA key' };
    default:
      return { problem: `unsupported key algorithm ${JSON.stringify(alg)}` };
  }
}

/**
 * @internal
 * Only the public members of a key, so that private material never reaches the verifier.
 *
 * @example
 * ```ts
 * publicPart({ kty: 'OKP', crv: 'Ed25519', x: 'pub', d: 'secret', alg: 'EdDSA' });
 * // { kty: 'OKP', crv: 'Ed25519', x: 'pub' }
 * ```
 */
export function publicPart(jwk: JWK): JWK {
  const out: JWK = {};
  for (const name of ['kty', 'crv', 'x', 'y', 'n', 'e'] as const) {
    const value = jwk[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/**
 * @internal
 * A non-null, non-array object.
 *
 * @example
 * ```ts
 * isRecord({}); // true
 * isRecord([]); // false
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
