/**
 * Rule-based interpretation of an intent's text into taxonomy hypotheses (contract §4.2).
 *
 * - Words: each source split on every run of characters that is neither a letter nor a digit
 *   (Unicode-aware), lower-cased. `createIssue` is one word (`createissue`) and so not a verb;
 *   `create_issue` and `create-issue` are two words.
 * - Sources, in this order: `proposedAction`, `args.operation`, `args.command`; the two `args` fields
 *   are read only when `args` is a plain object and the field is a string.
 * - The first word is the first word of `proposedAction` only.
 * - Every word found in the verb table is an occurrence `(code, operation)`, in source order.
 *
 * Primary hypothesis:
 * - no verb at all: `OI-100`, `write`, 0.3;
 * - read and write verbs both present: the code of the first write verb, `write`, 0.6;
 * - otherwise the first verb found: 0.9 when it is the first word of `proposedAction`, else 0.7.
 *
 * Alternates (audit only, at most 3): the other distinct `(code, operation)` pairs found, in the
 * order of their first appearance. The contract does not say how confident an alternate is; we give
 * each the confidence its first occurrence would earn on its own (0.9 as the first word, 0.7 later),
 * capped at the primary's confidence, so an alternate never outranks the primary. In practice this
 * makes alternates 0.7 beside a 0.9 or 0.7 primary and 0.6 beside a mixed (0.6) primary.
 */

export type OperationType = 'read' | 'write';

export interface Hypothesis {
  oiCode: string;
  operationType: OperationType;
  confidence: number;
}

export interface Interpretation {
  primary: Hypothesis;
  alternates: Hypothesis[];
}

export interface VerbRow {
  verbs: readonly string[];
  oiCode: string;
  operationType: OperationType;
}

/** The verb table of contract §4.2, row by row. */
export const VERB_TABLE: readonly VerbRow[] = [
  {
    verbs: [
      'list',
      'get',
      'read',
      'view',
      'show',
      'clone',
      'fetch',
      'diff',
      'log',
      'status',
      'search',
      'describe',
    ],
    oiCode: 'OI-101',
    operationType: 'read',
  },
  {
    verbs: ['create', 'update', 'push', 'delete', 'commit', 'tag'],
    oiCode: 'OI-101',
    operationType: 'write',
  },
  {
    verbs: ['merge', 'approve', 'close', 'comment', 'review', 'label'],
    oiCode: 'OI-105',
    operationType: 'write',
  },
  { verbs: ['deploy', 'release', 'rollback', 'promote'], oiCode: 'OI-104', operationType: 'write' },
  {
    verbs: ['run', 'exec', 'execute', 'build', 'test', 'dispatch'],
    oiCode: 'OI-102',
    operationType: 'write',
  },
  { verbs: ['drop', 'truncate', 'migrate'], oiCode: 'OI-305', operationType: 'write' },
];

export const CONFIDENCE_FIRST_WORD = 0.9;
export const CONFIDENCE_LATER_WORD = 0.7;
export const CONFIDENCE_MIXED = 0.6;
export const CONFIDENCE_UNKNOWN = 0.3;
export const UNKNOWN_OI_CODE = 'OI-100';
export const MAX_ALTERNATES = 3;

const VERBS: ReadonlyMap<string, VerbRow> = new Map(
  VERB_TABLE.flatMap((row) => row.verbs.map((verb) => [verb, row] as const)),
);

const SEPARATOR = /[^\p{L}\p{N}]+/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The words of a text: split on non-alphanumerics, lower-cased, empty pieces dropped. */
export function words(text: string): string[] {
  return text
    .split(SEPARATOR)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

/** False when the action holds no letter or digit after trimming (400 `INVALID_INTENT` upstream). */
export function isInterpretable(proposedAction: string): boolean {
  return LETTER_OR_DIGIT.test(proposedAction.trim());
}

/** The verb-table row of one word, if it is a verb. */
export function verbRow(word: string): VerbRow | undefined {
  return VERBS.get(word.toLowerCase());
}

interface Occurrence {
  oiCode: string;
  operationType: OperationType;
  firstWord: boolean;
}

function argString(args: unknown, field: 'operation' | 'command'): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const value = (args as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

function occurrences(proposedAction: string, args: unknown): Occurrence[] {
  const found: Occurrence[] = [];
  const sources = [proposedAction, argString(args, 'operation'), argString(args, 'command')];
  sources.forEach((source, sourceIndex) => {
    if (source === undefined) return;
    words(source).forEach((word, wordIndex) => {
      const row = VERBS.get(word);
      if (row === undefined) return;
      found.push({
        oiCode: row.oiCode,
        operationType: row.operationType,
        firstWord: sourceIndex === 0 && wordIndex === 0,
      });
    });
  });
  return found;
}

const pairKey = (oiCode: string, operationType: OperationType): string => `${oiCode}|${operationType}`;

/** Interprets an action (and `args.operation` / `args.command`) into a primary and alternates. */
export function interpret(proposedAction: string, args: unknown): Interpretation {
  const found = occurrences(proposedAction, args);
  const first = found[0];
  if (first === undefined) {
    return {
      primary: { oiCode: UNKNOWN_OI_CODE, operationType: 'write', confidence: CONFIDENCE_UNKNOWN },
      alternates: [],
    };
  }

  const firstWrite = found.find((occurrence) => occurrence.operationType === 'write');
  const mixed = firstWrite !== undefined && found.some((occurrence) => occurrence.operationType === 'read');
  const primary: Hypothesis =
    mixed && firstWrite !== undefined
      ? { oiCode: firstWrite.oiCode, operationType: 'write', confidence: CONFIDENCE_MIXED }
      : {
          oiCode: first.oiCode,
          operationType: first.operationType,
          confidence: first.firstWord ? CONFIDENCE_FIRST_WORD : CONFIDENCE_LATER_WORD,
        };

  const seen = new Set([pairKey(primary.oiCode, primary.operationType)]);
  const alternates: Hypothesis[] = [];
  for (const occurrence of found) {
    if (alternates.length === MAX_ALTERNATES) break;
    const key = pairKey(occurrence.oiCode, occurrence.operationType);
    if (seen.has(key)) continue;
    seen.add(key);
    const own = occurrence.firstWord ? CONFIDENCE_FIRST_WORD : CONFIDENCE_LATER_WORD;
    alternates.push({
      oiCode: occurrence.oiCode,
      operationType: occurrence.operationType,
      confidence: Math.min(own, primary.confidence),
    });
  }
  return { primary, alternates };
}
