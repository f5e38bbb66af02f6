import { EgressRefusedError, EgressTimeoutError } from '../../egress/egress-client.js';
import { clipText } from '../../foundation/text.js';

/**
 * Why an adapter that passed the token check did not complete (contract §8 names `TIMEOUT`):
 * - `TIMEOUT`: no outcome within CONNECTOR_TIMEOUT_MS.
 * - `EGRESS_REFUSED`: the target resolves to a private, loopback or link-local address the
 *   operator did not open.
 * - `UNREACHABLE`: no answer (DNS failure, refused or reset connection).
 * - `HTTP_ERROR`: the peer answered with a status that is not success; `result.statusCode` says which.
 * - `INVALID_ARGS`: the intent's `args` do not describe an operation the adapter performs.
 * - `ADAPTER_ERROR`: the adapter could not run at all (its stored secrets could not be opened, a
 *   bug); the cause goes to the log, never to the response.
 */
export const FAILURE_REASONS = [
  'TIMEOUT',
  'EGRESS_REFUSED',
  'UNREACHABLE',
  'HTTP_ERROR',
  'INVALID_ARGS',
  'ADAPTER_ERROR',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** What an adapter reports after the token was accepted. */
export type AdapterOutcome =
  | { status: 'executed'; result: Record<string, unknown> }
  | { status: 'failed'; reason: FailureReason; result?: Record<string, unknown> };

/** Raised when the time given to an adapter ran out before it could start another request. */
export class DeadlineError extends Error {
  constructor() {
    super('the connector timeout elapsed');
    this.name = 'DeadlineError';
  }
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 5) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/** The failure reason of an error thrown by the egress client (possibly wrapped, as Octokit does). */
export function transportFailure(error: unknown): FailureReason {
  const chain = causes(error);
  if (chain.some((e) => e instanceof EgressTimeoutError || e instanceof DeadlineError)) return 'TIMEOUT';
  if (chain.some((e) => e instanceof EgressRefusedError)) return 'EGRESS_REFUSED';
  return 'UNREACHABLE';
}

/**
 * A short, secret-free description of a transport failure, for `lastError` and test answers. A
 * timeout names the connector timeout (`timeoutMs`), not what was left of it for the last request.
 */
export function describeTransportFailure(error: unknown, timeoutMs: number): string {
  const chain = causes(error);
  const root = chain[chain.length - 1];
  const reason = transportFailure(error);
  if (reason === 'TIMEOUT') return `TIMEOUT: no answer within ${timeoutMs} ms`;
  if (root instanceof Error) {
    const code = (root as { code?: unknown }).code;
    return clipText(`${reason}: ${typeof code === 'string' ? `${code} ` : ''}${root.message}`, 300);
  }
  return reason;
}

const MAX_JSON_BODY = 16_384;

/**
 * A peer's answer body as a result member: JSON when it parses and is at most 16 KiB, else the
 * text cut to 1,000 characters (the result is stored with the intent).
 */
export function answerBody(text: string): unknown {
  if (text === '') return null;
  if (text.length > MAX_JSON_BODY) return `${clipText(text, 999)}…`;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.length > 1_000 ? `${clipText(text, 999)}…` : text;
  }
}
