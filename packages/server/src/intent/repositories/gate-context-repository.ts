import { compiledQuery } from '../../storage/compiled-query.js';
import type { Executor } from '../../storage/database.js';
import type { Tenant } from '../../tenancy/tenant.js';
import { toTenant } from '../../tenancy/tenant-repository.js';
import { settingsOfRow, type TenantSettings } from '../../tenancy/tenant-settings-repository.js';

/** What the gates read of a tenant, in one query. */
export interface StoredGateContext {
  tenant: Tenant;
  /** Undefined while the tenant has no settings row (the defaults apply). */
  settings: TenantSettings | undefined;
  /** The actor's status in the tenant's list, or null when it has none. */
  actorStatus: string | null;
}

/**
 * The read of `POST /intent` and `/authority/evaluate`: the tenant, its settings row (thresholds,
 * floor and active policy version) and the actor's status, joined in one round trip.
 */
const gateContextQuery = compiledQuery((db, [tenantId, actorId]: [string, string]) =>
  db
    .selectFrom('tenants as t')
    .leftJoin('tenant_settings as s', 's.tenant_id', 't.id')
    .leftJoin('authority_actors as a', (join) =>
      join.onRef('a.tenant_id', '=', 't.id').on('a.actor_id', '=', actorId),
    )
    .selectAll('t')
    .select([
      's.tenant_id as settings_tenant_id',
      's.floor_enabled',
      's.floor_agreement_version',
      's.floor_changed_by',
      's.floor_changed_at',
      's.thresholds',
      's.thresholds_updated_at',
      's.thresholds_updated_by',
      's.active_policy_version',
      'a.status as actor_status',
    ])
    .where('t.id', '=', tenantId),
);

export const gateContextRepository = {
  async get(db: Executor, tenantId: string, actorId: string): Promise<StoredGateContext | undefined> {
    const [row] = (await gateContextQuery(db, [tenantId, actorId])).rows;
    if (!row) return undefined;
    const settings =
      row.settings_tenant_id === null
        ? undefined
        : settingsOfRow({
            floor_enabled: row.floor_enabled ?? 1,
            floor_agreement_version: row.floor_agreement_version,
            floor_changed_by: row.floor_changed_by,
            floor_changed_at: row.floor_changed_at,
            thresholds: row.thresholds,
            thresholds_updated_at: row.thresholds_updated_at,
            thresholds_updated_by: row.thresholds_updated_by,
            active_policy_version: row.active_policy_version,
          });
    return { tenant: toTenant(row), settings, actorStatus: row.actor_status };
  },
};
