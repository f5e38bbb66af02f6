import type { Kysely, Selectable } from 'kysely';
import type { ConnectorsTable, Database } from '../storage/schema.js';
import type { ConnectorType, GithubSettings, HttpSettings } from './adapters/connector-config.js';
import type { Connector } from './connector.js';

export type HealthStatus = 'healthy' | 'degraded' | 'down' | 'unknown';
export const HEALTH_STATUSES: readonly HealthStatus[] = ['healthy', 'degraded', 'down', 'unknown'];

/** A connector with its last health check, as `GET /connectors` lists it. */
export interface ConnectorWithHealth {
  connector: Connector;
  status: HealthStatus;
  lastCheckedAt: number | null;
  latencyMs: number | null;
  lastError: string | null;
}

/** The result of one check, written by the background checker and by `POST /connectors/:id/test`. */
export interface HealthRecord {
  status: Exclude<HealthStatus, 'unknown'>;
  checkedAt: number;
  latencyMs: number | null;
  error: string | null;
}

export function connectorOf(row: Selectable<ConnectorsTable>): Connector {
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

function withHealth(row: Selectable<ConnectorsTable>): ConnectorWithHealth {
  return {
    connector: connectorOf(row),
    status: row.status as HealthStatus,
    lastCheckedAt: row.last_checked_at,
    latencyMs: row.latency_ms,
    lastError: row.last_error,
  };
}

/** Queries of the `connectors` table; every one filters by tenant except the checkers' sweep. */
export const connectorStore = {
  async listByTenant(db: Kysely<Database>, tenantId: string): Promise<ConnectorWithHealth[]> {
    const rows = await db
      .selectFrom('connectors')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
    return rows.map(withHealth);
  },

  async get(db: Kysely<Database>, tenantId: string, id: string): Promise<ConnectorWithHealth | undefined> {
    const row = await db
      .selectFrom('connectors')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? withHealth(row) : undefined;
  },

  async count(db: Kysely<Database>, tenantId: string): Promise<number> {
    const { count } = await db
      .selectFrom('connectors')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(count);
  },

  async recordHealth(
    db: Kysely<Database>,
    tenantId: string,
    id: string,
    health: HealthRecord,
  ): Promise<void> {
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
  async due(db: Kysely<Database>, now: number, limit: number): Promise<Array<Selectable<ConnectorsTable>>> {
    return db
      .selectFrom('connectors')
      .selectAll()
      .where('next_check_at', '<=', now)
      .orderBy('next_check_at')
      .limit(limit)
      .execute();
  },

  /**
   * Claims one due check by moving `next_check_at` from the value read to `next`: exactly one
   * instance wins the compare-and-set, so N instances do not probe a connector N times.
   */
  async claim(
    db: Kysely<Database>,
    row: Pick<Selectable<ConnectorsTable>, 'tenant_id' | 'id' | 'next_check_at'>,
    next: number,
  ): Promise<boolean> {
    const result = await db
      .updateTable('connectors')
      .set({ next_check_at: next })
      .where('tenant_id', '=', row.tenant_id)
      .where('id', '=', row.id)
      .where('next_check_at', '=', row.next_check_at)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
};
