/**
 * Codes the client gives failures that carry no error envelope of the service (`status` 0 for the
 * first three):
 *
 * - `NETWORK_ERROR`: the request could not be sent or its answer not received (refused, reset,
 *   DNS failure). Retried like a 503.
 * - `TIMEOUT`: an attempt took longer than `timeoutMs`, or the call's `signal` fired with a
 *   `TimeoutError` (`AbortSignal.timeout`).
 * - `ABORTED`: the call's `signal` was aborted by its owner. Never retried.
 * - `INVALID_RESPONSE`: the service answered (its status is kept) with a body that is not JSON, not
 *   the documented shape where the client relies on it, or a status the route does not document.
 *
 * @example
 * ```ts
 * import { AuthorityApiError, CLIENT_ERROR_CODES } from '@authority-runtime/sdk';
 *
 * CLIENT_ERROR_CODES.includes('TIMEOUT'); // true
 * ```
 */
export const CLIENT_ERROR_CODES = ['NETWORK_ERROR', 'TIMEOUT', 'ABORTED', 'INVALID_RESPONSE'] as const;

/** One of {@link CLIENT_ERROR_CODES}. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/** The statuses the retry policy repeats (contract §13.1), besides network failures and timeouts. */
export const RETRYABLE_STATUSES: readonly number[] = [429, 500, 502, 503, 504];

/**
 * Everything a call of {@link AuthorityClient} throws that is not a decision: an error answer of
 * the service (its envelope's `code`, `message`, `details`, `requestId`), or a transport failure
 * (`status` 0, a {@link ClientErrorCode}). Decisions are results, never errors: a DENIED intent, an
 * ESCALATED one, a physical DENY, a token that does not verify.
 *
 * `retryable` says whether the same call may succeed later (the statuses of the retry policy,
 * network failures and timeouts); the client has already retried it up to `maxAttempts` times.
 *
 * @example
 * ```ts
 * import { AuthorityApiError } from '@authority-runtime/sdk';
 *
 * try {
 *   await client.submitIntent(request);
 * } catch (error) {
 *   if (error instanceof AuthorityApiError && error.code === 'AUTHORITY_LOOP_FAILED') {
 *     // fail closed: the action is not authorized
 *   }
 *   throw error;
 * }
 * ```
 */
export class AuthorityApiError extends Error {
  override readonly name = 'AuthorityApiError';
  /** The HTTP status, or 0 when no answer was received. */
  readonly status: number;
  /** The envelope's code (`VALIDATION_ERROR`, `not_found`, …) or a {@link ClientErrorCode}. */
  readonly code: string;
  /** The envelope's `details` (validation issues, the missing permission, a conflict's status …). */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** The request id (the envelope's, else the `x-request-id` header); `undefined` without an answer. */
  readonly requestId: string | undefined;
  /** Whether the same call may succeed later. */
  readonly retryable: boolean;
  /**
   * On a 429, the wait the `retry-after` header asked for, ms (the client retries by itself only
   * up to `backoff.maxRetryAfterMs`); `undefined` otherwise or without a readable header.
   */
  readonly retryAfterMs: number | undefined;

  /**
   * @param fields What went wrong; `cause` is the underlying error of a transport failure.
   */
  constructor(fields: {
    status: number;
    code: string;
    message: string;
    details?: Readonly<Record<string, unknown>> | undefined;
    requestId?: string | undefined;
    retryable: boolean;
    retryAfterMs?: number | undefined;
    cause?: unknown;
  }) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.status = fields.status;
    this.code = fields.code;
    this.details = fields.details;
    this.requestId = fields.requestId;
    this.retryable = fields.retryable;
    this.retryAfterMs = fields.retryAfterMs;
  }
}
