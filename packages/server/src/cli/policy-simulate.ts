/**
 * `authority policy test --sample FILE [--policy FILE] [--max-changes N]`: the simulation of
 * `POST /authority/policy/simulate` (contract §16), offline, against an exported sample, so that a
 * policy repository's CI shows "this change turns 4 escalations into approvals" before merge.
 *
 * The sample file is JSON lines, one recorded intent per line, as `GET /intents` (its `intents`
 * items) and `GET /intent/:id` return them: `{intentId, createdAt, request, authorityDecision:
 * {decision, decidingRule}}`; other fields are ignored, blank lines skipped. Export one with
 * `curl … /intents?limit=200 | jq -c '.intents[]' > sample.jsonl`. The recorded decision is the
 * "before"; the draft (`--policy`, default the starter policy) is evaluated with the default
 * thresholds, the catastrophic floor on and no blocked actor. A line that is not such an intent is
 * invalid input (exit 2), naming the line.
 */
import { readFileSync } from 'node:fs';
import type { Outcome } from '../intent/domain/evaluate-intent.js';
import { validateIntentRequest } from '../intent/domain/intent-request.js';
import {
  describeTransitions,
  type SimulationResult,
  type SimulationSample,
  simulatePolicy,
} from '../intent/domain/simulate-policy.js';
import { DEFAULT_THRESHOLDS } from '../intent/domain/thresholds.js';
import { compilePolicy } from '../policy/compile-policy.js';
import { isPlainObject } from '../policy/path.js';
import { EFFECTS, type MatchedRule, type Rule } from '../policy/rule.js';
import { PolicyTestInputError } from './policy-input-error.js';

const OUTCOMES: readonly string[] = ['APPROVED', 'ESCALATED', 'DENIED'];

function isMatchedRule(value: unknown): value is MatchedRule {
  return (
    isPlainObject(value) &&
    typeof value.id === 'string' &&
    typeof value.priority === 'number' &&
    (EFFECTS as readonly unknown[]).includes(value.effect)
  );
}

/** One line of a sample file as a simulation sample; throws PolicyTestInputError naming the line. */
function sampleOfLine(line: string, lineNumber: number): SimulationSample {
  const fail = (why: string): never => {
    throw new PolicyTestInputError(`sample line ${lineNumber}: ${why}`);
  };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(value))
    return fail('must be an intent object {intentId, createdAt, request, authorityDecision}');
  const { intentId, createdAt, authorityDecision } = value;
  if (typeof intentId !== 'string' || intentId === '') return fail('intentId: must be a non-empty string');
  const createdAtMs = typeof createdAt === 'string' ? Date.parse(createdAt) : Number.NaN;
  if (Number.isNaN(createdAtMs)) return fail('createdAt: must be an ISO 8601 instant');
  const request = validateIntentRequest(value.request);
  if (!request.ok) return fail(`request: ${request.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`);
  if (!isPlainObject(authorityDecision) || !OUTCOMES.includes(authorityDecision.decision as string)) {
    return fail(`authorityDecision.decision: must be one of ${OUTCOMES.join(', ')}`);
  }
  if (!isMatchedRule(authorityDecision.decidingRule)) {
    return fail('authorityDecision.decidingRule: must be {id, effect, priority}');
  }
  return {
    intentId,
    createdAtMs,
    request: request.value,
    before: { decision: authorityDecision.decision as Outcome, decidingRule: authorityDecision.decidingRule },
  };
}

/** The samples of a JSON-lines text, newest first (as the service replays them). */
export function parseSample(text: string): SimulationSample[] {
  const samples = text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
    .map(({ line, number }) => sampleOfLine(line, number));
  return samples.sort((a, b) => b.createdAtMs - a.createdAtMs || (a.intentId < b.intentId ? 1 : -1));
}

/**
 * Replays the samples against the rules at `at` (time-boxed rules) with the default thresholds,
 * floor on, no blocked actor and no budget: an exported sample carries neither.
 */
export function simulateSample(
  samples: readonly SimulationSample[],
  rules: readonly Rule[],
  at: number,
): SimulationResult {
  return simulatePolicy(samples, {
    thresholds: DEFAULT_THRESHOLDS,
    floorEnabled: true,
    policy: compilePolicy(rules),
    blockedActors: new Set(),
    budgetsByActor: new Map(),
    evaluatedAt: at,
  });
}

/** The report: the summary line first, then one line per listed change, then the counts. */
export function formatSimulation(result: SimulationResult): string[] {
  const lines = [describeTransitions(result.transitions)];
  for (const change of result.changes) {
    lines.push(
      `  ${change.intentId} ${new Date(change.createdAtMs).toISOString()}: ${change.before.decision} (${change.before.decidingRule.id}) -> ${change.after.decision} (${change.after.decidingRule.id})`,
    );
  }
  if (result.changed > result.changes.length) {
    lines.push(`  … and ${result.changed - result.changes.length} more`);
  }
  lines.push(`${result.evaluated} evaluated, ${result.changed} changed`);
  return lines;
}

/**
 * Reads the sample, replays it and prints the report. Exit 0, or 1 when more decisions changed
 * than `maxChanges` allows (when given).
 */
export function policySimulate(
  sampleFile: string,
  rules: readonly Rule[],
  maxChanges: number | undefined,
  out: NodeJS.WritableStream,
): number {
  let text: string;
  try {
    text = readFileSync(sampleFile, 'utf8');
  } catch (error) {
    throw new PolicyTestInputError(`cannot read sample ${sampleFile}: ${(error as Error).message}`);
  }
  const result = simulateSample(parseSample(text), rules, Date.now());
  out.write(`${formatSimulation(result).join('\n')}\n`);
  return maxChanges !== undefined && result.changed > maxChanges ? 1 : 0;
}
