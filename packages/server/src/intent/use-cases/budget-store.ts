import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { validationError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import {
  appliesToActor,
  type Budget,
  type BudgetEffect,
  type BudgetWindow,
  counterKey,
  pastCountersBefore,
  validateBudgets,
  windowEnd,
  windowStart,
} from '../domain/budgets.js';
import { budgetRepository, type StoredBudgetSet } from '../repositories/budget-repository.js';
import { loadBudgetState } from './gate-context.js';

/** `GET` / `PUT /authority/budgets/:tenantId`. */
export interface BudgetSetView {
  tenantId: string;
  budgets: Budget[];
  updatedAt: string | null;
  updatedBy: string | null;
}

/** One line of `GET /authority/budgets/:tenantId/usage`. */
export interface BudgetUsage {
  budgetId: string;
  window: BudgetWindow;
  windowStart: string;
  windowEnd: string;
  approved: number;
  maxApproved: number;
  remaining: number;
  onExceeded: BudgetEffect;
}

export interface BudgetUsageView {
  tenantId: string;
  actorId: string;
  at: string;
  usage: BudgetUsage[];
}

function view(tenantId: string, set: StoredBudgetSet | undefined): BudgetSetView {
  return {
    tenantId,
    budgets: set === undefined ? [] : (JSON.parse(set.budgets) as Budget[]),
    updatedAt: set === undefined ? null : new Date(set.updatedAt).toISOString(),
    updatedBy: set?.updatedBy ?? null,
  };
}

/** Budgets per actor (contract §16): the list, its replacement (audited), and an actor's usage. */
export function createBudgetStore(deps: { storage: Storage; clock: Clock }) {
  const { storage, clock } = deps;
  return {
    async get(tenantId: string): Promise<BudgetSetView> {
      return view(tenantId, await budgetRepository.getSet(storage.db, tenantId));
    },

    /** Replaces the list (an empty list removes all); audited as `budgets.updated` with old and new. */
    async put(tenantId: string, principal: Principal, body: unknown): Promise<BudgetSetView> {
      const validated = validateBudgets(body);
      if (!validated.ok) throw validationError(validated.issues);
      const now = clock();
      const set: StoredBudgetSet = {
        budgets: JSON.stringify(validated.budgets),
        updatedAt: now,
        updatedBy: principal.id,
      };
      await storage.writeTransaction(async (trx) => {
        await chainRepository.lockHead(trx, tenantId, now);
        const old = await budgetRepository.getSet(trx, tenantId);
        await budgetRepository.putSet(trx, tenantId, set);
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'budgets.updated', {
              old: old === undefined ? [] : (JSON.parse(old.budgets) as Budget[]),
              new: validated.budgets,
            }),
          ],
          now,
        );
      });
      return view(tenantId, set);
    },

    /** The budgets that apply to the actor, with its count in each one's current window. */
    async usage(tenantId: string, actorId: string): Promise<BudgetUsageView> {
      const at = clock();
      const state = await loadBudgetState(storage, tenantId, actorId, at);
      const usage = state.budgets
        .filter((compiled) => appliesToActor(compiled, actorId))
        .map(({ budget }): BudgetUsage => {
          const start = windowStart(budget.window, at);
          const approved = state.counts.get(counterKey(budget.id, start)) ?? 0;
          return {
            budgetId: budget.id,
            window: budget.window,
            windowStart: new Date(start).toISOString(),
            windowEnd: new Date(windowEnd(budget.window, start)).toISOString(),
            approved,
            maxApproved: budget.maxApproved,
            remaining: Math.max(0, budget.maxApproved - approved),
            onExceeded: budget.onExceeded,
          };
        });
      return { tenantId, actorId, at: new Date(at).toISOString(), usage };
    },

    /**
     * Deletes the counters of past windows, which no decision reads again (the usage route and
     * simulations read the current windows only). Returns how many it deleted.
     */
    async sweepPast(): Promise<number> {
      return storage.writeTransaction((trx) => budgetRepository.deletePast(trx, pastCountersBefore(clock())));
    },
  };
}

export type BudgetStore = ReturnType<typeof createBudgetStore>;
