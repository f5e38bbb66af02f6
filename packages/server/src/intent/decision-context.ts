import { AppError } from '../errors/app-error.js';
import type { Storage } from '../storage/database.js';
import type { Tenant } from '../tenancy/tenant.js';
import { floorFromRow, type TenantControls } from '../tenancy/tenant-controls.js';
import type { TenantService } from '../tenancy/tenant-service.js';
import type { ActivePolicy, PolicyStore } from './policy-store.js';
import type { ThresholdsRecord } from './thresholds.js';
import { thresholdsFromRow } from './thresholds-store.js';

export interface DecisionContext {
  tenant: Tenant;
  actorBlocked: boolean;
  thresholds: ThresholdsRecord;
  floorEnabled: boolean;
  policy: ActivePolicy;
}

/**
 * Everything the gates read, in three queries run together (the tenant, the actor's status, and
 * the tenant's settings row holding thresholds, floor and active policy version) plus the
 * compiled policy, cached per version.
 */
export async function loadDecisionContext(
  deps: { storage: Storage; tenants: TenantService; controls: TenantControls; policies: PolicyStore },
  tenantId: string,
  actorId: string,
): Promise<DecisionContext> {
  const [tenant, actorBlocked, settings] = await Promise.all([
    deps.tenants.get(tenantId),
    deps.controls.isBlocked(tenantId, actorId),
    deps.storage.db
      .selectFrom('tenant_settings')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst(),
  ]);
  if (!tenant) throw new AppError('NOT_FOUND', 'No such tenant');
  const policy = await deps.policies.activeAt(tenantId, settings?.active_policy_version ?? null);
  return {
    tenant,
    actorBlocked,
    thresholds: thresholdsFromRow(tenantId, settings),
    floorEnabled: floorFromRow(tenantId, settings).enabled,
    policy,
  };
}
