/**
 * MATCHES patterns: compiled with re2js (RE2 semantics, linear-time matching), never with RegExp.
 * A pattern is compiled once, when the policy is validated and again when it is compiled; RE2
 * refuses backreferences and lookaround (re2js' opt-in LOOKBEHINDS flag is never passed), and
 * this module names which construct made a pattern unacceptable.
 *
 * Matching is unanchored (a match anywhere in the string, like RegExp.prototype.test) and
 * case-sensitive unless the pattern says otherwise with RE2's inline `(?i)`.
 */
import { RE2JS } from 're2js';

export const MAX_PATTERN_LENGTH = 1_024;

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

/** Compiles a pattern known to be valid (compiled rules); throws otherwise. */
export function mustCompilePattern(pattern: string): RE2JS {
  const result = compilePattern(pattern);
  if (!result.ok) throw new Error(`invalid pattern ${JSON.stringify(pattern)}: ${result.message}`);
  return result.re;
}
