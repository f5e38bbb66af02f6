/**
 * The physical classifier (02-physical-api.md "Classification result", contract §9): a structured
 * goal in, an open-intent code out, by the rules of classifier-corpus.ts. Pure and deterministic.
 *
 * A rule matches when the goal's lower-cased schema matches one of its schema globs, its
 * lower-cased verb is in the verb set and, for rules with object patterns, its lower-cased object
 * matches one of them. Partial matches (the verb alone, the schema alone) do not count: the
 * classifier never guesses outside the corpus. Matching rules are ranked by confidence, then
 * rules with object patterns before those without (they are more specific), then corpus order;
 * each code appears once, at its best rank. The first is the answer, the next three are the
 * `alternatives`. `safetyCitations` is the union of the citations of the reported rules plus any
 * reported code that is itself a safety category, so a safety reading that only ranks second still
 * raises `safetyBit`. No match: `OI-1800` (generic actuation), confidence 0.2, `failClosed: true`.
 */
import { compileGlobSet, type GlobSet } from '../../policy/glob.js';
import { isSafetyCategory } from '../../taxonomy/taxonomy.js';
import { CLASSIFIER_CORPUS, CORPUS_AREA_TITLES, type CorpusRule } from './classifier-corpus.js';
import type { ClassificationResult, StructuredGoal } from './physical-types.js';

export const OUT_OF_CORPUS_CODE = 'OI-1800';
export const OUT_OF_CORPUS_CONFIDENCE = 0.2;
export const MAX_ALTERNATIVES = 3;

/** The parts of a goal the classifier reads. */
export type ClassifiableGoal = Pick<StructuredGoal, 'schema' | 'verb' | 'object'>;

interface CompiledRule {
  readonly rule: CorpusRule;
  readonly order: number;
  readonly schemas: GlobSet;
  readonly objects: GlobSet | null;
}

export interface Classifier {
  readonly ruleCount: number;
  classify(goal: ClassifiableGoal): ClassificationResult;
}

function normalize(text: string): string {
  return text.trim().toLowerCase();
}

function byRank(a: CompiledRule, b: CompiledRule): number {
  if (a.rule.confidence !== b.rule.confidence) return b.rule.confidence - a.rule.confidence;
  const specificA = a.objects === null ? 1 : 0;
  const specificB = b.objects === null ? 1 : 0;
  if (specificA !== specificB) return specificA - specificB;
  return a.order - b.order;
}

function describeMatch(rule: CorpusRule, goal: ClassifiableGoal): string {
  const object =
    typeof goal.object === 'string' && rule.objects !== undefined ? `, object "${goal.object}"` : '';
  return `rule ${rule.id} (${CORPUS_AREA_TITLES[rule.area]}): ${rule.description} Matched verb "${goal.verb}" on schema "${goal.schema}"${object}.`;
}

function outOfCorpus(goal: ClassifiableGoal, verbKnownIn: readonly CorpusRule[]): ClassificationResult {
  const areas = [...new Set(verbKnownIn.map((rule) => CORPUS_AREA_TITLES[rule.area]))];
  const hint =
    areas.length === 0
      ? 'the verb is not in the corpus'
      : `the verb is known only for other schemas or objects, in: ${areas.join('; ')}`;
  return {
    oiCode: OUT_OF_CORPUS_CODE,
    confidence: OUT_OF_CORPUS_CONFIDENCE,
    safetyBit: false,
    safetyCitations: [],
    alternatives: [],
    failClosed: true,
    explanation: `No corpus rule matches verb "${goal.verb}" on schema "${goal.schema}" (${hint}); classified as generic actuation (${OUT_OF_CORPUS_CODE}) and failing closed.`,
  };
}

/** Compiles a corpus (the built-in one by default) into a classifier. */
export function createClassifier(corpus: readonly CorpusRule[] = CLASSIFIER_CORPUS): Classifier {
  const byVerb = new Map<string, CompiledRule[]>();
  corpus.forEach((rule, order) => {
    const compiled: CompiledRule = {
      rule,
      order,
      schemas: compileGlobSet(rule.schemas),
      objects: rule.objects === undefined ? null : compileGlobSet(rule.objects),
    };
    for (const verb of new Set(rule.verbs)) {
      const list = byVerb.get(verb);
      if (list === undefined) byVerb.set(verb, [compiled]);
      else list.push(compiled);
    }
  });

  return {
    ruleCount: corpus.length,
    classify(goal) {
      const candidates = byVerb.get(normalize(goal.verb)) ?? [];
      const schema = normalize(goal.schema);
      const object = typeof goal.object === 'string' ? normalize(goal.object) : null;
      const matches = candidates.filter(
        (c) => c.schemas.test(schema) && (c.objects === null || (object !== null && c.objects.test(object))),
      );
      if (matches.length === 0) {
        return outOfCorpus(
          goal,
          candidates.map((c) => c.rule),
        );
      }
      matches.sort(byRank);
      const reported: CompiledRule[] = [];
      const seen = new Set<string>();
      for (const match of matches) {
        if (seen.has(match.rule.oiCode)) continue;
        seen.add(match.rule.oiCode);
        reported.push(match);
        if (reported.length > MAX_ALTERNATIVES) break;
      }
      const citations = new Set<string>();
      for (const { rule } of reported) {
        for (const citation of rule.citations) citations.add(citation);
        if (isSafetyCategory(rule.oiCode)) citations.add(rule.oiCode);
      }
      const [primary, ...rest] = reported as [CompiledRule, ...CompiledRule[]];
      const safetyCitations = [...citations].sort();
      return {
        oiCode: primary.rule.oiCode,
        confidence: primary.rule.confidence,
        safetyBit: safetyCitations.length > 0,
        safetyCitations,
        alternatives: rest.map(({ rule }) => ({ oiCode: rule.oiCode, confidence: rule.confidence })),
        failClosed: false,
        explanation: describeMatch(primary.rule, goal),
      };
    },
  };
}

let builtIn: Classifier | undefined;

/** Classifies a goal with the built-in corpus (compiled on first use). */
export function classify(goal: ClassifiableGoal): ClassificationResult {
  builtIn ??= createClassifier();
  return builtIn.classify(goal);
}
