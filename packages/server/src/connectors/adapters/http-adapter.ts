import type { AdapterCall, AdapterIo, ProbeOutcome } from './adapter.js';
import {
  type AdapterOutcome,
  answerBody,
  DeadlineError,
  describeTransportFailure,
  transportFailure,
} from './adapter-outcome.js';
import type { HttpSecrets, HttpSettings } from './connector-config.js';

function remaining(io: AdapterIo): number {
  const left = Math.floor(io.deadline - performance.now());
  if (left <= 0) throw new DeadlineError();
  return left;
}

/**
 * The http adapter (contract §8): POSTs `{intentId, proposedAction, targetSystem, args}` with
 * `Authorization: Bearer <token>` to the configured URL. A 2xx answer is `executed`; any other
 * answer is `failed` with HTTP_ERROR (redirects are not followed). `args` is null when the intent
 * had none.
 */
export async function executeHttp(
  settings: HttpSettings,
  secrets: HttpSecrets,
  call: AdapterCall,
  io: AdapterIo,
): Promise<AdapterOutcome> {
  const body = JSON.stringify({
    intentId: call.intentId,
    proposedAction: call.proposedAction,
    targetSystem: call.targetSystem,
    args: call.args ?? null,
  });
  let answer: { status: number; body: string };
  try {
    answer = await io.egress.request({
      method: 'POST',
      url: settings.url,
      headers: {
        ...secrets.headers,
        'user-agent': io.userAgent,
        'content-type': 'application/json',
        authorization: `Bearer ${call.token}`,
      },
      body,
      timeoutMs: remaining(io),
    });
  } catch (error) {
    return {
      status: 'failed',
      reason: transportFailure(error),
      result: { error: describeTransportFailure(error, io.timeoutMs) },
    };
  }
  const result = { statusCode: answer.status, body: answerBody(answer.body) };
  if (answer.status >= 200 && answer.status < 300) return { status: 'executed', result };
  return { status: 'failed', reason: 'HTTP_ERROR', result };
}

/**
 * A real round trip: GET `healthUrl` (or the URL itself) with the configured headers. Any answer
 * below 500 proves the receiver is up (its execution URL may well answer 404 or 405 to a GET); a
 * 5xx answer is a receiver in trouble.
 */
export async function probeHttp(
  settings: HttpSettings,
  secrets: HttpSecrets,
  io: AdapterIo,
): Promise<ProbeOutcome> {
  try {
    const answer = await io.egress.request({
      method: 'GET',
      url: settings.healthUrl ?? settings.url,
      headers: { ...secrets.headers, 'user-agent': io.userAgent },
      timeoutMs: remaining(io),
    });
    if (answer.status < 500) return { answered: true, ok: true };
    return { answered: true, ok: false, error: `HTTP ${answer.status}` };
  } catch (error) {
    return { answered: false, ok: false, error: describeTransportFailure(error, io.timeoutMs) };
  }
}
