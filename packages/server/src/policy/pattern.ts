/**
 * MATCHES patterns: compiled with re2js (RE2 semantics, linear-time matching), never with RegExp.
 * A pattern is compiled once, when the policy is validated and again when it is compiled; RE2
 * refuses backreferences and lookaround (re2js' opt-in LOOKBEHINDS flag is never passed), and
 * this module names which construct made a pattern unacceptable.
 *
 * Matching is unanchored (a match anywhere in the string, like RegExp.prototype.test) and
 * case-sensitive unless the pattern says otherwise with RE2's inline `(?i)`.
 *
 * Linear time is not cheap time: RE2's work is at worst the compiled program's size times the
 * input's length, and RE2 allows counted repetitions up to 1,000, so `[a-z]{1000}` written a few
 * times compiles to tens of thousands of instructions. Saving a policy therefore also bounds what
 * a pattern compiles to (patternLimitIssue); the decision-time bound is evaluation-budget.ts, and
 * evaluation runs patterns as EvaluationPattern, whose cost per character the program size bounds.
 */
import { RE2JS, RE2Set } from 're2js';
import { mayMatch, requiredLiterals } from './pattern-prefilter.js';

export const MAX_PATTERN_LENGTH = 1_024;
/** Largest bound a counted repetition (`{n}`, `{n,}`, `{n,m}`) may name in a saved pattern. */
export const MAX_PATTERN_REPEAT = 100;
/** Largest compiled RE2 program (instructions) a saved pattern may have. */
export const MAX_PATTERN_PROGRAM_SIZE = 500;

export type PatternRefusal = 'backreference' | 'lookaround' | 'syntax' | 'too-long';

export type CompilePatternResult =
  | { ok: true; re: RE2JS }
  | { ok: false; refusal: PatternRefusal; message: string };

/**
 * Finds the first backreference or lookaround construct outside character classes, to say why
 * RE2 refused a pattern. Only consulted after re2js has refused it.
 */
export function findNonRe2Construct(
  pattern: string,
): { refusal: 'backreference' | 'lookaround'; construct: string; offset: number } | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && next >= '1' && next <= '9') {
        return { refusal: 'backreference', construct: `\\${next}`, offset: i };
      }
      if (!inClass && next === 'k' && "<{'".includes(pattern[i + 2] ?? '-')) {
        return { refusal: 'backreference', construct: pattern.slice(i, i + 3), offset: i };
      }
      i += 1;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal member of the class.
      if (pattern[i + 1] === '^') i += 1;
      if (pattern[i + 1] === ']') i += 1;
      continue;
    }
    if (ch === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2, i + 5);
      for (const look of ['=', '!', '<=', '<!']) {
        if (rest.startsWith(look)) return { refusal: 'lookaround', construct: `(?${look}`, offset: i };
      }
      if (rest.startsWith('P=') || rest.startsWith('P>') || rest.startsWith('&')) {
        return {
          refusal: 'backreference',
          construct: `(?${rest.startsWith('&') ? '&' : rest.slice(0, 2)}`,
          offset: i,
        };
      }
    }
  }
  return null;
}

export function compilePattern(pattern: string): CompilePatternResult {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return {
      ok: false,
      refusal: 'too-long',
      message: `pattern is longer than ${MAX_PATTERN_LENGTH} characters`,
    };
  }
  try {
    return { ok: true, re: RE2JS.compile(pattern) };
  } catch (error) {
    const found = findNonRe2Construct(pattern);
    if (found !== null) {
      return {
        ok: false,
        refusal: found.refusal,
        message: `pattern is not RE2 (${found.refusal}): ${JSON.stringify(found.construct)} at offset ${found.offset}; RE2 has no ${found.refusal === 'lookaround' ? 'lookahead or lookbehind' : 'backreferences'}`,
      };
    }
    const detail =
      error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    return { ok: false, refusal: 'syntax', message: `pattern is not valid RE2 syntax: ${detail}` };
  }
}

const REPEAT_AT = /^\{(\d+)(?:,(\d*))?\}/;

