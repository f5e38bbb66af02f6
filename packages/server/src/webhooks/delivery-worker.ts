import type { SecretBox } from '../crypto/secret-box.js';
import {
  type EgressClient,
  EgressRefusedError,
  EgressTimeoutError,
  withoutQuery,
} from '../egress/egress-client.js';
import type { Clock } from '../foundation/clock.js';
import { createPoller } from '../foundation/poller.js';
import { SpanKind, SpanStatusCode, withSpan } from '../foundation/tracing.js';
import { VERSION } from '../foundation/version.js';
import type { Storage } from '../storage/database.js';
import { type ClaimedDelivery, deliveryRepository } from './delivery-repository.js';
import { type AttemptRecord, type RecordedStatus, recordAttempt } from './record-attempt.js';
import { nextRetryDelay, verdictOf } from './retry-schedule.js';
import { signAttempt } from './signatures.js';
import { secretContext } from './webhook-views.js';

/** What one recorded attempt was, for its log line: ids, never the payload or the secret. */
export interface RecordedAttempt {
  tenantId: string;
  webhookId: string;
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  error?: string;
  nextAttemptAt?: string;
}

export interface DeliveryWorkerDeps {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  /** The one outbound client: private targets are refused at connect time unless configured. */
  egress: EgressClient;
  /** WEBHOOK_RETRY_SCHEDULE_MS. */
  retryScheduleMs: readonly number[];
  /** WEBHOOK_TIMEOUT_MS: an attempt without a 2xx answer within it failed. */
  timeoutMs: number;
  /** Deliveries claimed per round; a full round is followed at once by another. */
  batchSize?: number;
  /** In [0, 1); the jitter source. */
  random?: () => number;
  onError: (error: unknown) => void;
}

const USER_AGENT = `authority-runtime-webhooks/${VERSION}`;

function describeFailure(error: unknown): string {
  if (error instanceof EgressRefusedError) return `egress refused: ${error.message}`;
  if (error instanceof EgressTimeoutError) return `timeout: ${error.message}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * The delivery worker: claims due deliveries, sends each through the egress client with a freshly
 * signed body, and records the outcome under its lease: success, a jittered retry, `dead` once the
 * schedule is exhausted, or a disabled endpoint on 410. Every instance runs one; claims keep them
 * from sending the same delivery twice at once.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { storage, clock, secretBox, egress, retryScheduleMs, timeoutMs } = deps;
  const batchSize = deps.batchSize ?? 25;
  const random = deps.random ?? Math.random;
  // Long enough for the exchange (bounded by the timeout) and the write that records it.
  const leaseMs = 2 * timeoutMs + 1_000;
  const listeners: Array<(status: RecordedStatus, attempt: RecordedAttempt) => void> = [];

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const secret = secretBox
      .open(delivery.sealedSecret, secretContext(delivery.tenantId, delivery.endpointId))
      .toString('utf8');
    const signed = signAttempt(secret, delivery.payload, clock());
    let statusCode: number | undefined;
    let error: string;
    try {
      const response = await withSpan(
        'webhook deliver',
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': 'POST',
            'url.full': withoutQuery(delivery.url),
            'authority.webhook.attempt': delivery.attempts + 1,
          },
        },
        async (span) => {
          const answer = await egress.request({
            method: 'POST',
            url: delivery.url,
            headers: { 'user-agent': USER_AGENT, ...signed.headers },
            body: signed.body,
            timeoutMs,
          });
          span?.setAttribute('http.response.status_code', answer.status);
          // An HTTP client span whose answer is 4xx or 5xx failed (OpenTelemetry's HTTP conventions).
          if (answer.status >= 400)
            span?.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${answer.status}` });
          return answer;
        },
      );
      statusCode = response.status;
      error = `HTTP ${response.status}`;
    } catch (failure) {
      error = describeFailure(failure);
    }
    const now = clock();
    const verdict = verdictOf(statusCode);
    let record: AttemptRecord;
    if (verdict === 'succeeded' && statusCode !== undefined) record = { status: 'succeeded', statusCode };
    else if (verdict === 'gone') record = { status: 'gone', statusCode: 410 };
    else {
      const delay = nextRetryDelay(retryScheduleMs, delivery.attempts + 1, random);
      record =
        delay === null
          ? { status: 'dead', statusCode: statusCode ?? null, error }
          : { status: 'retrying', statusCode: statusCode ?? null, error, nextAttemptAt: now + delay };
    }
    if (await recordAttempt(storage, delivery, record, now)) {
      const recorded: RecordedAttempt = {
        tenantId: delivery.tenantId,
        webhookId: delivery.endpointId,
        deliveryId: delivery.id,
        attempt: delivery.attempts + 1,
        statusCode: statusCode ?? null,
        ...(verdict === 'succeeded' ? {} : { error }),
        ...(record.status === 'retrying'
          ? { nextAttemptAt: new Date(record.nextAttemptAt).toISOString() }
          : {}),
      };
      for (const listener of listeners) listener(record.status === 'gone' ? 'dead' : record.status, recorded);
    }
  }

  /** One round: claim what is due now and attempt it; resolves with the number claimed. */
  async function runOnce(): Promise<number> {
    const claimed = await deliveryRepository.claimDue(storage, clock(), { limit: batchSize, leaseMs });
    const results = await Promise.allSettled(claimed.map(attempt));
    for (const result of results) if (result.status === 'rejected') deps.onError(result.reason);
    return claimed.length;
  }

  // The attempts the poller started and that have not ended, at most batchSize of them.
  const inFlight = new Set<Promise<void>>();

  /**
   * One poll of the running worker: claims what is due, up to the free places, and starts it
   * without waiting for it (each attempt records itself). A receiver that is slow to answer holds
   * one place until its timeout, not the deliveries of every other endpoint and tenant.
   */
  async function dispatch(): Promise<number> {
    const free = batchSize - inFlight.size;
    if (free <= 0) return 0;
    const claimed = await deliveryRepository.claimDue(storage, clock(), { limit: free, leaseMs });
    for (const delivery of claimed) {
      const running: Promise<void> = attempt(delivery)
        .catch(deps.onError)
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    }
    return claimed.length;
  }

  const poller = createPoller({ runOnce: dispatch, batchSize, onError: deps.onError });

  return {
    runOnce,

    /** Registers a listener told the resulting status of every recorded attempt (metrics, logs). */
    onAttempt(listener: (status: RecordedStatus, attempt: RecordedAttempt) => void): void {
      listeners.push(listener);
    },

    start: poller.start,

    /** Stops polling and waits for the attempts under way to be recorded. */
    async stop(): Promise<void> {
      await poller.stop();
      await Promise.all(inFlight);
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
