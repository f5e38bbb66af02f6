import { loadSession } from '../session/session.js';

/** An answer in the error envelope of contract §1 (both surfaces), or a transport failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The reason the server gave in `details.reason`, if any. */
  get reason(): string | undefined {
    const reason = this.details?.reason;
    return typeof reason === 'string' ? reason : undefined;
  }
}

type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  body?: unknown;
  query?: Query;
  /** Answer the body as text (NDJSON export) instead of JSON. */
  text?: boolean;
  /** Send no session headers (sign-in). */
  anonymous?: boolean;
}

/** Called when the server says the portal session is gone (401 on a session request). */
let sessionLost: (error: ApiError) => void = () => {};
export function onSessionLost(handler: (error: ApiError) => void): void {
  sessionLost = handler;
}

export function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

async function errorOf(response: Response): Promise<ApiError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  try {
    const body = (await response.json()) as {
      error?: { code?: string; message?: string; details?: Record<string, unknown>; requestId?: string };
    };
    const error = body.error ?? {};
    return new ApiError(
      response.status,
      error.code ?? `HTTP_${response.status}`,
      error.message ?? response.statusText,
      error.details,
      error.requestId ?? requestId,
    );
  } catch {
    return new ApiError(
      response.status,
      `HTTP_${response.status}`,
      response.statusText,
      undefined,
      requestId,
    );
  }
}

/**
 * One request to the service's public API, on the console's own origin. The portal session and
 * tenant go as headers; errors are thrown as ApiError, and a lost session is reported once.
 */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const session = options.anonymous ? null : loadSession();
  if (session) {
    headers['x-portal-session-id'] = session.sessionId;
    headers['x-tenant-id'] = session.tenantId;
  }
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(
      0,
      'NETWORK_ERROR',
      'The service did not answer: the network or the service is down. What you asked for may or may not have been done; reload the page to see.',
      undefined,
      undefined,
    );
  }
  if (!response.ok) {
    const error = await errorOf(response);
    // A wrong second-factor code is a 401 that keeps the session, unless it was one too many.
    const lost =
      error.code === 'INVALID_PORTAL_SESSION' ||
      (error.status === 401 && (!path.startsWith('/portal/mfa') || error.details?.sessionEnded === true));
    if (session !== null && lost) sessionLost(error);
    throw error;
  }
  if (response.status === 204) return null as T;
  if (options.text) return (await response.text()) as T;
  return (await response.json()) as T;
}

/** The tenant of the signed-in session, for routes that name it in the path. */
export function tenantId(): string {
  return loadSession()?.tenantId ?? '';
}
