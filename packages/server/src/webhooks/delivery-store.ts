import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { chainRepository } from '../chain/chain-repository.js';
import { withoutQuery } from '../egress/egress-client.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { StoredPayload } from './events.js';

/** A delivery this worker holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  tenantId: string;
  id: string;
  endpointId: string;
  url: string;
  /** The endpoint secret, still sealed. */
  sealedSecret: string;
  payload: StoredPayload;
  /** Attempts made before this one. */
  attempts: number;
  leaseToken: string;
}

export type RecordedStatus = 'succeeded' | 'retrying' | 'dead';

/** The outcome of one attempt, to record under the lease it was made under. */
export type AttemptRecord =
  | { status: 'succeeded'; statusCode: number }
  | { status: 'retrying'; statusCode: number | null; error: string; nextAttemptAt: number }
  | { status: 'dead'; statusCode: number | null; error: string }
  | { status: 'gone'; statusCode: 410 };

const DUE = ['pending', 'retrying'];

function dueDeliveries(db: Kysely<Database>, now: number, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['tenant_id', 'id'])
    .where('status', 'in', DUE)
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('webhook_endpoints')
          .select('webhook_endpoints.id')
          .whereRef('webhook_endpoints.tenant_id', '=', 'webhook_deliveries.tenant_id')
          .whereRef('webhook_endpoints.id', '=', 'webhook_deliveries.endpoint_id')
          .where('webhook_endpoints.status', '=', 'active'),
      ),
    )
    .orderBy('next_attempt_at')
    .limit(limit);
}

/**
 * Claims up to `limit` due deliveries of active endpoints for `leaseMs`, so that several workers
 * (instances) never send the same delivery at once. PostgreSQL: `FOR UPDATE SKIP LOCKED` inside a
 * transaction, so concurrent workers pick disjoint rows without waiting on each other. SQLite: a
 * conditional UPDATE per candidate that only succeeds while the row is still unleased. A lease that
 * runs out (its worker died mid-send) makes the delivery claimable again: at-least-once.
 */
export async function claimDue(
  storage: Storage,
  now: number,
  options: { limit: number; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  const leaseToken = uuidv7();
  const lease = { lease_token: leaseToken, lease_until: now + options.leaseMs };
  if (storage.dialect === 'postgres') {
    await storage.writeTransaction(async (trx) => {
      const rows = await dueDeliveries(trx, now, options.limit).forUpdate().skipLocked().execute();
      if (rows.length === 0) return;
      await trx
        .updateTable('webhook_deliveries')
        .set(lease)
        .where((eb) =>
          eb.or(rows.map((r) => eb.and([eb('tenant_id', '=', r.tenant_id), eb('id', '=', r.id)]))),
        )
        .execute();
    });
  } else {
    const candidates = await dueDeliveries(storage.db, now, options.limit).execute();
    for (const candidate of candidates) {
      await storage.db
        .updateTable('webhook_deliveries')
        .set(lease)
        .where('tenant_id', '=', candidate.tenant_id)
        .where('id', '=', candidate.id)
        .where('status', 'in', DUE)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .execute();
    }
  }
  const claimed = await storage.db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_endpoints', (join) =>
      join
        .onRef('webhook_endpoints.tenant_id', '=', 'webhook_deliveries.tenant_id')
        .onRef('webhook_endpoints.id', '=', 'webhook_deliveries.endpoint_id'),
    )
    .select([
      'webhook_deliveries.tenant_id',
      'webhook_deliveries.id',
      'webhook_deliveries.endpoint_id',
      'webhook_deliveries.payload',
      'webhook_deliveries.attempts',
      'webhook_endpoints.url',
      'webhook_endpoints.secret',
    ])
    .where('webhook_deliveries.lease_token', '=', leaseToken)
    .execute();
  return claimed.map((row) => ({
    tenantId: row.tenant_id,
    id: row.id,
    endpointId: row.endpoint_id,
    url: row.url,
    sealedSecret: row.secret,
    payload: JSON.parse(row.payload) as StoredPayload,
    attempts: row.attempts,
    leaseToken,
  }));
}

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
  const values = {
    status: record.status === 'gone' ? 'dead' : record.status,
    attempts: delivery.attempts + 1,
    last_status_code: record.statusCode,
    last_error: 'error' in record ? record.error.slice(0, 500) : record.status === 'gone' ? 'HTTP 410' : null,
    next_attempt_at: record.status === 'retrying' ? record.nextAttemptAt : null,
    lease_token: null,
    lease_until: null,
    updated_at: now,
  };
  const update = (db: Kysely<Database>) =>
    db
      .updateTable('webhook_deliveries')
      .set(values)
      .where('tenant_id', '=', delivery.tenantId)
      .where('id', '=', delivery.id)
      .where('lease_token', '=', delivery.leaseToken)
      .executeTakeFirst();
  if (record.status !== 'gone') return Number((await update(storage.db)).numUpdatedRows) === 1;

  return storage.writeTransaction(async (trx) => {
    if (Number((await update(trx)).numUpdatedRows) !== 1) return false;
    const disabled = await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone', updated_at: now })
      .where('tenant_id', '=', delivery.tenantId)
      .where('id', '=', delivery.endpointId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(disabled.numUpdatedRows) === 1) {
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
}
