import { setTimeout as sleep } from 'node:timers/promises';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, TENANT_HEADER } from '../wire/constants.js';
import type { WireRoute } from '../wire/route.js';
import { AuthorityApiError, RETRYABLE_STATUSES } from './api-error.js';
import { type BackoffSettings, backoffDelay, parseRetryAfter } from './backoff.js';

/** Options of every call: cancel it, bound each attempt, name the request. */
export interface CallOptions {
  /** Cancels the call, retries and waits included: it then throws `ABORTED` (or `TIMEOUT` for `AbortSignal.timeout`). */
  signal?: AbortSignal;
  /** Bounds each attempt of this call, ms (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** Sent as `x-request-id` (`^[A-Za-z0-9._:-]{1,128}$`); the service makes one up otherwise. */
  requestId?: string;
}

/**
 * Which failures a call may repeat. `safe`: every retryable status, network failure and timeout
 * (reads, PUT and DELETE, calls with an `Idempotency-Key`, and calls whose repetition changes
 * nothing). `unprocessed`: only answers that prove the request was not processed (429, and a
 * connection that could not be opened), for calls that would act twice.
 */
export type RetryMode = 'safe' | 'unprocessed';

/** One call: the route, what fills it, and how it may be retried. */
export interface Call {
  route: WireRoute;
  params?: Readonly<Record<string, string | number>>;
  query?: object | undefined;
  body?: unknown;
  /** Sent as `Idempotency-Key` on every attempt. */
  idempotencyKey?: string;
  retry: RetryMode;
  options?: CallOptions | undefined;
}

/** The final answer of a call (after retries): any status, the parsed JSON body. */
export interface Answer {
  status: number;
  body: unknown;
  requestId: string | undefined;
  headers: Headers;
}

/** The settings every call shares. */
export interface TransportSettings {
  baseUrl: string;
  tenantId: string;
  apiKey: string;
  timeoutMs: number;
  maxAttempts: number;
  fetch: typeof fetch;
  backoff: BackoffSettings;
  random: () => number;
}

/** Connection errors that prove the request never reached the service. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * @internal
 * The error of a call whose `signal` fired: `TIMEOUT` for `AbortSignal.timeout`, else `ABORTED`.
 *
 * @example
 * ```ts
 * if (signal.aborted) throw aborted(signal);
 * ```
 */
export function aborted(signal: AbortSignal): AuthorityApiError {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof DOMException && reason.name === 'TimeoutError';
  return new AuthorityApiError({
    status: 0,
    code: timedOut ? 'TIMEOUT' : 'ABORTED',
    message: timedOut ? 'The call timed out' : 'The call was aborted',
    retryable: timedOut,
    cause: reason,
  });
}

/**
 * @internal
 * The HTTP side of {@link AuthorityClient}: URLs, headers, timeouts, JSON, and the retry policy of
 * contract §13.1 (429, 500, 502, 503, 504, network failures and timeouts retried with exponential
 * backoff and full jitter up to `maxAttempts`, `retry-after` honoured; every other status final;
 * one `Idempotency-Key` for every attempt of a call).
 *
 * @example
 * ```ts
 * const answer = await transport.send({ route: WIRE_ROUTES.getIntent, params: { id }, retry: 'safe' });
 * ```
 */
