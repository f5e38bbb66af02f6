import type { Executor } from '../../storage/database.js';

/** A tenant's review setting (contract §16); the default is no review. */
export interface PolicyReviewSetting {
  required: boolean;
  approvals: 1 | 2;
  updatedAtMs: number | null;
  updatedBy: string | null;
}

export const NO_REVIEW: PolicyReviewSetting = {
  required: false,
  approvals: 1,
  updatedAtMs: null,
  updatedBy: null,
};

/** One review of a policy version. */
export interface PolicyReviewRecord {
  version: number;
  principalId: string;
  decision: 'approve' | 'reject';
  comment: string;
  createdAtMs: number;
}

/** `policy_review_settings` and `policy_reviews`: who must review a tenant's policy versions, and who did. */
export const policyReviewRepository = {
  async setting(db: Executor, tenantId: string): Promise<PolicyReviewSetting> {
    const row = await db
      .selectFrom('policy_review_settings')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!row) return NO_REVIEW;
    return {
      required: row.required === 1,
      approvals: row.approvals === 2 ? 2 : 1,
      updatedAtMs: row.updated_at,
      updatedBy: row.updated_by,
    };
  },

  async putSetting(
    trx: Executor,
    tenantId: string,
    setting: { required: boolean; approvals: 1 | 2; updatedAtMs: number; updatedBy: string },
  ): Promise<void> {
    const values = {
      required: setting.required ? 1 : 0,
      approvals: setting.approvals,
      updated_at: setting.updatedAtMs,
      updated_by: setting.updatedBy,
    };
    await trx
      .insertInto('policy_review_settings')
      .values({ tenant_id: tenantId, ...values })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(values))
      .execute();
  },

  /** Fails with a unique violation when the principal reviewed the version already. */
  async insert(trx: Executor, tenantId: string, review: PolicyReviewRecord): Promise<void> {
    await trx
      .insertInto('policy_reviews')
      .values({
        tenant_id: tenantId,
        version: review.version,
        principal_id: review.principalId,
        decision: review.decision,
        comment: review.comment,
        created_at: review.createdAtMs,
      })
      .execute();
  },

  /** The reviews of the tenant's versions (all of them, or one), oldest first. */
  async list(db: Executor, tenantId: string, version?: number): Promise<PolicyReviewRecord[]> {
    let select = db.selectFrom('policy_reviews').selectAll().where('tenant_id', '=', tenantId);
    if (version !== undefined) select = select.where('version', '=', version);
    const rows = await select.orderBy('created_at').orderBy('principal_id').execute();
    return rows.map((row) => ({
      version: row.version,
      principalId: row.principal_id,
      decision: row.decision === 'reject' ? 'reject' : 'approve',
      comment: row.comment,
      createdAtMs: row.created_at,
    }));
  },
};
