import { AppError } from '../../errors/app-error.js';
import type { Storage } from '../../storage/database.js';
import { floorSetting } from '../../tenancy/tenant-controls.js';
import type { GateContext } from '../domain/gates.js';
import type { ThresholdsRecord } from '../domain/thresholds.js';
import { gateContextRepository } from '../repositories/gate-context-repository.js';
import type { PolicyStore } from './policy-store.js';
import { thresholdsOfSettings } from './thresholds-store.js';

/** The gates' context, with the tenant's full thresholds record (TTLs of tokens and approvals). */
export interface LoadedGateContext extends GateContext {
  thresholds: ThresholdsRecord;
}

/**
 * Everything the gates read, in one query (the tenant, its settings row holding thresholds, floor
 * and active policy version, and the actor's status), plus the compiled policy, cached per version.
 * The one place a tenant's GateContext is built: `POST /intent` and `/authority/evaluate` both
 * evaluate `{...context, request}`.
 */
export async function loadGateContext(
  deps: { storage: Storage; policies: PolicyStore },
  tenantId: string,
  actorId: string,
  at: number,
): Promise<LoadedGateContext> {
  const stored = await gateContextRepository.get(deps.storage.db, tenantId, actorId);
  if (!stored) throw new AppError('NOT_FOUND', 'No such tenant');
  const { tenant, settings } = stored;
  const policy = await deps.policies.activeAt(tenantId, settings?.activePolicyVersion ?? null);
  return {
    killSwitch: { enabled: tenant.killSwitch.enabled, reason: tenant.killSwitch.reason },
    actorBlocked: stored.actorStatus === 'blocked',
    thresholds: thresholdsOfSettings(tenantId, settings),
    floorEnabled: floorSetting(tenantId, settings).enabled,
    policy: policy.compiled,
    evaluatedAt: at,
  };
}