export class Transport {
  readonly #settings: TransportSettings;
  readonly #root: string;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
    const base = new URL(settings.baseUrl);
    if (base.protocol !== 'https:' && base.protocol !== 'http:') {
      throw new TypeError('AuthorityClient: baseUrl must be an http(s) URL');
    }
    this.#root = `${base.origin}${base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
  }

  /** The URL of a route: path parameters filled, the query appended, physical routes under `/v1`. */
  url(call: Pick<Call, 'route' | 'params' | 'query'>): URL {
    const path = call.route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
      const value = call.params?.[name];
      if (value === undefined)
        throw new TypeError(`${call.route.operationId}: missing path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const url = new URL(`${this.#root}${path.startsWith('/physical/') ? `/v1${path}` : path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** Sends a call, retrying as its {@link RetryMode} allows; resolves the final answer, whatever its status. */
  async send(call: Call): Promise<Answer> {
    const { answer } = await this.#attempts(call, false);
    return answer;
  }

  /**
   * Like {@link send}, but resolves the 2xx `Response` itself so that its body can be streamed;
   * the attempt's timeout covers the wait for the answer's headers, not the streaming.
   */
  async stream(call: Call): Promise<Response> {
    const { answer, response } = await this.#attempts(call, true);
    if (response) return response;
    throw errorFromAnswer(answer);
  }

  async #attempts(call: Call, streaming: boolean): Promise<{ answer: Answer; response?: Response }> {
    const { maxAttempts } = this.#settings;
    const signal = call.options?.signal;
    const url = this.url(call);
    const init = this.#init(call);
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw aborted(signal);
      const timeout = new AbortController();
      const timer = setTimeout(
        () => timeout.abort(new DOMException('The attempt timed out', 'TimeoutError')),
        call.options?.timeoutMs ?? this.#settings.timeoutMs,
      );
      const attemptSignal = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
      let answer: Answer;
      try {
        const response = await this.#settings.fetch(url, { ...init, signal: attemptSignal });
        const headers = {
          requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined,
          headers: response.headers,
        };
        if (streaming && response.ok)
          return { answer: { status: response.status, body: null, ...headers }, response };
        answer = { status: response.status, body: await readJson(response), ...headers };
      } catch (error) {
        if (signal?.aborted) throw aborted(signal);
        const failure = transportFailure(error, timeout.signal.aborted);
        const retry = call.retry === 'safe' || NOT_SENT.has(causeCode(error) ?? '');
        if (!retry || attempt >= maxAttempts) throw failure;
        await this.#wait(backoffDelay(attempt, this.#settings.backoff, this.#settings.random), signal);
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (!RETRYABLE_STATUSES.includes(answer.status) || attempt >= maxAttempts) return { answer };
      if (call.retry === 'unprocessed' && answer.status !== 429) return { answer };
      const asked = parseRetryAfter(answer.headers.get('retry-after'), Date.now());
      if (asked !== undefined && asked > this.#settings.backoff.maxRetryAfterMs) return { answer };
      await this.#wait(asked ?? backoffDelay(attempt, this.#settings.backoff, this.#settings.random), signal);
    }
  }

  #init(call: Call): RequestInit {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#settings.apiKey}`,
      accept: 'application/json',
    };
    if (call.route.security === 'tenant') headers[TENANT_HEADER] = this.#settings.tenantId;
    if (call.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = call.idempotencyKey;
    if (call.options?.requestId !== undefined) headers[REQUEST_ID_HEADER] = call.options.requestId;
    // A redirect is an answer, not a failure to get one: kept with its status (INVALID_RESPONSE
    // for the route, never retried) and never followed, so the key goes nowhere else.
    const init: RequestInit = { method: call.route.method, headers, redirect: 'manual' };
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(call.body);
    }
    return init;
  }

  async #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(ms, undefined, signal ? { signal } : undefined);
    } catch (error) {
      if (signal?.aborted) throw aborted(signal);
      throw error;
    }
  }
}

function transportFailure(error: unknown, timedOut: boolean): AuthorityApiError {
  const detail = error instanceof Error ? error.message : String(error);
  return new AuthorityApiError({
    status: 0,
    code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
    message: timedOut ? 'The service did not answer in time' : `The service could not be reached: ${detail}`,
    retryable: true,
    cause: error,
  });
}

/** The parsed JSON body, `null` for an empty one, the text itself when it is not JSON. */
async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @internal
 * The {@link AuthorityApiError} of an answer that is not the expected one: the envelope's fields
 * when it has one, else `INVALID_RESPONSE` with the status.
 *
 * @example
 * ```ts
 * if (answer.status !== 200) throw errorFromAnswer(answer);
 * ```
 */
export function errorFromAnswer(answer: Answer, message?: string): AuthorityApiError {
  const retryable = RETRYABLE_STATUSES.includes(answer.status);
  const retryAfterMs =
    answer.status === 429 ? parseRetryAfter(answer.headers.get('retry-after'), Date.now()) : undefined;
  const envelope = isRecord(answer.body) && isRecord(answer.body.error) ? answer.body.error : undefined;
  if (envelope && typeof envelope.code === 'string' && message === undefined) {
    return new AuthorityApiError({
      status: answer.status,
      code: envelope.code,
      message: typeof envelope.message === 'string' ? envelope.message : `HTTP ${answer.status}`,
      details: isRecord(envelope.details) ? envelope.details : undefined,
      requestId: typeof envelope.requestId === 'string' ? envelope.requestId : answer.requestId,
      retryable,
      retryAfterMs,
    });
  }
  return new AuthorityApiError({
    status: answer.status,
    code: 'INVALID_RESPONSE',
    message: message ?? `Unexpected answer: HTTP ${answer.status}`,
    requestId: answer.requestId,
    retryable,
    retryAfterMs,
  });
}
