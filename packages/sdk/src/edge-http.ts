import { describe } from './jws.js';
import { isRecord } from './keys.js';

/**
 * Thrown by the edge verifier's calls to the service (`sync()`, `flushReports()`) when a call
 * fails: the network failed or timed out (`status` undefined), the service answered a non-2xx
 * status (`status` and, from the error envelope, `code`), or the answer did not have the
 * documented shape.
 *
 * @example
 * ```ts
 * import { EdgeServiceError } from '@authority-runtime/sdk';
 *
 * try {
 *   await verifier.sync();
 * } catch (error) {
 *   if (error instanceof EdgeServiceError && error.status === 401) alertOperator('bad API key');
 * }
 * ```
 */
export class EdgeServiceError extends Error {
  override readonly name = 'EdgeServiceError';

  /**
   * @param message Human-readable detail, for logs (never contains the API key).
   * @param status The HTTP status, when the service answered.
   * @param code The `error.code` of the service's error envelope, when it sent one.
   * @param options `cause`: the underlying error.
   */
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** @internal The three service URLs the edge verifier uses. */
export interface EdgeEndpoints {
  /** `GET {origin}/.well-known/jwks.json`: the physical signer's public keys (public route). */
  jwks: URL;
  /** `GET {base}/v1/physical/revocations?since=`. */
  revocations: URL;
  /** `POST {base}/v1/physical/verifications`. */
  verifications: URL;
  /** `{base}` as a string, no trailing `/`: what the service writes in `iss` (its PUBLIC_BASE_URL). */
  issuer: string;
}

/**
 * @internal
 * Derives the endpoints from a base URL such as `https://authority.example.com` (a path prefix
 * and a trailing `/v1` are both fine; query and fragment are dropped).
 *
 * @example
 * ```ts
 * edgeEndpoints('https://authority.example.com/v1').revocations.href;
 * // 'https://authority.example.com/v1/physical/revocations'
 * ```
 */
export function edgeEndpoints(baseUrl: string): EdgeEndpoints {
  const base = new URL(baseUrl); // throws TypeError on a malformed URL: programmer misuse
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new TypeError('EdgeVerifier: baseUrl must be an http(s) URL');
  }
  const root = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  const at = (path: string): URL => new URL(`${base.origin}${root}${path}`);
  return {
    issuer: `${base.origin}${root}`,
    jwks: at('/.well-known/jwks.json'),
    revocations: at('/v1/physical/revocations'),
    verifications: at('/v1/physical/verifications'),
  };
}

/** @internal How the edge verifier authenticates and bounds its calls. */
export interface EdgeCallContext {
  fetch: typeof fetch;
  apiKey: string;
  tenantId: string;
  timeoutMs: number;
}

/**
 * @internal
 * One authenticated JSON call to the service: `Authorization: Bearer <apiKey>`, `x-tenant-id`,
 * `Content-Type: application/json` (document 02 asks for all three on every call), no redirects
 * (the key must not follow one), a timeout. Resolves the parsed 2xx body; throws
 * {@link EdgeServiceError} otherwise.
 *
 * @example
 * ```ts
 * const page = await callService(context, 'GET', new URL('https://authority.example.com/v1/physical/revocations?since=0'));
 * ```
 */
export async function callService(
  context: EdgeCallContext,
  method: 'GET' | 'POST',
  url: URL,
  body?: unknown,
): Promise<unknown> {
  const what = `${method} ${url.pathname}`;
  let response: Response;
  try {
    response = await context.fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${context.apiKey}`,
        'x-tenant-id': context.tenantId,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(context.timeoutMs),
    });
  } catch (error) {
    throw new EdgeServiceError(`${what} failed: ${describe(error)}`, undefined, undefined, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch (error) {
    throw new EdgeServiceError(
      `${what} answered HTTP ${response.status} without JSON`,
      response.status,
      undefined,
      {
        cause: error,
      },
    );
  }
  if (response.status < 200 || response.status > 299) {
    const envelope = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
    const code = typeof envelope?.code === 'string' ? envelope.code : undefined;
    throw new EdgeServiceError(
      `${what} answered HTTP ${response.status}${code ? ` ${code}` : ''}`,
      response.status,
      code,
    );
  }
  return parsed;
}
