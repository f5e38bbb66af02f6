import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { validationError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import { type TenantSettings, tenantSettingsRepository } from '../../tenancy/tenant-settings-repository.js';
import {
  DEFAULT_THRESHOLDS,
  mergeThresholds,
  type ThresholdSettings,
  type ThresholdsRecord,
} from '../domain/thresholds.js';

/** The thresholds record of a tenant's settings (or of none: the defaults). */
export function thresholdsOfSettings(
  tenantId: string,
  settings: TenantSettings | undefined,
): ThresholdsRecord {
  const stored = settings?.thresholds ? (JSON.parse(settings.thresholds) as ThresholdSettings) : undefined;
  const values: ThresholdSettings = stored ?? {
    ...DEFAULT_THRESHOLDS,
    modifiers: { ...DEFAULT_THRESHOLDS.modifiers },
  };
  return {
    tenantId,
    ...values,
    updatedAt: settings?.thresholdsUpdatedAtMs
      ? new Date(settings.thresholdsUpdatedAtMs).toISOString()
      : null,
    updatedBy: settings?.thresholdsUpdatedBy ?? null,
  };
}

/** The tenant's thresholds record (contract §4.4): stored settings over the defaults. */
export function createThresholdsStore(deps: { storage: Storage; clock: Clock }) {
  const { storage, clock } = deps;

  async function read(tenantId: string): Promise<ThresholdsRecord> {
    return thresholdsOfSettings(tenantId, await tenantSettingsRepository.get(storage.db, tenantId));
  }

  return {
    read,

    /**
     * Merges a patch, validates the merged record, stores it and audits old and new values. The
     * record merged is read under the chain head's lock, so patches made at once each apply to the
     * other's result and each entry's `old` is the record it replaced.
     */
    async update(tenantId: string, principal: Principal, patch: unknown): Promise<ThresholdsRecord> {
      const now = clock();
      const value = await storage.writeTransaction(async (trx) => {
        await chainRepository.lockHead(trx, tenantId, now);
        const current = thresholdsOfSettings(tenantId, await tenantSettingsRepository.get(trx, tenantId));
        const { tenantId: _t, updatedAt: _a, updatedBy: _b, ...currentSettings } = current;
        const merged = mergeThresholds(currentSettings, patch);
        if (!merged.ok) throw validationError(merged.issues);
        await tenantSettingsRepository.setThresholds(trx, tenantId, {
          json: JSON.stringify(merged.value),
          updatedBy: principal.id,
          updatedAtMs: now,
        });
        await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'thresholds.updated', { old: currentSettings, new: merged.value })],
          now,
        );
        return merged.value;
      });
      return { tenantId, ...value, updatedAt: new Date(now).toISOString(), updatedBy: principal.id };
    },
  };
}

export type ThresholdsStore = ReturnType<typeof createThresholdsStore>;
