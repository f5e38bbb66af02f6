import { compiledQuery } from '../storage/compiled-query.js';
import type { Executor } from '../storage/database.js';
import { forUpdate } from '../storage/row-lock.js';
import type { TenantsTable } from '../storage/schema.js';
import { isPlan, type Plan, type Tenant } from './tenant.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function toTenant(row: TenantsTable): Tenant {
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

/** What every request of a tenant needs besides its credential, as stored. */
export interface StoredAccess {
  plan: Plan;
  rateLimitPerMinute: number | null;
  ipAllowlist: string[];
}

// The kill switch and how many of the given actors are blocked, in one statement (a round trip on
// PostgreSQL), compiled per number of actors.
const withdrawnQuery = compiledQuery(
  (db: Executor, [id, actorIds]: [string, string[]]) =>
    db
      .selectFrom('tenants')
      .select('kill_switch_enabled')
      .select((eb) =>
        (actorIds.length === 0
          ? eb.val(0)
          : eb
              .selectFrom('authority_actors')
              .select(eb.fn.countAll<number | string>().as('blocked'))
              .whereRef('authority_actors.tenant_id', '=', 'tenants.id')
              .where('authority_actors.status', '=', 'blocked')
              .where('authority_actors.actor_id', 'in', actorIds)
        ).as('blocked'),
      )
      .where('id', '=', id),
  ([, actorIds]) => actorIds.length,
);

/** Tenants table access. Every method takes the executor so callers can run it inside a transaction. */
export const tenantRepository = {
  /**
   * Whether the tenant's kill switch is on (an unknown tenant's is: nothing may pass for it), and
   * whether any of `actorIds` is blocked in its actor list.
   */
  async withdrawn(
    db: Executor,
    id: string,
    actorIds: readonly string[],
  ): Promise<{ killSwitchOn: boolean; actorBlocked: boolean }> {
    const row = (await withdrawnQuery(db, [id, [...actorIds]])).rows[0];
    if (row === undefined) return { killSwitchOn: true, actorBlocked: false };
    return { killSwitchOn: row.kill_switch_enabled === 1, actorBlocked: Number(row.blocked) > 0 };
  },

  async insert(db: Executor, tenant: NewTenant, now: number): Promise<Tenant> {
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

  async get(db: Executor, id: string): Promise<Tenant | undefined> {
    const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toTenant(row) : undefined;
  },

  async list(db: Executor): Promise<Tenant[]> {
    const rows = await db.selectFrom('tenants').selectAll().orderBy('id').execute();
    return rows.map(toTenant);
  },

  async count(db: Executor): Promise<number> {
    const row = await db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  /** Changes plan and limit; returns the updated tenant, or undefined when it does not exist. */
  async updatePlan(
    db: Executor,
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

  /** Plan, limit and allowlist; undefined for an unknown tenant (or a plan this version does not know). */
  async access(db: Executor, id: string): Promise<StoredAccess | undefined> {
    const row = await db
      .selectFrom('tenants')
      .select(['plan', 'rate_limit_per_minute', 'ip_allowlist'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined || !isPlan(row.plan)) return undefined;
    return {
      plan: row.plan,
      rateLimitPerMinute: row.rate_limit_per_minute,
      ipAllowlist: JSON.parse(row.ip_allowlist) as string[],
    };
  },

  /** Replaces the allowlist; returns the one it replaced, or undefined for an unknown tenant. */
  async replaceAllowlist(
    trx: Executor,
    id: string,
    cidrs: readonly string[],
    now: number,
  ): Promise<string[] | undefined> {
    const before = await trx
      .selectFrom('tenants')
      .select('ip_allowlist')
      .where('id', '=', id)
      .executeTakeFirst();
    if (!before) return undefined;
    await trx
      .updateTable('tenants')
      .set({ ip_allowlist: JSON.stringify(cidrs), updated_at: now })
      .where('id', '=', id)
      .execute();
    return JSON.parse(before.ip_allowlist) as string[];
  },

  /**
   * Sets the kill switch; returns the switch it replaced (`enabled`, `reason`), or undefined for an
   * unknown tenant.
   */
  async setKillSwitch(
    trx: Executor,
    id: string,
    change: { enabled: boolean; reason: string | null; changedBy: string; changedAtMs: number },
  ): Promise<{ enabled: boolean; reason: string | null } | undefined> {
    const before = await trx
      .selectFrom('tenants')
      .select(['kill_switch_enabled', 'kill_switch_reason'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!before) return undefined;
    await trx
      .updateTable('tenants')
      .set({
        kill_switch_enabled: change.enabled ? 1 : 0,
        kill_switch_reason: change.reason,
        kill_switch_changed_by: change.changedBy,
        kill_switch_changed_at: change.changedAtMs,
        updated_at: change.changedAtMs,
      })
      .where('id', '=', id)
      .execute();
    return { enabled: before.kill_switch_enabled === 1, reason: before.kill_switch_reason };
  },

  /**
   * Locks the tenant's row for the rest of the transaction (PostgreSQL; SQLite's write transaction
   * holds the lock already), so that writes of one tenant that must follow each other queue up.
   */
  async lock(trx: Executor, id: string): Promise<void> {
    await forUpdate(trx, trx.selectFrom('tenants').select('id').where('id', '=', id)).execute();
  },

  /**
   * Records a one-time bootstrap action (the demo tenant) by name; its primary key makes a second
   * record fail with a unique violation, however many processes start together.
   */
  async recordBootstrap(trx: Executor, name: string, now: number): Promise<void> {
    await trx.insertInto('bootstrap').values({ name, created_at: now }).execute();
  },
};
