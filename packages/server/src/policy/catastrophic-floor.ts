/**
 * The catastrophic floor (contract §4.5): a built-in rule `catastrophic-floor`, priority 1, effect
 * ESCALATE, matching when `proposedAction` or any string leaf (key or value) of `args`, to depth 16,
 * matches one of the patterns below, case-insensitively, under RE2 semantics (re2js, compiled once
 * at module load). Whether the floor is enabled for a tenant is the caller's concern.
 *
 * Scan order: proposedAction first, then args in document order (a key before its value); for each
 * string the patterns in the order listed. The first hit is reported.
 */

import { RE2JS } from 're2js';
import { clipText } from '../foundation/text.js';
import { forEachArgsString, formatLocation } from './path.js';
import { FLOOR_RULE_ID, type MatchedRule } from './rule.js';

/** Exactly the contract's patterns, in its order. */
export const FLOOR_PATTERNS = [
  String.raw`\bdrop\s+(table|database|schema|index|view)\b`,
  String.raw`\bdrop\b`,
  String.raw`\btruncate\b`,
  String.raw`\bdelete\s+from\b`,
  String.raw`\brm\s+(-[a-z]*r[a-z]*f[a-z]*|-[a-z]*f[a-z]*r[a-z]*|-r\s+-f|-f\s+-r|--recursive\s+--force|--force\s+--recursive)\b`,
  String.raw`\bgit\s+push\b.*(\s-f\b|--force|\s\+\S)`,
  '--no-preserve-root',
] as const;

export const FLOOR_PRIORITY = 1;
export const FLOOR_MATCHED_RULE: Readonly<MatchedRule> = Object.freeze({
  id: FLOOR_RULE_ID,
  effect: 'ESCALATE',
  priority: FLOOR_PRIORITY,
});

const COMPILED = FLOOR_PATTERNS.map((source) => ({
  source,
  re: RE2JS.compile(source, RE2JS.CASE_INSENSITIVE),
}));
/** All patterns in one RE2 program: one linear pass screens a string; the listed ones then name the hit. */
const ANY = RE2JS.compile(FLOOR_PATTERNS.map((source) => `(?:${source})`).join('|'), RE2JS.CASE_INSENSITIVE);

const EXCERPT_LENGTH = 80;

export type FloorMatch =
  | { matched: false }
  | {
      matched: true;
      /** The pattern's source, as in FLOOR_PATTERNS. */
      pattern: string;
      /**
       * `proposedAction`, or the path of the args leaf (`args.sql`, `args.steps[1].run`,
       * `args["a b"]`); for a matching object key, that key's path followed by ` (key)`.
       */
      location: string;
      /** The matched text (at most 80 characters, then `…`). */
      excerpt: string;
    };

function firstHit(text: string): { pattern: string; excerpt: string } | null {
  if (!ANY.test(text)) return null;
  for (const { source, re } of COMPILED) {
    if (!re.test(text)) continue;
    const matcher = re.matcher(text);
    const found = matcher.find() ? (matcher.group() ?? '') : '';
    return {
      pattern: source,
      excerpt: found.length > EXCERPT_LENGTH ? `${clipText(found, EXCERPT_LENGTH)}…` : found,
    };
  }
  return null;
}

export function matchFloor(proposedAction: string, args: unknown): FloorMatch {
  const inAction = firstHit(proposedAction);
  if (inAction !== null) return { matched: true, location: 'proposedAction', ...inAction };
  let result: FloorMatch = { matched: false };
  forEachArgsString(args, (text, isKey, steps) => {
    const hit = firstHit(text);
    if (hit === null) return false;
    const path = formatLocation('args', steps);
    result = { matched: true, location: isKey ? `${path} (key)` : path, ...hit };
    return true;
  });
  return result;
}
