import type { Executor } from '../../storage/database.js';
import type { PhysicalPolicyDocument } from '../domain/index.js';

/** `physical_policies`: uploads versioned per tenant (1, 2, …), at most one active. */
export const physicalPolicyRepository = {
  /** The tenant's active version and when it was activated; undefined while the default applies. */
  async active(
    db: Executor,
    tenantId: string,
  ): Promise<{ version: number; activatedAtMs: number | null } | undefined> {
    const row = await db
      .selectFrom('physical_policies')
      .select(['version', 'activated_at'])
      .where('tenant_id', '=', tenantId)
      .where('active', '=', 1)
      .executeTakeFirst();
    return row && { version: row.version, activatedAtMs: row.activated_at };
  },

  /** The validated document of a version. */
  async document(
    db: Executor,
    tenantId: string,
    version: number,
  ): Promise<PhysicalPolicyDocument | undefined> {
    const row = await db
      .selectFrom('physical_policies')
      .select('document')
      .where('tenant_id', '=', tenantId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row && (JSON.parse(row.document) as PhysicalPolicyDocument);
  },

  /** The highest version number of the tenant, 0 when it has none. */
  async latestVersion(db: Executor, tenantId: string): Promise<number> {
    const max = await db
      .selectFrom('physical_policies')
      .select((eb) => eb.fn.max('version').as('max'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return Number(max?.max ?? 0);
  },

  async deactivate(trx: Executor, tenantId: string, version: number): Promise<void> {
    await trx
      .updateTable('physical_policies')
      .set({ active: 0 })
      .where('tenant_id', '=', tenantId)
      .where('version', '=', version)
      .execute();
  },

  /** Fails with a unique violation for a version taken, or a second active version of the tenant. */
  async insert(
    trx: Executor,
    upload: {
      tenantId: string;
      version: number;
      id: string;
      document: PhysicalPolicyDocument;
      active: boolean;
      createdAtMs: number;
      createdBy: string;
    },
  ): Promise<void> {
    await trx
      .insertInto('physical_policies')
      .values({
        tenant_id: upload.tenantId,
        version: upload.version,
        id: upload.id,
        document: JSON.stringify(upload.document),
        active: upload.active ? 1 : 0,
        created_at: upload.createdAtMs,
        created_by: upload.createdBy,
        activated_at: upload.active ? upload.createdAtMs : null,
      })
      .execute();
  },
};
