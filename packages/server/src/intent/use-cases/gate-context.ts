import { LRUCache } from 'lru-cache';
import { AppError } from '../../errors/app-error.js';
import type { Storage } from '../../storage/database.js';
import { floorSetting } from '../../tenancy/tenant-controls.js';
import {
  type Budget,
  type BudgetState,
  type CompiledBudget,
  compileBudgets,
  counterKey,
  NO_BUDGETS,
  windowStarts,
} from '../domain/budgets.js';
import type { GateContext } from '../domain/gates.js';
import type { ThresholdsRecord } from '../domain/thresholds.js';
import { budgetRepository, type StoredBudgetSet } from '../repositories/budget-repository.js';
import { gateContextRepository } from '../repositories/gate-context-repository.js';
import type { PolicyStore } from './policy-store.js';
import { thresholdsOfSettings } from './thresholds-store.js';

/** The gates' context, with the tenant's full thresholds record (TTLs of tokens and approvals). */
export interface LoadedGateContext extends GateContext {
  thresholds: ThresholdsRecord;
}

/**
 * Everything the gates read, in one query (the tenant, its settings row holding thresholds, floor
 * and active policy version, and the actor's status), plus the compiled policy, cached per version.
 * The one place a tenant's GateContext is built: `POST /intent` and `/authority/evaluate` both
 * evaluate `{...context, request}`.
 */
export async function loadGateContext(
  deps: { storage: Storage; policies: PolicyStore },
  tenantId: string,
  actorId: string,
  at: number,
): Promise<LoadedGateContext> {
  const [stored, budgets] = await Promise.all([
    gateContextRepository.get(deps.storage.db, tenantId, actorId),
    loadBudgetState(deps.storage, tenantId, actorId, at),
  ]);
  if (!stored) throw new AppError('NOT_FOUND', 'No such tenant');
  const { tenant, settings } = stored;
  const policy = await deps.policies.activeAt(tenantId, settings?.activePolicyVersion ?? null);
  return {
    killSwitch: { enabled: tenant.killSwitch.enabled, reason: tenant.killSwitch.reason },
    actorBlocked: stored.actorStatus === 'blocked',
    thresholds: thresholdsOfSettings(tenantId, settings),
    floorEnabled: floorSetting(tenantId, settings).enabled,
    policy: policy.compiled,
    evaluatedAt: at,
    budgets,
  };
}

/**
 * Compiled budget lists by tenant, each with the stored text it was compiled from: a decision
 * reads the tenant's list and compiles it again only when the text changed (a list of up to 1 MiB
 * of globs took up to half a second to compile).
 */
const compiledBudgets = new LRUCache<string, { text: string; compiled: CompiledBudget[] }>({ max: 1_000 });

/** The compiled budgets of a tenant's stored set (none when the tenant has none). */
export function budgetsOfSet(tenantId: string, set: StoredBudgetSet | undefined): CompiledBudget[] {
  if (set === undefined) return [];
  const cached = compiledBudgets.get(tenantId);
  if (cached !== undefined && cached.text === set.budgets) return cached.compiled;
  const compiled = compileBudgets(JSON.parse(set.budgets) as Budget[]);
  compiledBudgets.set(tenantId, { text: set.budgets, compiled });
  return compiled;
}

/** The tenant's budgets and the actor's counts in the windows holding `at` (none read without budgets). */
export async function loadBudgetState(
  storage: Storage,
  tenantId: string,
  actorId: string,
  at: number,
): Promise<BudgetState> {
  const budgets = budgetsOfSet(tenantId, await budgetRepository.getSet(storage.db, tenantId));
  if (budgets.length === 0) return NO_BUDGETS;
  const counters = await budgetRepository.counters(storage.db, tenantId, actorId, windowStarts(at));
  return {
    budgets,
    counts: new Map(counters.map((c) => [counterKey(c.budgetId, c.windowStart), c.approved])),
  };
}
