import { v7 as uuidv7 } from 'uuid';
import { chainRepository } from '../chain/chain-repository.js';
import { withoutQuery } from '../egress/egress-client.js';
import { clipText } from '../foundation/text.js';
import type { Storage } from '../storage/database.js';
import { type ClaimedDelivery, deliveryRepository } from './delivery-repository.js';
import { endpointRepository } from './endpoint-repository.js';

export type RecordedStatus = 'succeeded' | 'retrying' | 'dead';

/** The outcome of one attempt, to record under the lease it was made under. */
export type AttemptRecord =
  | { status: 'succeeded'; statusCode: number }
  | { status: 'retrying'; statusCode: number | null; error: string; nextAttemptAt: number }
  | { status: 'dead'; statusCode: number | null; error: string }
  | { status: 'gone'; statusCode: 410 };

/** The lease ran out before the attempt could be recorded: nothing of it is kept. */
class LeaseLost extends Error {}

/**
 * Records an attempt under the lease it was made under; a worker whose lease ran out (another one
 * may have sent the delivery since) records nothing and gets `false`. A 410 also disables the
 * endpoint, with an audit entry, in the same transaction.
 */
export async function recordAttempt(
  storage: Storage,
  delivery: ClaimedDelivery,
  record: AttemptRecord,
  now: number,
): Promise<boolean> {
  const attempt = {
    status: record.status === 'gone' ? 'dead' : record.status,
    attempts: delivery.attempts + 1,
    last_status_code: record.statusCode,
    last_error:
      'error' in record ? clipText(record.error, 500) : record.status === 'gone' ? 'HTTP 410' : null,
    next_attempt_at: record.status === 'retrying' ? record.nextAttemptAt : null,
    updated_at: now,
  };
  if (record.status !== 'gone') return deliveryRepository.recordAttempt(storage.db, delivery, attempt);

  try {
    return await storage.writeTransaction(async (trx) => {
      const disabled = await endpointRepository.disableIfActive(trx, delivery.tenantId, delivery.endpointId, {
        reason: 'the receiver answered 410 Gone',
        now,
      });
      // The 410 that disables the endpoint ends its delivery. A delivery sent alongside it (the same
      // batch, or another instance) finds the endpoint disabled already: it waits with the rest of
      // the queue, and resumes when the endpoint is re-enabled (docs/webhooks.md).
      const recorded = disabled
        ? attempt
        : {
            ...attempt,
            status: 'retrying',
            last_error: 'HTTP 410; the endpoint is disabled',
            next_attempt_at: now,
          };
      if (!(await deliveryRepository.recordAttempt(trx, delivery, recorded))) throw new LeaseLost();
      if (disabled) {
        await chainRepository.append(
          trx,
          delivery.tenantId,
          [
            {
              correlationId: uuidv7(),
              intentId: null,
              actorId: 'webhook-delivery',
              actorType: 'system',
              eventType: 'webhook.disabled',
              payload: {
                webhookId: delivery.endpointId,
                url: withoutQuery(delivery.url),
                deliveryId: delivery.id,
                eventId: delivery.payload.eventId,
                statusCode: 410,
              },
            },
          ],
          now,
        );
      }
      return true;
    });
  } catch (error) {
    if (error instanceof LeaseLost) return false;
    throw error;
  }
}
