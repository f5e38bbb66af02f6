/**
 * Condition paths (contract §4.5): parsing and resolution against the evaluation document.
 *
 * Grammar (no whitespace anywhere):
 *   path     = root segment*
 *   root     = one of PATH_ROOTS
 *   segment  = "." ident | "[" quoted "]" | "[" index "]" | "[*]"
 *   ident    = [A-Za-z_$][A-Za-z0-9_$-]*
 *   quoted   = a "…" or '…' string; escapes \\ \" \' \/ \b \f \n \r \t \uXXXX
 *   index    = 0 | [1-9][0-9]{0,8}
 *
 * Resolution is pure: `.key` and `["key"]` read an own property of a plain object, `[n]` an array
 * element, `[*]` every element of an array (existential: the condition holds when any candidate
 * satisfies it). Anything else (a key on an array or a string, an index on an object, a missing
 * key) yields no candidate: the path is missing. A bare `args` path is special: its candidates are
 * every string leaf of `args`, keys and values, to depth 16 (see forEachArgsString).
 */
import type { EvaluationDocument } from './rule.js';

export const PATH_ROOTS = [
  'actor',
  'targetSystem',
  'proposedAction',
  'args',
  'intent',
  'risk',
  'github',
  'thresholds',
] as const;
export type PathRoot = (typeof PATH_ROOTS)[number];

/** Containers below this depth are not descended by the bare-`args` scan (args itself is depth 0). */
export const ARGS_SCAN_MAX_DEPTH = 16;

export type PathSegment =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' };

export interface ParsedPath {
  readonly text: string;
  readonly root: PathRoot;
  readonly segments: readonly PathSegment[];
  /** The path is exactly `args`: its candidates are the string leaves of args. */
  readonly bareArgs: boolean;
  readonly hasWildcard: boolean;
}

export type ParsePathResult = { ok: true; path: ParsedPath } | { ok: false; error: string };

const ROOT_SET: ReadonlySet<string> = new Set(PATH_ROOTS);
const MAX_INDEX_DIGITS = 9;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  "'": "'",
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function isIdentStart(ch: string): boolean {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch === '_' || ch === '$';
}

function isIdentPart(ch: string): boolean {
  return isIdentStart(ch) || (ch >= '0' && ch <= '9') || ch === '-';
}

function isHex(ch: string): boolean {
  return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

export function parsePath(text: string): ParsePathResult {
  if (text.length === 0) return { ok: false, error: 'path is empty' };
  let i = 0;
  const fail = (what: string): ParsePathResult => ({ ok: false, error: `${what} at offset ${i}` });
  const readIdent = (): string | null => {
    const start = i;
    if (i >= text.length || !isIdentStart(text[i] as string)) return null;
    i += 1;
    while (i < text.length && isIdentPart(text[i] as string)) i += 1;
    return text.slice(start, i);
  };

  const root = readIdent();
  if (root === null) return fail('expected a root name');
  if (!ROOT_SET.has(root)) {
    return { ok: false, error: `unknown root "${root}" (one of ${PATH_ROOTS.join(', ')})` };
  }
  const segments: PathSegment[] = [];
  let hasWildcard = false;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '.') {
      i += 1;
      const key = readIdent();
      if (key === null) return fail('expected a name after "."');
      segments.push({ kind: 'key', key });
      continue;
    }
    if (ch !== '[') return fail(`unexpected character ${JSON.stringify(ch)}`);
    i += 1;
    const next = text[i];
    if (next === '*') {
      i += 1;
      if (text[i] !== ']') return fail('expected "]" after "[*"');
      i += 1;
      segments.push({ kind: 'wildcard' });
      hasWildcard = true;
      continue;
    }
    if (next === '"' || next === "'") {
      const quote = next;
      i += 1;
      let key = '';
      let closed = false;
      while (i < text.length) {
        const c = text[i] as string;
        if (c === quote) {
          closed = true;
          i += 1;
          break;
        }
        if (c === '\\') {
          const e = text[i + 1];
          if (e === undefined) return fail('unterminated escape');
          const simple = SIMPLE_ESCAPES[e];
          if (simple !== undefined) {
            key += simple;
            i += 2;
            continue;
          }
          if (e === 'u') {
            const hex = text.slice(i + 2, i + 6);
            if (hex.length !== 4 || ![...hex].every(isHex)) return fail('invalid \\u escape');
            key += String.fromCharCode(Number.parseInt(hex, 16));
            i += 6;
            continue;
          }
          return fail(`unsupported escape \\${e}`);
        }
        key += c;
        i += 1;
      }
      if (!closed) return fail('unterminated quoted key');
      if (text[i] !== ']') return fail('expected "]" after quoted key');
      i += 1;
      segments.push({ kind: 'key', key });
      continue;
    }
    if (next !== undefined && next >= '0' && next <= '9') {
      const start = i;
      while (i < text.length && (text[i] as string) >= '0' && (text[i] as string) <= '9') i += 1;
      const digits = text.slice(start, i);
      if (digits.length > 1 && digits.startsWith('0')) {
        i = start;
        return fail('index has a leading zero');
      }
      if (digits.length > MAX_INDEX_DIGITS) {
        i = start;
        return fail('index is too large');
      }
      if (text[i] !== ']') return fail('expected "]" after index');
      i += 1;
      segments.push({ kind: 'index', index: Number(digits) });
      continue;
    }
    return fail('expected a quoted key, an index or "*" after "["');
  }
  return {
    ok: true,
    path: {
      text,
      root: root as PathRoot,
      segments,
      bareArgs: root === 'args' && segments.length === 0,
      hasWildcard,
    },
  };
}

