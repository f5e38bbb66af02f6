import { AppError } from '../../errors/app-error.js';
import type { Storage } from '../../storage/database.js';
import type { Tenant } from '../../tenancy/tenant.js';
import { floorSetting } from '../../tenancy/tenant-controls.js';
import type { ThresholdsRecord } from '../domain/thresholds.js';
import { decisionContextRepository } from '../repositories/decision-context-repository.js';
import type { ActivePolicy, PolicyStore } from './policy-store.js';
import { thresholdsOfSettings } from './thresholds-store.js';

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
  const stored = await decisionContextRepository.get(deps.storage.db, tenantId, actorId);
  if (!stored) throw new AppError('NOT_FOUND', 'No such tenant');
  const { tenant, settings } = stored;
  const policy = await deps.policies.activeAt(tenantId, settings?.activePolicyVersion ?? null);
  return {
    tenant,
    actorBlocked: stored.actorStatus === 'blocked',
    thresholds: thresholdsOfSettings(tenantId, settings),
    floorEnabled: floorSetting(tenantId, settings).enabled,
    policy,
  };
}
