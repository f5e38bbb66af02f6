/**
 * Thrown by a {@link NonceStore} when it cannot confirm whether a nonce was used before.
 *
 * `verifyAuthorityToken` never lets this escape: it maps it to a failed result. When `kind` is
 * `'rejected'` and `remoteReason` is a known verification reason (the service's consume endpoint
 * answered `{valid: false, reason}` with a reason other than `NONCE_ALREADY_CONSUMED`), that reason
 * is reported; otherwise the reason is `NONCE_STORE_UNAVAILABLE`.
 *
 * @example
 * ```ts
 * import { NonceStoreError, type NonceStore } from '@authority-runtime/sdk';
 *
 * const redisStore: NonceStore = {
 *   async consume(nonce, expiresAtMs) {
 *     try {
 *       return (await redis.set(`nonce:${nonce}`, '1', 'PXAT', expiresAtMs, 'NX')) === 'OK';
 *     } catch (error) {
 *       throw new NonceStoreError('unavailable', 'redis unreachable', { cause: error });
 *     }
 *   },
 * };
 * ```
 */
export class NonceStoreError extends Error {
  override readonly name = 'NonceStoreError';

  /**
   * @param kind `'unavailable'`: the store could not answer; `'rejected'`: the store answered with
   *   a rejection other than "already consumed" (see `remoteReason`).
   * @param message Human-readable detail, for logs.
   * @param options `remoteReason`: the reason the remote store gave; `cause`: the underlying error.
   */
  constructor(
    readonly kind: 'unavailable' | 'rejected',
    message: string,
    options: { remoteReason?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.remoteReason = options.remoteReason;
  }

  /** The reason string returned by a remote store, when it gave one. */
  readonly remoteReason: string | undefined;
}

/**
 * Thrown by a {@link KeySource} when it has no key set at all to look the kid up in (for example
 * the JWKS endpoint could not be reached and nothing is cached). `verifyAuthorityToken` maps it to
 * `{valid: false, reason: 'KEY_SOURCE_UNAVAILABLE'}`.
 *
 * @example
 * ```ts
 * import { KeySourceError, type KeySource } from '@authority-runtime/sdk';
 *
 * const fromVault: KeySource = {
 *   async getKey(kid) {
 *     const keys = await vault.readJwks().catch((cause) => {
 *       throw new KeySourceError('vault unreachable', { cause });
 *     });
 *     return keys.find((key) => key.kid === kid);
 *   },
 * };
 * ```
 */
export class KeySourceError extends Error {
  override readonly name = 'KeySourceError';

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