/** Parses a path known to be valid (compiled rules); throws otherwise. */
export function mustParsePath(text: string): ParsedPath {
  const parsed = parsePath(text);
  if (!parsed.ok) throw new Error(`invalid path ${JSON.stringify(text)}: ${parsed.error}`);
  return parsed.path;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rootValue(doc: EvaluationDocument, root: PathRoot): unknown {
  switch (root) {
    case 'actor':
      return doc.actor;
    case 'targetSystem':
      return doc.targetSystem;
    case 'proposedAction':
      return doc.proposedAction;
    case 'args':
      return doc.args;
    case 'intent':
      return doc.intent;
    case 'risk':
      return doc.risk;
    case 'github':
      return doc.github;
    case 'thresholds':
      return doc.thresholds;
  }
}

/**
 * Every candidate value the path designates in the document: none when the path is missing,
 * one for a plain path, possibly several for a path with `[*]`, and every string leaf (keys and
 * values) of `args` for the bare `args` path. `undefined` is never a candidate.
 */
export function resolvePath(doc: EvaluationDocument, path: ParsedPath): unknown[] {
  const start = rootValue(doc, path.root);
  if (start === undefined) return [];
  if (path.bareArgs) {
    const out: unknown[] = [];
    forEachArgsString(start, (value) => {
      out.push(value);
      return false;
    });
    return out;
  }
  let current: unknown[] = [start];
  for (const segment of path.segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if (segment.kind === 'key') {
        if (isPlainObject(value) && Object.hasOwn(value, segment.key)) {
          const child = value[segment.key];
          if (child !== undefined) next.push(child);
        }
      } else if (segment.kind === 'index') {
        if (Array.isArray(value) && segment.index < value.length) {
          const child: unknown = value[segment.index];
          if (child !== undefined) next.push(child);
        }
      } else if (Array.isArray(value)) {
        for (const child of value as unknown[]) if (child !== undefined) next.push(child);
      }
    }
    if (next.length === 0) return next;
    current = next;
  }
  return current;
}

/** The single value a wildcard-free, non-bare path designates, or undefined when missing. */
export function resolveSingle(doc: EvaluationDocument, path: ParsedPath): unknown {
  let value = rootValue(doc, path.root);
  for (const segment of path.segments) {
    if (value === undefined) return undefined;
    if (segment.kind === 'key') {
      value = isPlainObject(value) && Object.hasOwn(value, segment.key) ? value[segment.key] : undefined;
    } else if (segment.kind === 'index') {
      value = Array.isArray(value) ? (value as unknown[])[segment.index] : undefined;
    } else {
      return undefined;
    }
  }
  return value;
}

/** One step from `args` to a leaf, as the floor reports locations. */
export type LocationStep = string | number;

/**
 * Visits every string leaf of `value` (object keys and string values, in document order, a key
 * before its value), descending containers up to depth ARGS_SCAN_MAX_DEPTH (`value` itself is at
 * depth 0, so a string at depth 16 is visited and nothing deeper). `steps` is the live location
 * stack (copy it to keep it); for a key the last step is that key. The visitor returns true to stop;
 * the function returns whether it was stopped.
 */
export function forEachArgsString(
  value: unknown,
  visit: (text: string, isKey: boolean, steps: readonly LocationStep[]) => boolean,
): boolean {
  const steps: LocationStep[] = [];
  const walk = (node: unknown, depth: number): boolean => {
    if (typeof node === 'string') return visit(node, false, steps);
    if (depth >= ARGS_SCAN_MAX_DEPTH || typeof node !== 'object' || node === null) return false;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1) {
        steps.push(index);
        const stop = walk(node[index], depth + 1);
        steps.pop();
        if (stop) return true;
      }
      return false;
    }
    for (const key of Object.keys(node)) {
      steps.push(key);
      const stop = visit(key, true, steps) || walk((node as Record<string, unknown>)[key], depth + 1);
      steps.pop();
      if (stop) return true;
    }
    return false;
  };
  return walk(value, 0);
}

const IDENT_RE = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `args` + steps as a path in this module's syntax: `args.sql`, `args.steps[1].run`, `args["a b"]`. */
export function formatLocation(root: string, steps: readonly LocationStep[]): string {
  let out = root;
  for (const step of steps) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (IDENT_RE.test(step)) out += `.${step}`;
    else out += `[${JSON.stringify(step)}]`;
  }
  return out;
}
