import { compiledQuery } from '../storage/compiled-query.js';
import type { Executor } from '../storage/database.js';
import { forUpdate } from '../storage/row-lock.js';
import type { WebhookEndpointsTable } from '../storage/schema.js';

/** The columns a change of an endpoint may set. */
export type EndpointChangeColumns = Partial<
  Pick<WebhookEndpointsTable, 'url' | 'events' | 'description' | 'status' | 'disabled_reason' | 'secret'>
> & { updated_at: number };

/** `webhook_endpoints`: each tenant's receivers, their subscriptions and sealed secrets. */
/** The endpoints an event may go to, read by every decision's commit: compiled once. */
const activeEndpointsQuery = compiledQuery((db: Executor, [tenantId]: [string]) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'active'),
);

export const endpointRepository = {
  async insert(trx: Executor, row: WebhookEndpointsTable): Promise<void> {
    await trx.insertInto('webhook_endpoints').values(row).execute();
  },

  async count(db: Executor, tenantId: string): Promise<number> {
    const { count } = await db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(count);
  },

  /** The tenant's endpoints, by id. */
  async list(db: Executor, tenantId: string): Promise<WebhookEndpointsTable[]> {
    return db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
  },

  /** The endpoint; `forUpdate` locks it for the rest of the transaction (changes of one endpoint queue up). */
  async get(
    db: Executor,
    tenantId: string,
    id: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<WebhookEndpointsTable | undefined> {
    const query = db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id);
    return (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst();
  },

  async update(trx: Executor, tenantId: string, id: string, change: EndpointChangeColumns): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set(change)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  async delete(trx: Executor, tenantId: string, id: string): Promise<void> {
    await trx
      .deleteFrom('webhook_endpoints')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  /** Disables the endpoint if it is active; true when this call disabled it. */
  async disableIfActive(
    trx: Executor,
    tenantId: string,
    id: string,
    change: { reason: string; now: number },
  ): Promise<boolean> {
    const disabled = await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: change.reason, updated_at: change.now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(disabled.numUpdatedRows) === 1;
  },

  /** The tenant's active endpoints and the event kinds each subscribes to. */
  async activeSubscriptions(
    db: Executor,
    tenantId: string,
  ): Promise<Array<{ id: string; events: string[] }>> {
    const { rows } = await activeEndpointsQuery(db, [tenantId]);
    return rows.map((row) => ({ id: row.id, events: JSON.parse(row.events) as string[] }));
  },
};
