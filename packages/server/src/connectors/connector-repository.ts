import type { Executor } from '../storage/database.js';
import { forUpdate } from '../storage/row-lock.js';
import type { ConnectorsTable } from '../storage/schema.js';
import type { ConnectorType, GithubSettings, HttpSettings } from './adapters/connector-config.js';
import type { Connector, ConnectorWithHealth, HealthRecord, HealthStatus } from './connector.js';

/** A health check that is due: the connector, and the due time a claim must still find. */
export interface DueCheck {
  connector: Connector;
  nextCheckAtMs: number;
}

function connectorOf(row: ConnectorsTable): Connector {
  const base = {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    targetSystem: row.target_system,
    autoExecute: row.auto_execute === 1,
    sealedSecrets: row.secrets,
    createdAt: row.created_at,
  };
  // The settings were validated when the connector was saved.
  const settings: unknown = JSON.parse(row.config);
  switch (row.type as ConnectorType) {
    case 'http':
      return { ...base, type: 'http', settings: settings as HttpSettings };
    case 'github':
      return { ...base, type: 'github', settings: settings as GithubSettings };
    case 'noop':
      return { ...base, type: 'noop', settings: {} };
    default:
      throw new Error(`connector ${row.id} has an unknown type ${row.type}`);
  }
}

function withHealth(row: ConnectorsTable): ConnectorWithHealth {
  return {
    connector: connectorOf(row),
    status: row.status as HealthStatus,
    lastCheckedAt: row.last_checked_at,
    latencyMs: row.latency_ms,
    lastError: row.last_error,
  };
}

/** `connectors`: every query filters by tenant except the health checkers' sweep. */
export const connectorRepository = {
  /**
   * A new connector, health unknown and its first check due at once. Fails with a unique
   * violation when the tenant's target already has one.
   */
  async insert(trx: Executor, connector: Connector): Promise<void> {
    await trx
      .insertInto('connectors')
      .values({
        tenant_id: connector.tenantId,
        id: connector.id,
        type: connector.type,
        name: connector.name,
        target_system: connector.targetSystem,
        auto_execute: connector.autoExecute ? 1 : 0,
        config: JSON.stringify(connector.settings),
        secrets: connector.sealedSecrets,
        status: 'unknown',
        last_checked_at: null,
        latency_ms: null,
        last_error: null,
        next_check_at: connector.createdAt,
        created_at: connector.createdAt,
        updated_at: connector.createdAt,
      })
      .execute();
  },

  async listByTenant(db: Executor, tenantId: string): Promise<ConnectorWithHealth[]> {
    const rows = await db
      .selectFrom('connectors')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
    return rows.map(withHealth);
  },

  /** The connector; `forUpdate` locks it for the rest of the transaction (a delete audits what it removed). */
  async get(
    db: Executor,
    tenantId: string,
    id: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<ConnectorWithHealth | undefined> {
    const query = db
      .selectFrom('connectors')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id);
    const row = await (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst();
    return row ? withHealth(row) : undefined;
  },

  async count(db: Executor, tenantId: string): Promise<number> {
    const { count } = await db
      .selectFrom('connectors')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(count);
  },

  async delete(trx: Executor, tenantId: string, id: string): Promise<void> {
    await trx.deleteFrom('connectors').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  },

  async recordHealth(db: Executor, tenantId: string, id: string, health: HealthRecord): Promise<void> {
    await db
      .updateTable('connectors')
      .set({
        status: health.status,
        last_checked_at: health.checkedAt,
        latency_ms: health.latencyMs,
        last_error: health.error,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  /** Connectors whose check is due at `now`, oldest due first, across tenants. */
  async due(db: Executor, now: number, limit: number): Promise<DueCheck[]> {
    const rows = await db
      .selectFrom('connectors')
      .selectAll()
      .where('next_check_at', '<=', now)
      .orderBy('next_check_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ connector: connectorOf(row), nextCheckAtMs: row.next_check_at }));
  },

  /**
   * Claims one due check by moving `next_check_at` from the value read to `next`: exactly one
   * instance wins the compare-and-set, so N instances do not probe a connector N times.
   */
  async claim(db: Executor, check: DueCheck, next: number): Promise<boolean> {
    const result = await db
      .updateTable('connectors')
      .set({ next_check_at: next })
      .where('tenant_id', '=', check.connector.tenantId)
      .where('id', '=', check.connector.id)
      .where('next_check_at', '=', check.nextCheckAtMs)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
};
