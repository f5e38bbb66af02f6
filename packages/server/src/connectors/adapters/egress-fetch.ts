import type { EgressClient, EgressRequest } from '../../egress/egress-client.js';
import { DeadlineError } from './adapter-outcome.js';

const METHODS = new Set<EgressRequest['method']>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Statuses whose responses carry no body (the Fetch standard refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
}

/**
 * A `fetch` for Octokit's `request.fetch` option built on the egress client, so GitHub traffic
 * (any baseUrl) takes the same guarded path as every other outbound call: private addresses refused
 * at connect time, no redirects, and each request bounded by what is left of `deadline`
 * (`performance.now()` milliseconds). Octokit passes string URLs, plain header objects and string
 * bodies; anything else is refused rather than guessed at.
 */
export function egressFetch(egress: EgressClient, deadline: number) {
  return async (url: string, init: FetchInit = {}): Promise<Response> => {
    const method = (init.method ?? 'GET').toUpperCase() as EgressRequest['method'];
    if (!METHODS.has(method)) throw new TypeError(`egress fetch: unsupported method ${method}`);
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      throw new TypeError('egress fetch: only string bodies are supported');
    }
    const remaining = Math.floor(deadline - performance.now());
    if (remaining <= 0) throw new DeadlineError();
    const answer = await egress.request({
      method,
      url,
      headers: init.headers ?? {},
      ...(typeof init.body === 'string' ? { body: init.body } : {}),
      timeoutMs: remaining,
    });
    return new Response(NULL_BODY.has(answer.status) ? null : answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  };
}
