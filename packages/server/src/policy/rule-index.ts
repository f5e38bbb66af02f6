/**
 * A prefilter over a compiled policy's rules: from a document it selects the candidate rules, a
 * superset of the rules that can match, in policy order. Every candidate still goes through the
 * full per-rule match in evaluatePolicy; the index only skips rules that cannot match.
 *
 * A rule is kept out of the candidates only when one of these facts of the document rules it out:
 * - a binding (actorIds, actorTypes, targetSystems, oiCodes): the subject must equal one of the
 *   binding's exact entries or start with the literal prefix (the text before the first `*` or `?`)
 *   of one of its globs; an entry starting with a wildcard constrains nothing;
 * - a condition of the top-level `all` on a fixed path (no `[*]`, not bare `args`) that is EQ with a
 *   primitive literal, or IN with a literal list of primitives: the value at the path must be one of
 *   those literals (SameValueZero, which is `===` for JSON values, as the operator's deep equality).
 *
 * Each such fact is a dimension: for the document's subject it gives a set of rules (the rules it
 * does not constrain, plus those whose key fits), kept as a bit set over rule positions; candidates
 * are the intersection. The work per evaluation is bounded: a dimension whose keys would make a
 * lookup expensive (more than MAX_DIMENSION_ENTRIES entries) is not indexed, and at most
 * MAX_CONDITION_DIMENSIONS condition paths are.
 */
import type { CompiledCondition, CompiledRule } from './compile-policy.js';
import { type ParsedPath, resolveSingle } from './path.js';
import type { EvaluationDocument } from './rule.js';

/** Largest number of (rule, key) entries one dimension may hold. */
export const MAX_DIMENSION_ENTRIES = 50_000;
/** Most condition paths indexed (those constraining the most rules). */
export const MAX_CONDITION_DIMENSIONS = 8;
/**
 * Below this many rules the index is not built: scanning 10 rules takes about 3 µs, and the
 * index's fixed cost (a subject per dimension, its look-ups, two bit sets) about 2 µs
 * (bench/policy-eval.ts).
 */
export const MIN_INDEXED_RULES = 16;

type Bits = Uint32Array;

interface Dimension {
  /** The subject of this dimension in a document; undefined when absent. */
  readonly subject: (doc: EvaluationDocument) => unknown;
  /** Rules the dimension does not constrain. */
  readonly free: Bits;
  /** Rules with a key equal to the subject. */
  readonly exact: ReadonlyMap<unknown, Bits>;
  /** Glob prefixes by length, longest last: rules with a prefix the subject starts with. */
  readonly prefixes: ReadonlyArray<readonly [number, ReadonlyMap<string, Bits>]>;
}

export interface RuleIndex {
  /** The rules that can match `doc`, in policy order (a superset of those that do). */
  candidates(doc: EvaluationDocument): readonly CompiledRule[];
}

/** One dimension under construction: per rule position, its keys (null: unconstrained). */
interface DimensionKeys {
  readonly subject: (doc: EvaluationDocument) => unknown;
  readonly exact: Map<number, unknown[]>;
  readonly prefixes: Map<number, string[]>;
  entries: number;
}

function newKeys(subject: (doc: EvaluationDocument) => unknown): DimensionKeys {
  return { subject, exact: new Map(), prefixes: new Map(), entries: 0 };
}

const words = (size: number) => Math.ceil(size / 32);

function setBit(bits: Bits, position: number): void {
  bits[position >>> 5] = (bits[position >>> 5] as number) | (1 << (position & 31));
}

function bucket<K>(map: Map<K, Bits>, key: K, size: number): Bits {
  let bits = map.get(key);
  if (bits === undefined) {
    bits = new Uint32Array(words(size));
    map.set(key, bits);
  }
  return bits;
}

/** Adds a binding's globs; none when one of them constrains nothing (a leading wildcard). */
function addGlobs(keys: DimensionKeys, position: number, sources: readonly string[]): void {
  const exact: string[] = [];
  const prefixes: string[] = [];
  for (const source of sources) {
    const wildcard = source.search(/[*?]/);
    if (wildcard === 0) return;
    if (wildcard < 0) exact.push(source);
    else prefixes.push(source.slice(0, wildcard));
  }
  keys.exact.set(position, exact);
  keys.prefixes.set(position, prefixes);
  keys.entries += sources.length;
}

function isPrimitive(value: unknown): boolean {
  return (
    value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number'
  );
}

/** The literals a top-level condition requires at its path, or null when it is not indexable. */
function requiredLiterals(condition: CompiledCondition): readonly unknown[] | null {
  const { path, op, valuePath } = condition;
  if (path.hasWildcard || path.bareArgs || valuePath !== null) return null;
  if (op === 'EQ') return isPrimitive(condition.value) ? [condition.value] : null;
  if (op === 'IN' && condition.list !== null && condition.list.composites.length === 0) {
    return [...condition.list.primitives];
  }
  return null;
}

