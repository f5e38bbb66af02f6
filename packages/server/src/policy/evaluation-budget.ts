/**
 * The work budget of one policy evaluation (contract §4.5: a decision over its cost budget is
 * DENIED with `signal:evaluation-budget`, never a 500 and never a stall of other requests).
 *
 * Work is counted in *steps* and charged before it is done, from sizes known in advance, so the
 * budget is deterministic (the same policy and document always give the same result, on any
 * machine and under any load) and no single piece of work can overrun it. A step is one RE2
 * instruction applied to one character, the unit of linear-time matching's worst case; other work
 * is weighed in the same unit (measured on the benchmark machine, bench/policy-budget.ts):
 * - a MATCHES test: the pattern's program size × (the text's length + 1), plus MATCH_CALL_STEPS;
 *   when the pattern has required literals (pattern-prefilter.ts), first one folding pass and one
 *   search per literal, each weighed as a CONTAINS over the text, and the test itself only when the
 *   text holds one of them;
 * - each candidate a `[*]` or bare-`args` path yields, and each element of a list read through
 *   `valuePath` for IN / NOT_IN: CANDIDATE_STEPS;
 * - CONTAINS on a string: one step per CONTAINS_CHARS_PER_STEP characters (rounded up);
 * - a binding: one step for its exact entries, plus (the subject's length + 1) × the weight of each
 *   glob entry (1, or the code points of its segments holding `?`, each of which may be tried at
 *   every position of the subject).
 * A step of re2js's NFA costs 30 to 50 ns on the benchmark machine at its worst (the DFA's memory
 * is bounded, see pattern.ts), so the budget keeps a whole evaluation under about 40 ms.
 */
export const EVALUATION_BUDGET_STEPS = 750_000;
export const MATCH_CALL_STEPS = 8;
export const CANDIDATE_STEPS = 3;
export const CONTAINS_CHARS_PER_STEP = 4;

/** Thrown by EvaluationMeter.charge; policy evaluation catches it and reports the exhaustion. */
export class EvaluationBudgetExceeded extends Error {
  constructor(
    readonly spent: number,
    readonly limit: number,
  ) {
    super(`policy evaluation needs more than ${limit} steps`);
    this.name = 'EvaluationBudgetExceeded';
  }
}

/** Counts the steps of one evaluation against its limit. */
export class EvaluationMeter {
  #spent = 0;

  constructor(readonly limit: number = EVALUATION_BUDGET_STEPS) {}

  get spent(): number {
    return this.#spent;
  }

  /** Charges work before it is done; throws EvaluationBudgetExceeded (charging nothing) when it would pass the limit. */
  charge(steps: number): void {
    if (this.#spent + steps > this.limit) throw new EvaluationBudgetExceeded(this.#spent, this.limit);
    this.#spent += steps;
  }
}

/** Steps of one CONTAINS over a string of `length` characters. */
export function containsSteps(length: number): number {
  return Math.ceil(length / CONTAINS_CHARS_PER_STEP);
}

/** Steps of ruling a text in or out by a pattern's required literals: one folding pass and one search per literal. */
export function prefilterSteps(literals: number, textLength: number): number {
  return containsSteps(textLength) * (literals + 1);
}

/** Worst-case steps of one MATCHES test of a program of `programSize` instructions over `textLength` characters. */
export function matchSteps(programSize: number, textLength: number): number {
  return programSize * (textLength + 1) + MATCH_CALL_STEPS;
}
