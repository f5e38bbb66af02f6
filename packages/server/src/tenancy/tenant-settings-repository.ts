import type { Executor } from '../storage/database.js';
import type { TenantSettingsTable } from '../storage/schema.js';

/**
 * A tenant's settings row: the catastrophic floor, the risk thresholds (JSON; null means the
 * defaults) and the active policy version. A tenant without a row has the defaults: floor on, no
 * thresholds stored, no policy yet.
 */
export interface TenantSettings {
  floorEnabled: boolean;
  floorAgreementVersion: string | null;
  floorChangedBy: string | null;
  floorChangedAtMs: number | null;
  thresholds: string | null;
  thresholdsUpdatedAtMs: number | null;
  thresholdsUpdatedBy: string | null;
  activePolicyVersion: number | null;
}

type SettingsColumns = Omit<TenantSettingsTable, 'tenant_id'>;

/** The columns of a new row before anything was set: the defaults above. */
const DEFAULT_COLUMNS: SettingsColumns = {
  floor_enabled: 1,
  floor_agreement_version: null,
  floor_changed_by: null,
  floor_changed_at: null,
  thresholds: null,
  thresholds_updated_at: null,
  thresholds_updated_by: null,
  active_policy_version: null,
};

/** The settings of a row (of the columns a join selected), or undefined without one. */
export function settingsOfRow(row: SettingsColumns | undefined): TenantSettings | undefined {
  if (row === undefined) return undefined;
  return {
    floorEnabled: row.floor_enabled === 1,
    floorAgreementVersion: row.floor_agreement_version,
    floorChangedBy: row.floor_changed_by,
    floorChangedAtMs: row.floor_changed_at,
    thresholds: row.thresholds,
    thresholdsUpdatedAtMs: row.thresholds_updated_at,
    thresholdsUpdatedBy: row.thresholds_updated_by,
    activePolicyVersion: row.active_policy_version,
  };
}

/**
 * Writes some columns of the tenant's row: a new row gets the defaults for the others, an
 * existing one keeps them. The one place the row is upserted.
 */
async function upsert(trx: Executor, tenantId: string, change: Partial<SettingsColumns>): Promise<void> {
  await trx
    .insertInto('tenant_settings')
    .values({ tenant_id: tenantId, ...DEFAULT_COLUMNS, ...change })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(change))
    .execute();
}

/** `tenant_settings`: one row per tenant, written by three owners that each change their own columns. */
export const tenantSettingsRepository = {
  async get(db: Executor, tenantId: string): Promise<TenantSettings | undefined> {
    const row = await db
      .selectFrom('tenant_settings')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return settingsOfRow(row);
  },

  async activePolicyVersion(db: Executor, tenantId: string): Promise<number | null> {
    const row = await db
      .selectFrom('tenant_settings')
      .select('active_policy_version')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.active_policy_version ?? null;
  },

  setFloor(
    trx: Executor,
    tenantId: string,
    floor: { enabled: boolean; agreementVersion: string | null; changedBy: string; changedAtMs: number },
  ): Promise<void> {
    return upsert(trx, tenantId, {
      floor_enabled: floor.enabled ? 1 : 0,
      floor_agreement_version: floor.agreementVersion,
      floor_changed_by: floor.changedBy,
      floor_changed_at: floor.changedAtMs,
    });
  },

  setThresholds(
    trx: Executor,
    tenantId: string,
    thresholds: { json: string; updatedBy: string; updatedAtMs: number },
  ): Promise<void> {
    return upsert(trx, tenantId, {
      thresholds: thresholds.json,
      thresholds_updated_at: thresholds.updatedAtMs,
      thresholds_updated_by: thresholds.updatedBy,
    });
  },

  setActivePolicyVersion(trx: Executor, tenantId: string, version: number): Promise<void> {
    return upsert(trx, tenantId, { active_policy_version: version });
  },
};
