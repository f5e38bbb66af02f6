import type { Rule } from '../../policy/rule.js';
import type { Executor } from '../../storage/database.js';
import type { PolicyVersionsTable } from '../../storage/schema.js';

/** A stored version of a tenant's intent policy; versions never change once written. */
export interface StoredPolicyVersion {
  tenantId: string;
  version: number;
  /** The rules, pack rules included (with `<pack>/` ids). */
  rules: Rule[];
  /** Ids of the installed packs. */
  packs: string[];
  createdAtMs: number;
  createdBy: string;
  /** When the version was last made active; null if it never was. */
  activatedAtMs: number | null;
  /** Approvals the version needs when it was created while review was required (§16); else null. */
  reviewApprovals: number | null;
}

function toVersion(row: PolicyVersionsTable): StoredPolicyVersion {
  return {
    tenantId: row.tenant_id,
    version: row.version,
    rules: JSON.parse(row.rules) as Rule[],
    packs: JSON.parse(row.packs) as string[],
    createdAtMs: row.created_at,
    createdBy: row.created_by,
    activatedAtMs: row.activated_at,
    reviewApprovals: row.review_approvals,
  };
}

/** `policy_versions`: the tenants' intent policies, numbered 1, 2, … per tenant. */
export const policyRepository = {
  /** Fails with a unique violation when the tenant has the version already (two saves raced). */
  async insert(trx: Executor, version: Omit<StoredPolicyVersion, 'activatedAtMs'>): Promise<void> {
    await trx
      .insertInto('policy_versions')
      .values({
        tenant_id: version.tenantId,
        version: version.version,
        rules: JSON.stringify(version.rules),
        packs: JSON.stringify(version.packs),
        created_at: version.createdAtMs,
        created_by: version.createdBy,
        activated_at: null,
        review_approvals: version.reviewApprovals,
      })
      .execute();
  },

  async get(db: Executor, tenantId: string, version: number): Promise<StoredPolicyVersion | undefined> {
    const row = await db
      .selectFrom('policy_versions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row ? toVersion(row) : undefined;
  },

  /** Every version of the tenant, newest first. */
  async list(db: Executor, tenantId: string): Promise<StoredPolicyVersion[]> {
    const rows = await db
      .selectFrom('policy_versions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('version', 'desc')
      .execute();
    return rows.map(toVersion);
  },

  /** The highest version number of the tenant, 0 when it has none. */
  async latestVersion(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('policy_versions')
      .select((eb) => eb.fn.max('version').as('max'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return Number(row?.max ?? 0);
  },

  async markActivated(trx: Executor, tenantId: string, version: number, now: number): Promise<void> {
    await trx
      .updateTable('policy_versions')
      .set({ activated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('version', '=', version)
      .execute();
  },
};
