import { sql } from 'kysely';
import { compiledQuery } from '../../storage/compiled-query.js';
import type { Executor } from '../../storage/database.js';

/** A tenant's stored budget list: JSON as validated, with who changed it and when. */
export interface StoredBudgetSet {
  budgets: string;
  updatedAt: number;
  updatedBy: string;
}

/** An actor's count of APPROVED decisions under one budget in one window. */
export interface BudgetCounter {
  budgetId: string;
  windowStart: number;
  approved: number;
}

/** A tenant's budget list, read by every decision: compiled once. */
const budgetSetQuery = compiledQuery((db: Executor, [tenantId]: [string]) =>
  db
    .selectFrom('budget_sets')
    .select(['budgets', 'updated_at', 'updated_by'])
    .where('tenant_id', '=', tenantId),
);

/** Budgets and their counters (contract §16). */
export const budgetRepository = {
  async getSet(db: Executor, tenantId: string): Promise<StoredBudgetSet | undefined> {
    const [row] = (await budgetSetQuery(db, [tenantId])).rows;
    return row && { budgets: row.budgets, updatedAt: Number(row.updated_at), updatedBy: row.updated_by };
  },

  /** Replaces the tenant's budget list. */
  async putSet(trx: Executor, tenantId: string, set: StoredBudgetSet): Promise<void> {
    await trx
      .insertInto('budget_sets')
      .values({
        tenant_id: tenantId,
        budgets: set.budgets,
        updated_at: set.updatedAt,
        updated_by: set.updatedBy,
      })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet({
          budgets: set.budgets,
          updated_at: set.updatedAt,
          updated_by: set.updatedBy,
        }),
      )
      .execute();
  },

  /** The actor's counters in the given windows (by their start), of every budget. */
  async counters(
    db: Executor,
    tenantId: string,
    actorId: string,
    windowStarts: readonly number[],
  ): Promise<BudgetCounter[]> {
    if (windowStarts.length === 0) return [];
    const rows = await db
      .selectFrom('budget_counters')
      .select(['budget_id', 'window_start', 'approved'])
      .where('tenant_id', '=', tenantId)
      .where('actor_id', '=', actorId)
      .where('window_start', 'in', [...windowStarts])
      .execute();
    return rows.map((row) => ({
      budgetId: row.budget_id,
      windowStart: Number(row.window_start),
      approved: Number(row.approved),
    }));
  },

  /**
   * Takes one unit of a budget for an actor in a window, inside the decision's transaction: the
   * count goes up by one only while it is below `max`. Returns whether it did and the count after
   * (unchanged when the budget was already used up). On PostgreSQL the update waits for a
   * concurrent decision's lock on the row and re-checks the count that decision committed.
   */
  async take(
    trx: Executor,
    key: { tenantId: string; actorId: string; budgetId: string; windowStart: number },
    max: number,
  ): Promise<{ taken: boolean; approved: number }> {
    await trx
      .insertInto('budget_counters')
      .values({
        tenant_id: key.tenantId,
        actor_id: key.actorId,
        budget_id: key.budgetId,
        window_start: key.windowStart,
        approved: 0,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'actor_id', 'budget_id', 'window_start']).doNothing())
      .execute();
    const row = await trx
      .updateTable('budget_counters')
      .set({ approved: sql`approved + 1` })
      .where('tenant_id', '=', key.tenantId)
      .where('actor_id', '=', key.actorId)
      .where('budget_id', '=', key.budgetId)
      .where('window_start', '=', key.windowStart)
      .where('approved', '<', max)
      .returning('approved')
      .executeTakeFirst();
    if (row !== undefined) return { taken: true, approved: Number(row.approved) };
    const current = await trx
      .selectFrom('budget_counters')
      .select('approved')
      .where('tenant_id', '=', key.tenantId)
      .where('actor_id', '=', key.actorId)
      .where('budget_id', '=', key.budgetId)
      .where('window_start', '=', key.windowStart)
      .executeTakeFirstOrThrow();
    return { taken: false, approved: Number(current.approved) };
  },

  /** Deletes the counters of every tenant whose window started before `before`; returns how many. */
  async deletePast(db: Executor, before: number): Promise<number> {
    const result = await db
      .deleteFrom('budget_counters')
      .where('window_start', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Gives back a unit taken earlier in the same transaction (the decision did not stay APPROVED). */
  async giveBack(
    trx: Executor,
    key: { tenantId: string; actorId: string; budgetId: string; windowStart: number },
  ): Promise<void> {
    await trx
      .updateTable('budget_counters')
      .set({ approved: sql`approved - 1` })
      .where('tenant_id', '=', key.tenantId)
      .where('actor_id', '=', key.actorId)
      .where('budget_id', '=', key.budgetId)
      .where('window_start', '=', key.windowStart)
      .where('approved', '>', 0)
      .execute();
  },
};
