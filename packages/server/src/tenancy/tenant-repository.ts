import type { Kysely, Selectable } from 'kysely';
import type { Database, TenantsTable } from '../storage/schema.js';
import { isPlan, type Plan, type Tenant } from './tenant.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function toTenant(row: Selectable<TenantsTable>): Tenant {
  if (!isPlan(row.plan)) throw new Error(`tenant ${row.id} has an unknown plan in storage`);
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    rateLimitPerMinute: row.rate_limit_per_minute,
    killSwitch: {
      enabled: row.kill_switch_enabled === 1,
      reason: row.kill_switch_reason,
      changedBy: row.kill_switch_changed_by,
      changedAt: iso(row.kill_switch_changed_at),
    },
    ipAllowlist: JSON.parse(row.ip_allowlist) as string[],
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export interface NewTenant {
  id: string;
  name: string;
  plan: Plan;
  rateLimitPerMinute: number | null;
}

/** Tenants table access. Every method takes the executor so callers can run it inside a transaction. */
export const tenantRepository = {
  async insert(db: Kysely<Database>, tenant: NewTenant, now: number): Promise<Tenant> {
    const row = {
      id: tenant.id,
      name: tenant.name,
      plan: tenant.plan,
      rate_limit_per_minute: tenant.rateLimitPerMinute,
      kill_switch_enabled: 0,
      kill_switch_reason: null,
      kill_switch_changed_by: null,
      kill_switch_changed_at: null,
      ip_allowlist: '[]',
      created_at: now,
      updated_at: now,
    };
    await db.insertInto('tenants').values(row).execute();
    return toTenant(row);
  },

  async get(db: Kysely<Database>, id: string): Promise<Tenant | undefined> {
    const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toTenant(row) : undefined;
  },

  async list(db: Kysely<Database>): Promise<Tenant[]> {
    const rows = await db.selectFrom('tenants').selectAll().orderBy('id').execute();
    return rows.map(toTenant);
  },

  async count(db: Kysely<Database>): Promise<number> {
    const row = await db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  /** Changes plan and limit; returns the updated tenant, or undefined when it does not exist. */
  async updatePlan(
    db: Kysely<Database>,
    id: string,
    patch: { plan: Plan; rateLimitPerMinute: number | null },
    now: number,
  ): Promise<Tenant | undefined> {
    const result = await db
      .updateTable('tenants')
      .set({ plan: patch.plan, rate_limit_per_minute: patch.rateLimitPerMinute, updated_at: now })
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    return tenantRepository.get(db, id);
  },
};