function build(keys: DimensionKeys, size: number): Dimension {
  const free = new Uint32Array(words(size));
  const exact = new Map<unknown, Bits>();
  const byLength = new Map<number, Map<string, Bits>>();
  for (let position = 0; position < size; position += 1) {
    const exactKeys = keys.exact.get(position);
    const prefixKeys = keys.prefixes.get(position);
    if (exactKeys === undefined && prefixKeys === undefined) {
      setBit(free, position);
      continue;
    }
    for (const key of exactKeys ?? []) setBit(bucket(exact, key, size), position);
    for (const prefix of prefixKeys ?? []) {
      let map = byLength.get(prefix.length);
      if (map === undefined) {
        map = new Map();
        byLength.set(prefix.length, map);
      }
      setBit(bucket(map, prefix, size), position);
    }
  }
  const prefixes = [...byLength.entries()].sort((a, b) => a[0] - b[0]);
  return { subject: keys.subject, free, exact, prefixes };
}

/** Rules of `dimension` that admit the document, ANDed into `into`. */
function intersect(dimension: Dimension, doc: EvaluationDocument, into: Bits, scratch: Bits): void {
  scratch.set(dimension.free);
  const subject = dimension.subject(doc);
  const or = (bits: Bits | undefined) => {
    if (bits === undefined) return;
    for (let w = 0; w < bits.length; w += 1) scratch[w] = (scratch[w] as number) | (bits[w] as number);
  };
  if (subject !== undefined) or(dimension.exact.get(subject));
  if (typeof subject === 'string') {
    for (const [length, map] of dimension.prefixes) {
      if (length > subject.length) break;
      or(map.get(subject.slice(0, length)));
    }
  }
  for (let w = 0; w < into.length; w += 1) into[w] = (into[w] as number) & (scratch[w] as number);
}

const bindingSubjects = {
  actorIds: (doc: EvaluationDocument) => doc.actor.id,
  actorTypes: (doc: EvaluationDocument) => doc.actor.type,
  targetSystems: (doc: EvaluationDocument) => doc.targetSystem,
  oiCodes: (doc: EvaluationDocument) => doc.intent.oiCode,
} as const;

function bindingDimensions(rules: readonly CompiledRule[]): DimensionKeys[] {
  const dims = {
    actorIds: newKeys(bindingSubjects.actorIds),
    actorTypes: newKeys(bindingSubjects.actorTypes),
    targetSystems: newKeys(bindingSubjects.targetSystems),
    oiCodes: newKeys(bindingSubjects.oiCodes),
  };
  rules.forEach((rule, position) => {
    const b = rule.bindings;
    if (b === null) return;
    if (b.actorIds !== null) addGlobs(dims.actorIds, position, b.actorIds.sources);
    if (b.targetSystems !== null) addGlobs(dims.targetSystems, position, b.targetSystems.sources);
    if (b.oiCodes !== null) addGlobs(dims.oiCodes, position, b.oiCodes.sources);
    if (b.actorTypes !== null) {
      dims.actorTypes.exact.set(position, [...b.actorTypes]);
      dims.actorTypes.entries += b.actorTypes.size;
    }
  });
  return Object.values(dims);
}

function conditionDimensions(rules: readonly CompiledRule[]): DimensionKeys[] {
  const byPath = new Map<string, { path: ParsedPath; keys: DimensionKeys }>();
  rules.forEach((rule, position) => {
    const all = rule.conditions?.kind === 'group' ? rule.conditions.all : null;
    for (const node of all ?? []) {
      if (node.kind !== 'cond') continue;
      const literals = requiredLiterals(node);
      if (literals === null) continue;
      let entry = byPath.get(node.path.text);
      if (entry === undefined) {
        const path = node.path;
        entry = { path, keys: newKeys((doc) => resolveSingle(doc, path)) };
        byPath.set(path.text, entry);
      }
      // The first indexable condition on a path is enough: the others only narrow further.
      if (entry.keys.exact.has(position)) continue;
      entry.keys.exact.set(position, [...literals]);
      entry.keys.entries += literals.length;
    }
  });
  return [...byPath.values()]
    .map((entry) => entry.keys)
    .sort((a, b) => b.exact.size - a.exact.size)
    .slice(0, MAX_CONDITION_DIMENSIONS);
}

/** Builds the index of rules already in policy order. */
export function indexRules(rules: readonly CompiledRule[]): RuleIndex {
  const size = rules.length;
  if (size < MIN_INDEXED_RULES) return { candidates: () => rules };
  const dimensions = [...bindingDimensions(rules), ...conditionDimensions(rules)]
    .filter((keys) => keys.exact.size + keys.prefixes.size > 0 && keys.entries <= MAX_DIMENSION_ENTRIES)
    .map((keys) => build(keys, size));
  if (dimensions.length === 0) return { candidates: () => rules };
  const all = new Uint32Array(words(size)).fill(0xffffffff);
  return {
    candidates(doc) {
      const into = all.slice();
      const scratch = new Uint32Array(into.length);
      for (const dimension of dimensions) intersect(dimension, doc, into, scratch);
      const selected: CompiledRule[] = [];
      for (let w = 0; w < into.length; w += 1) {
        let word = into[w] as number;
        while (word !== 0) {
          const low = word & -word;
          const position = (w << 5) + 31 - Math.clz32(low);
          if (position < size) selected.push(rules[position] as CompiledRule);
          word ^= low;
        }
      }
      return selected;
    },
  };
}
