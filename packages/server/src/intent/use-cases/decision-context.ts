import { AppError } from '../../errors/app-error.js';
import type { Storage } from '../../storage/database.js';
import type { Tenant } from '../../tenancy/tenant.js';
import { floorFromRow } from '../../tenancy/tenant-controls.js';
import { toTenant } from '../../tenancy/tenant-repository.js';
import type { ThresholdsRecord } from '../domain/thresholds.js';
import type { ActivePolicy, PolicyStore } from './policy-store.js';
import { thresholdsFromRow } from './thresholds-store.js';

export interface DecisionContext {
  tenant: Tenant;
  actorBlocked: boolean;
  thresholds: ThresholdsRecord;
  floorEnabled: boolean;
  policy: ActivePolicy;
}

/**
 * Everything the gates read, in one query (the tenant, its settings row holding thresholds, floor
 * and active policy version, and the actor's status), plus the compiled policy, cached per version.
 */
export async function loadDecisionContext(
  deps: { storage: Storage; policies: PolicyStore },
  tenantId: string,
  actorId: string,
): Promise<DecisionContext> {
  const row = await deps.storage.db
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
    .where('t.id', '=', tenantId)
    .executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND', 'No such tenant');
  const settings =
    row.settings_tenant_id === null
      ? undefined
      : {
          floor_enabled: row.floor_enabled ?? 1,
          floor_agreement_version: row.floor_agreement_version,
          floor_changed_by: row.floor_changed_by,
          floor_changed_at: row.floor_changed_at,
          thresholds: row.thresholds,
          thresholds_updated_at: row.thresholds_updated_at,
          thresholds_updated_by: row.thresholds_updated_by,
        };
  const policy = await deps.policies.activeAt(tenantId, row.active_policy_version ?? null);
  return {
    tenant: toTenant(row),
    actorBlocked: row.actor_status === 'blocked',
    thresholds: thresholdsFromRow(tenantId, settings),
    floorEnabled: floorFromRow(tenantId, settings).enabled,
    policy,
  };
}
