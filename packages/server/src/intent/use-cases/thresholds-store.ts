import { principalEvent } from '../../chain/audit-entry.js';
import { appendAudit } from '../../chain/audit-log.js';
import { validationError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import type { TenantSettingsTable } from '../../storage/schema.js';
import {
  DEFAULT_THRESHOLDS,
  mergeThresholds,
  type ThresholdSettings,
  type ThresholdsRecord,
} from '../domain/thresholds.js';

/** The thresholds record of a tenant_settings row (or of none: the defaults). */
export function thresholdsFromRow(
  tenantId: string,
  row:
    | Pick<TenantSettingsTable, 'thresholds' | 'thresholds_updated_at' | 'thresholds_updated_by'>
    | undefined,
): ThresholdsRecord {
  const stored = row?.thresholds ? (JSON.parse(row.thresholds) as ThresholdSettings) : undefined;
  const settings: ThresholdSettings = stored ?? {
    ...DEFAULT_THRESHOLDS,
    modifiers: { ...DEFAULT_THRESHOLDS.modifiers },
  };
  return {
    tenantId,
    ...settings,
    updatedAt: row?.thresholds_updated_at ? new Date(row.thresholds_updated_at).toISOString() : null,
    updatedBy: row?.thresholds_updated_by ?? null,
  };
}

/** The tenant's thresholds record (contract §4.4): stored settings over the defaults. */
export function createThresholdsStore(deps: { storage: Storage; clock: Clock }) {
  const { storage, clock } = deps;

  async function read(tenantId: string): Promise<ThresholdsRecord> {
    const row = await storage.db
      .selectFrom('tenant_settings')
      .select(['thresholds', 'thresholds_updated_at', 'thresholds_updated_by'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return thresholdsFromRow(tenantId, row);
  }

  return {
    read,

    /** Merges a patch, validates the merged record, stores it and audits old and new values. */
    async update(tenantId: string, principal: Principal, patch: unknown): Promise<ThresholdsRecord> {
      const current = await read(tenantId);
      const { tenantId: _t, updatedAt: _a, updatedBy: _b, ...currentSettings } = current;
      const merged = mergeThresholds(currentSettings, patch);
      if (!merged.ok) throw validationError(merged.issues);
      const now = clock();
      const text = JSON.stringify(merged.value);
      await storage.writeTransaction(async (trx) => {
        await trx
          .insertInto('tenant_settings')
          .values({
            tenant_id: tenantId,
            floor_enabled: 1,
            floor_agreement_version: null,
            floor_changed_by: null,
            floor_changed_at: null,
            thresholds: text,
            thresholds_updated_at: now,
            thresholds_updated_by: principal.id,
            active_policy_version: null,
          })
          .onConflict((oc) =>
            oc.column('tenant_id').doUpdateSet({
              thresholds: text,
              thresholds_updated_at: now,
              thresholds_updated_by: principal.id,
            }),
          )
          .execute();
        await appendAudit(
          trx,
          storage.dialect,
          tenantId,
          [principalEvent(principal, 'thresholds.updated', { old: currentSettings, new: merged.value })],
          now,
        );
      });
      return { tenantId, ...merged.value, updatedAt: new Date(now).toISOString(), updatedBy: principal.id };
    },
  };
}

export type ThresholdsStore = ReturnType<typeof createThresholdsStore>;