/**
 * The counted repetitions of a pattern RE2 accepted, as `{text, offset, bound}` where bound is the
 * larger number written. Escapes, `\Q…\E` quoting and character classes hold no repetition; in
 * an accepted pattern, every other `{n}`, `{n,}` or `{n,m}` is one (RE2 refuses a repetition with
 * nothing to repeat, and a `{` that does not spell one is a literal).
 */
export function countedRepetitions(pattern: string): Array<{ text: string; offset: number; bound: number }> {
  const found: Array<{ text: string; offset: number; bound: number }> = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        i = end === -1 ? pattern.length : end + 1;
      } else if ('pPx'.includes(next) && pattern[i + 2] === '{') {
        const end = pattern.indexOf('}', i + 3);
        i = end === -1 ? pattern.length : end;
      } else {
        i += 1;
      }
      continue;
    }
    if (inClass) {
      if (ch === '[' && pattern[i + 1] === ':') {
        const end = pattern.indexOf(':]', i + 2);
        if (end !== -1) i = end + 1;
      } else if (ch === ']') {
        inClass = false;
      }
      continue;
    }
    if (ch === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') i += 1;
      if (pattern[i + 1] === ']') i += 1;
      continue;
    }
    if (ch === '{') {
      const repeat = REPEAT_AT.exec(pattern.slice(i, i + 24));
      if (repeat !== null) {
        const [text, low, high] = repeat;
        const bound = Math.max(Number(low), high === undefined || high === '' ? 0 : Number(high));
        found.push({ text, offset: i, bound });
        i += text.length - 1;
      }
    }
  }
  return found;
}

/**
 * Why a pattern RE2 compiled is still too costly to save, or null: a counted repetition above
 * MAX_PATTERN_REPEAT, or a program above MAX_PATTERN_PROGRAM_SIZE instructions.
 */
export function patternLimitIssue(pattern: string, re: RE2JS): string | null {
  const repeat = countedRepetitions(pattern).find((r) => r.bound > MAX_PATTERN_REPEAT);
  if (repeat !== undefined) {
    return `pattern repeats too much: ${JSON.stringify(repeat.text)} at offset ${repeat.offset}; counted repetitions may not exceed ${MAX_PATTERN_REPEAT}`;
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM_SIZE) {
    return `pattern is too costly: it compiles to ${size} RE2 instructions, more than ${MAX_PATTERN_PROGRAM_SIZE}`;
  }
  return null;
}

/**
 * Memory for each evaluation pattern's lazy DFA. re2js' default (8 MiB) lets a pattern whose DFA
 * keeps growing spend several times the work of its NFA building states (about 100 ns per
 * instruction and character, measured) before falling back; with a small cache it falls back early
 * to the NFA (30 to 50 ns), and a policy's patterns hold little memory.
 */
export const EVALUATION_DFA_MEMORY = 64 * 1024;

/**
 * A saved pattern as policy evaluation runs it: a one-pattern RE2 set (re2js' public way to bound
 * the DFA's memory), unanchored, so `test` answers whether the pattern matches anywhere in the
 * text, exactly as RE2JS.test does. `literals`, when the pattern has them (pattern-prefilter.ts),
 * are strings one of which every match contains: `mayMatch` rules a text out in a few passes.
 */
export class EvaluationPattern {
  readonly programSize: number;
  readonly literals: readonly string[] | null;
  readonly #set: RE2Set;

  constructor(readonly source: string) {
    this.programSize = mustCompilePattern(source).programSize();
    this.literals = requiredLiterals(source);
    this.#set = new RE2Set(RE2Set.UNANCHORED, 0, EVALUATION_DFA_MEMORY);
    this.#set.add(source);
    this.#set.compile();
  }

  test(text: string): boolean {
    return this.#set.match(text).length > 0;
  }

  /** False when the text holds none of the literals (it cannot match); true without literals. */
  mayMatch(text: string): boolean {
    return this.literals === null || mayMatch(this.literals, text);
  }
}

/** Compiles a pattern known to be valid (compiled rules); throws otherwise. */
export function mustCompilePattern(pattern: string): RE2JS {
  const result = compilePattern(pattern);
  if (!result.ok) throw new Error(`invalid pattern ${JSON.stringify(pattern)}: ${result.message}`);
  return result.re;
}
