import { v7 as uuidv7 } from 'uuid';
import type { Executor, Storage } from '../storage/database.js';
import type { WebhookDeliveriesTable } from '../storage/schema.js';
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

/** What an attempt leaves on its delivery: the next status, the counters, the lease let go. */
export interface AttemptColumns {
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  updated_at: number;
}

const DUE = ['pending', 'retrying'];

function dueDeliveries(db: Executor, now: number, limit: number) {
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

/** `webhook_deliveries`: the outbox, one row per (event, endpoint), and each row's attempts. */
export const deliveryRepository = {
  /** Writes deliveries in one statement (the outbox of a transaction's events). */
  async insert(trx: Executor, rows: readonly WebhookDeliveriesTable[]): Promise<void> {
    if (rows.length > 0)
      await trx
        .insertInto('webhook_deliveries')
        .values([...rows])
        .execute();
  },

  /** One delivery of the endpoint. */
  async get(
    db: Executor,
    tenantId: string,
    endpointId: string,
    id: string,
  ): Promise<WebhookDeliveriesTable | undefined> {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
  },

  /** The endpoint's deliveries (of a status), newest first, below `before`, at most `limit`. */
  async list(
    db: Executor,
    tenantId: string,
    endpointId: string,
    query: { status?: string | undefined; before?: string | undefined; limit: number },
  ): Promise<WebhookDeliveriesTable[]> {
    let select = db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('endpoint_id', '=', endpointId);
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    return select.orderBy('id', 'desc').limit(query.limit).execute();
  },

  /** Deliveries by status over every tenant: the backlog and dead-letter gauges (never by tenant). */
  async countByStatus(db: Executor): Promise<Record<string, number>> {
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  },

  async deleteForEndpoint(trx: Executor, tenantId: string, endpointId: string): Promise<void> {
    await trx
      .deleteFrom('webhook_deliveries')
      .where('tenant_id', '=', tenantId)
      .where('endpoint_id', '=', endpointId)
      .execute();
  },

  /**
   * Claims up to `limit` due deliveries of active endpoints for `leaseMs`, so that several workers
   * (instances) never send the same delivery at once. PostgreSQL: `FOR UPDATE SKIP LOCKED` inside
   * a transaction, so concurrent workers pick disjoint rows without waiting on each other. SQLite: a
   * conditional UPDATE per candidate that only succeeds while the row is still unleased. A lease
   * that runs out (its worker died mid-send) makes the delivery claimable again: at-least-once.
   * It takes the storage, not an executor: the claim is its own transaction.
   */
  async claimDue(
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
  },

  /**
   * Records an attempt and lets the lease go, if the lease it was made under still holds; false
   * when it ran out (another worker may have sent the delivery since).
   */
  async recordAttempt(db: Executor, delivery: ClaimedDelivery, attempt: AttemptColumns): Promise<boolean> {
    const updated = await db
      .updateTable('webhook_deliveries')
      .set({ ...attempt, lease_token: null, lease_until: null })
      .where('tenant_id', '=', delivery.tenantId)
      .where('id', '=', delivery.id)
      .where('lease_token', '=', delivery.leaseToken)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  },
};
