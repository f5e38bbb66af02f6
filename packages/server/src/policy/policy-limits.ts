import type { PathRoot } from './path.js';

/** The size limits of a policy and its rules (contract §4.5), checked by validatePolicy. */

export const MAX_RULE_ID_LENGTH = 200;
export const MIN_RULE_PRIORITY = 2;
export const MAX_RULE_PRIORITY = 10_000;
export const MAX_CONDITION_DEPTH = 16;
export const MAX_DESCRIPTION_LENGTH = 2_000;
export const MAX_BINDING_ENTRIES = 1_000;
export const MAX_BINDING_ENTRY_LENGTH = 256;
export const MAX_LIST_ENTRIES = 1_000;
export const MAX_ISSUES = 100;
/**
 * Ceiling on a policy's MATCHES work over the largest request: the sum, over its MATCHES
 * conditions, of the worst-case steps of one test over the longest text the path can hold. It
 * bounds compiled size where it costs most (args); the per-decision budget (evaluation-budget.ts)
 * bounds what an actual request costs.
 */
export const MAX_POLICY_MATCH_STEPS = 200_000_000;
/** The longest text under each root (contract §4.1): args ≤ 64 KiB, proposedAction ≤ 4,000, … */
export const ROOT_TEXT_LIMITS: Readonly<Record<PathRoot, number>> = {
  args: 64 * 1024,
  github: 4_096,
  proposedAction: 4_000,
  actor: 200,
  targetSystem: 140,
  intent: 16,
  risk: 16,
  thresholds: 16,
};
