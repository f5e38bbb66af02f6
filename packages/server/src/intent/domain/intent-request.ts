import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ValidationIssue } from '../../errors/app-error.js';
import { type SchemaError, schemaIssues } from '../../errors/schema-issues.js';
import { TARGET_SYSTEM_PATTERN } from '../../foundation/target-system.js';
import { ACTOR_TYPES } from '../../policy/rule.js';
import { exceedsDepth, jsonByteLength } from '../../request-checks/json-shape.js';

/**
 * The body of `POST /intent` (contract §4.1) and the checks a JSON Schema cannot express.
 *
 * Decisions where the contract is silent:
 * - `tenantId` is any 1..100-character string here; its equality with the credential's tenant is
 *   the route's business (403 `TENANT_MISMATCH`, checked before schema validation).
 * - `riskContext.github`: `owner` and `repo` follow the two halves of the `targetSystem` pattern;
 *   `ref` is 1..255 characters, `pullRequest` an integer ≥ 1, `path` 1..4096 characters. The
 *   comparison `owner/repo == targetSystem` is exact (case-sensitive), as the contract says "equal".
 * - `args` depth counts steps from `args` (depth 0) to its deepest value, the same counting as the
 *   bare-`args` scan of the policy engine (`forEachArgsString`), so every string leaf an accepted
 *   request holds is visited by the scan and the catastrophic floor.
 * - Issue paths are JSON Pointers (`/args`, `/riskContext/github`), as the service's schema errors
 *   are; the root is `/`.
 */

export const GITHUB_OWNER_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$';
export const GITHUB_REPO_PATTERN = '^[A-Za-z0-9._-]{1,100}$';

export const MAX_ARGS_BYTES = 64 * 1024;
export const MAX_ARGS_DEPTH = 16;
export const MAX_PROPOSED_ACTION_LENGTH = 4000;

export const ActorSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Enum(ACTOR_TYPES),
  },
  { additionalProperties: false },
);

export const GithubContextSchema = Type.Object(
  {
    owner: Type.String({ pattern: GITHUB_OWNER_PATTERN }),
    repo: Type.String({ pattern: GITHUB_REPO_PATTERN }),
    ref: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    pullRequest: Type.Optional(Type.Integer({ minimum: 1 })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  },
  { additionalProperties: false },
);

export const RiskContextSchema = Type.Object(
  {
    baseRiskScore: Type.Number({ minimum: 0, maximum: 100 }),
    policyCompliant: Type.Optional(Type.Boolean({ description: 'Default true; echoed in the decision' })),
    requiresPrivilegedAccess: Type.Optional(Type.Boolean({ description: 'Default false' })),
    touchesProduction: Type.Optional(Type.Boolean({ description: 'Default false' })),
    containsSensitiveData: Type.Optional(Type.Boolean({ description: 'Default false' })),
    github: Type.Optional(GithubContextSchema),
  },
  { additionalProperties: false },
);

/** Any JSON object; its content is free (no `additionalProperties: false` inside `args`). */
export const ArgsSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Raw structural arguments of the action (≤ 64 KiB as UTF-8 JSON, depth ≤ 16)',
});

export const TargetSystemSchema = Type.String({
  pattern: TARGET_SYSTEM_PATTERN,
  description: 'GitHub owner/repo',
});

export const ProposedActionSchema = Type.String({ minLength: 1, maxLength: MAX_PROPOSED_ACTION_LENGTH });

export const IntentRequestSchema = Type.Object(
  {
    tenantId: Type.String({ minLength: 1, maxLength: 100 }),
    actor: ActorSchema,
    targetSystem: TargetSystemSchema,
    proposedAction: ProposedActionSchema,
    args: Type.Optional(ArgsSchema),
    riskContext: RiskContextSchema,
  },
  { additionalProperties: false },
);

export type IntentRequest = Static<typeof IntentRequestSchema>;
export type RiskContext = Static<typeof RiskContextSchema>;
export type GithubContext = Static<typeof GithubContextSchema>;

export const EXPECTED_FIELDS_MESSAGE =
  'Expected an IntentRequest with fields: tenantId, actor {id, type}, targetSystem, proposedAction, ' +
  'args?, riskContext {baseRiskScore, policyCompliant?, requiresPrivilegedAccess?, touchesProduction?, ' +
  'containsSensitiveData?, github?}';

const ALTERNATIVE_SHAPE =
  'This looks like the alternative request shape (action, actor as a string, system, metadata), which this service does not accept.';

