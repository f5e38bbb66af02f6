/**
 * Compilation of a physical policy: validation (throwing the 400 `validation_error` of
 * errors/app-error.ts on a bad document) and the globs and defaults evaluation needs, computed once.
 */
import { type ValidationIssue, validationError } from '../../errors/app-error.js';
import { pointerOf } from '../../foundation/json-pointer.js';
import { compileGlobSet, type GlobSet } from '../../policy/glob.js';
import { DEFAULT_PHYSICAL_POLICY } from './default-physical-policy.js';
import { type PhysicalClause, type PhysicalPolicyDocument, requiresSafetyRated } from './physical-clause.js';
import { validatePhysicalPolicy } from './validate-physical-policy.js';

export interface CompiledClause {
  readonly clause: PhysicalClause;
  /** Position in the policy; firing clauses are reported in this order. */
  readonly index: number;
  readonly oiCodes: GlobSet | null;
  readonly schemas: GlobSet | null;
  readonly actorKinds: ReadonlySet<string> | null;
  readonly requireSafetyRated: boolean;
}

export interface CompiledPhysicalPolicy {
  /** The validated document (fresh objects, known fields only), as stored and served. */
  readonly document: PhysicalPolicyDocument;
  readonly clauses: readonly CompiledClause[];
}

export interface CompilePhysicalPolicyOptions {
  /** Prefix of issue paths, the field the document arrived in; default `policy` (`POST /physical/policy`). */
  pathPrefix?: string;
}

/** The issue's path under `prefix` (the document's place in the request), as a JSON Pointer. */
function prefixed(issue: ValidationIssue, prefix: string): ValidationIssue {
  const dotted = prefix === '' ? issue.path : issue.path === '' ? prefix : `${prefix}.${issue.path}`;
  return { path: pointerOf(dotted), message: issue.message };
}

/** Compiles an already validated document. */
export function compileValidatedPolicy(document: PhysicalPolicyDocument): CompiledPhysicalPolicy {
  return {
    document,
    clauses: document.clauses.map((clause, index) => ({
      clause,
      index,
      oiCodes: clause.appliesTo?.oiCodes === undefined ? null : compileGlobSet(clause.appliesTo.oiCodes),
      schemas: clause.appliesTo?.schemas === undefined ? null : compileGlobSet(clause.appliesTo.schemas),
      actorKinds: clause.appliesTo?.actorKinds === undefined ? null : new Set(clause.appliesTo.actorKinds),
      requireSafetyRated: requiresSafetyRated(clause),
    })),
  };
}

/**
 * Validates and compiles an uploaded policy document. Throws AppError `VALIDATION_ERROR` (physical
 * code `validation_error`, 400) with `details.issues`, each naming the clause and the field.
 */
export function compilePhysicalPolicy(
  input: unknown,
  options: CompilePhysicalPolicyOptions = {},
): CompiledPhysicalPolicy {
  const result = validatePhysicalPolicy(input);
  if (!result.ok) {
    const prefix = options.pathPrefix ?? 'policy';
    throw validationError(result.issues.map((issue) => prefixed(issue, prefix)));
  }
  return compileValidatedPolicy(result.policy);
}

let defaultPolicy: CompiledPhysicalPolicy | undefined;

/** The compiled default policy (contract §9), built on first use. */
export function defaultCompiledPolicy(): CompiledPhysicalPolicy {
  defaultPolicy ??= compilePhysicalPolicy(DEFAULT_PHYSICAL_POLICY);
  return defaultPolicy;
}
