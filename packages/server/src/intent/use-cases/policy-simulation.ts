import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { validationError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import { compilePolicy } from '../../policy/compile-policy.js';
import { EFFECTS, type MatchedRule } from '../../policy/rule.js';
import type { Storage } from '../../storage/database.js';
import { authorityActorRepository } from '../../tenancy/authority-actor-repository.js';
import { floorSetting } from '../../tenancy/tenant-controls.js';
import { tenantSettingsRepository } from '../../tenancy/tenant-settings-repository.js';
import { type BudgetState, counterKey, windowStarts } from '../domain/budgets.js';
import type { Outcome } from '../domain/evaluate-intent.js';
import { validateIntentRequest } from '../domain/intent-request.js';
import {
  EMPTY_SIMULATION,
  mergeSimulations,
  type SimulatedDecision,
  type SimulationChange,
  type SimulationSample,
  simulatePolicy,
} from '../domain/simulate-policy.js';
import { budgetRepository } from '../repositories/budget-repository.js';
import { intentRepository, type StoredSample } from '../repositories/intent-repository.js';
import { budgetsOfSet } from './gate-context.js';
import type { PolicyStore } from './policy-store.js';
import { thresholdsOfSettings } from './thresholds-store.js';

export const DEFAULT_SAMPLE_LIMIT = 1_000;
/** Intents read and replayed per turn of the event loop. */
const SAMPLE_PAGE = 100;

/** The body of `POST /authority/policy/simulate` (contract §16), after schema validation. */
export interface SimulationBody {
  rules?: unknown[] | undefined;
  version?: number | undefined;
  replacePacks?: boolean | undefined;
  sample?:
    | {
        limit?: number | undefined;
        from?: string | undefined;
        to?: string | undefined;
        actorId?: string | undefined;
        targetSystem?: string | undefined;
      }
    | undefined;
}

export interface SimulationView {
  evaluated: number;
  changed: number;
  transitions: Record<string, number>;
  changes: Array<Omit<SimulationChange, 'createdAtMs'> & { createdAt: string }>;
  durationMs: number;
}

const OUTCOMES: ReadonlySet<string> = new Set<Outcome>(['APPROVED', 'ESCALATED', 'DENIED']);

function isMatchedRule(value: unknown): value is MatchedRule {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  return (
    typeof rule.id === 'string' &&
    typeof rule.priority === 'number' &&
    (EFFECTS as readonly unknown[]).includes(rule.effect)
  );
}

/**
 * A stored intent as a sample; undefined when its record cannot be replayed (a request that no
 * longer validates, a decision without its deciding rule): such intents are left out of the count.
 */
export function toSample(row: StoredSample): SimulationSample | undefined {
  const request = validateIntentRequest(row.request);
  const decidingRule = row.authorityDecision.decidingRule;
  if (!request.ok || !OUTCOMES.has(row.decision) || !isMatchedRule(decidingRule)) return undefined;
  const before: SimulatedDecision = { decision: row.decision, decidingRule };
  return { intentId: row.id, createdAtMs: row.createdAtMs, request: request.value, before };
}

function checkBody(body: SimulationBody): { fromMs?: number; toMs?: number } {
  const issues: Array<{ path: string; message: string }> = [];
  if ((body.rules === undefined) === (body.version === undefined)) {
    issues.push({ path: '/', message: 'give exactly one of rules (a draft) and version (a stored version)' });
  }
  if (body.version !== undefined && body.replacePacks !== undefined) {
    issues.push({
      path: '/replacePacks',
      message: 'applies to a draft of rules only, not to a stored version',
    });
  }
  const fromMs = body.sample?.from === undefined ? undefined : Date.parse(body.sample.from);
  const toMs = body.sample?.to === undefined ? undefined : Date.parse(body.sample.to);
  if (fromMs !== undefined && toMs !== undefined && fromMs > toMs) {
    issues.push({ path: '/sample/from', message: 'must not be after sample.to' });
  }
  if (issues.length > 0) throw validationError(issues);
  return { ...(fromMs === undefined ? {} : { fromMs }), ...(toMs === undefined ? {} : { toMs }) };
}

/**
 * `POST /authority/policy/simulate`: loads the draft (or a stored version), the tenant's current
 * thresholds, floor and actor list, and the most recent matching intents, replays them with the
 * pure `simulatePolicy`, and appends one `policy.simulated` entry with the counts. Decides nothing,
 * mints nothing, changes no counter.
 */
export function createPolicySimulation(deps: { storage: Storage; clock: Clock; policies: PolicyStore }) {
  const { storage, clock, policies } = deps;
  const db = storage.db;

  return async function simulate(principal: Principal, body: SimulationBody): Promise<SimulationView> {
    const started = performance.now();
    const range = checkBody(body);
    const tenantId = principal.tenantId;
    const rules =
      body.version === undefined
        ? (await policies.draftOf(tenantId, { rules: body.rules, replacePacks: body.replacePacks })).rules
        : await policies.storedRules(tenantId, body.version);
    const [settings, actors] = await Promise.all([
      tenantSettingsRepository.get(db, tenantId),
      authorityActorRepository.list(db, tenantId),
    ]);
    const now = clock();
    const context = {
      thresholds: thresholdsOfSettings(tenantId, settings),
      floorEnabled: floorSetting(tenantId, settings).enabled,
      policy: compilePolicy(rules),
      blockedActors: new Set(actors.filter((a) => a.status === 'blocked').map((a) => a.actorId)),
      evaluatedAt: now,
    };
    const usage = budgetUsage(storage, tenantId, now);
    // The sample is read and replayed a page at a time, with a turn of the event loop between
    // pages: a sample of 10,000 large intents neither holds the process's other requests for its
    // whole run nor sits in memory at once.
    let result = EMPTY_SIMULATION;
    let remaining = body.sample?.limit ?? DEFAULT_SAMPLE_LIMIT;
    let before: string | undefined;
    while (remaining > 0) {
      const rows = await intentRepository.sample(db, tenantId, {
        limit: Math.min(remaining, SAMPLE_PAGE),
        before,
        ...range,
        actorId: body.sample?.actorId,
        targetSystem: body.sample?.targetSystem,
      });
      const samples = rows.flatMap((row) => toSample(row) ?? []);
      const page = simulatePolicy(samples, { ...context, budgetsByActor: await usage(samples) });
      result = mergeSimulations(result, page);
      remaining -= rows.length;
      before = rows.at(-1)?.id;
      if (rows.length < SAMPLE_PAGE) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const durationMs = Math.round(performance.now() - started);
    await storage.writeTransaction((trx) =>
      chainRepository.append(
        trx,
        tenantId,
        [
          principalEvent(principal, 'policy.simulated', {
            draft: body.version === undefined ? 'rules' : 'version',
            ...(body.version === undefined ? {} : { version: body.version }),
            ruleCount: rules.length,
            sample: body.sample ?? {},
            evaluated: result.evaluated,
            changed: result.changed,
            transitions: result.transitions,
            durationMs,
          }),
        ],
        now,
      ),
    );
    return {
      evaluated: result.evaluated,
      changed: result.changed,
      transitions: result.transitions,
      changes: result.changes.map(({ createdAtMs, ...change }) => ({
        ...change,
        createdAt: new Date(createdAtMs).toISOString(),
      })),
      durationMs,
    };
  };
}

export type PolicySimulation = ReturnType<typeof createPolicySimulation>;

/**
 * Each sampled actor's usage of the tenant's budgets in the windows holding `at`, read once per
 * actor over the pages of a sample (the budgets are read once; no entry for anyone when the tenant
 * has none). Reads only: a simulation changes no counter.
 */
function budgetUsage(storage: Storage, tenantId: string, at: number) {
  const usage = new Map<string, BudgetState>();
  const starts = windowStarts(at);
  let budgets: ReturnType<typeof budgetsOfSet> | undefined;
  return async (samples: readonly SimulationSample[]): Promise<Map<string, BudgetState>> => {
    budgets ??= budgetsOfSet(tenantId, await budgetRepository.getSet(storage.db, tenantId));
    if (budgets.length === 0) return usage;
    for (const actorId of new Set(samples.map((sample) => sample.request.actor.id))) {
      if (usage.has(actorId)) continue;
      const counters = await budgetRepository.counters(storage.db, tenantId, actorId, starts);
      usage.set(actorId, {
        budgets,
        counts: new Map(counters.map((c) => [counterKey(c.budgetId, c.windowStart), c.approved])),
      });
    }
    return usage;
  };
}