export const ALTERNATIVE_SHAPE_MESSAGE = `${ALTERNATIVE_SHAPE} ${EXPECTED_FIELDS_MESSAGE}`;

/** The same for `POST /authority/evaluate`, whose body has no `tenantId` (contract §4.9). */
export const EVALUATE_ALTERNATIVE_SHAPE_MESSAGE =
  `${ALTERNATIVE_SHAPE} Expected an evaluation request with fields: actor {id, type}, targetSystem, ` +
  'proposedAction, args?, riskContext {baseRiskScore, policyCompliant?, requiresPrivilegedAccess?, ' +
  'touchesProduction?, containsSensitiveData?, github?}, oiCode? (no tenantId: the x-tenant-id header names the tenant)';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when a body looks like the API overview's alternative shape: `actor` is a string, or it has
 * `action` without `proposedAction`, or `system` without `targetSystem`. (`metadata` alone next to an
 * otherwise proper IntentRequest is just an unknown field.)
 */
export function isAlternativeShape(body: unknown): boolean {
  if (!isPlainObject(body)) return false;
  return (
    typeof body.actor === 'string' ||
    ('action' in body && !('proposedAction' in body)) ||
    ('system' in body && !('targetSystem' in body))
  );
}

/** The `args` limits: depth first (so the size is never measured on a pathological body), then size. */
export function checkArgs(args: unknown): ValidationIssue[] {
  if (exceedsDepth(args, MAX_ARGS_DEPTH)) {
    return [{ path: '/args', message: `must be nested at most ${MAX_ARGS_DEPTH} levels deep` }];
  }
  const bytes = jsonByteLength(args);
  if (bytes > MAX_ARGS_BYTES) {
    return [
      { path: '/args', message: `must be at most ${MAX_ARGS_BYTES} bytes as UTF-8 JSON (is ${bytes})` },
    ];
  }
  return [];
}

/**
 * What the schema cannot say. Safe on any input: the alternative shape is recognized first and
 * answered alone (a 400 naming the expected fields); then the `args` limits and the GitHub target are
 * checked wherever the fields have the right types (the schema reports wrong types).
 */
export function checkIntentRequest(body: unknown): ValidationIssue[] {
  if (isAlternativeShape(body)) return [{ path: '/', message: ALTERNATIVE_SHAPE_MESSAGE }];
  if (!isPlainObject(body)) return [];
  const issues: ValidationIssue[] = [];
  if (body.args !== undefined) issues.push(...checkArgs(body.args));
  const riskContext = body.riskContext;
  const github = isPlainObject(riskContext) ? riskContext.github : undefined;
  if (
    isPlainObject(github) &&
    typeof github.owner === 'string' &&
    typeof github.repo === 'string' &&
    typeof body.targetSystem === 'string'
  ) {
    const target = `${github.owner}/${github.repo}`;
    if (target !== body.targetSystem) {
      issues.push({
        path: '/riskContext/github',
        message: `owner/repo (${target}) must equal targetSystem (${body.targetSystem})`,
      });
    }
  }
  return issues;
}

/** The four `riskContext` flags with the contract's defaults applied (`policyCompliant` true, others false). */
export interface RiskFlags {
  policyCompliant: boolean;
  privileged: boolean;
  production: boolean;
  sensitive: boolean;
}

export function riskFlags(riskContext: RiskContext): RiskFlags {
  return {
    policyCompliant: riskContext.policyCompliant ?? true,
    privileged: riskContext.requiresPrivilegedAccess ?? false,
    production: riskContext.touchesProduction ?? false,
    sensitive: riskContext.containsSensitiveData ?? false,
  };
}

const compiled = Compile(IntentRequestSchema);

/**
 * The whole intake check in one call, for callers that do not validate through Fastify: the
 * alternative shape first (its own message), then the schema, then `checkIntentRequest`.
 */
export function validateIntentRequest(
  body: unknown,
): { ok: true; value: IntentRequest } | { ok: false; issues: ValidationIssue[] } {
  if (isAlternativeShape(body)) return { ok: false, issues: checkIntentRequest(body) };
  if (!compiled.Check(body)) {
    return { ok: false, issues: schemaIssues(compiled.Errors(body) as unknown as SchemaError[]) };
  }
  const issues = checkIntentRequest(body);
  return issues.length === 0 ? { ok: true, value: body } : { ok: false, issues };
}
