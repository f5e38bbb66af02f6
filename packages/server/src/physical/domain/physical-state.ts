/**
 * `physicalState` as requests carry it (02-physical-api.md "PhysicalStateValue"): a map from a
 * predicate name to a value discriminated on `kind`. The schema validates the wire form; the
 * predicate names are checked here (the same path-like form clauses may name, so every stored
 * predicate is readable by a clause), and the attestation defaults are written out on storage so
 * that a stored snapshot says exactly what was assumed (`safetyRated: false`, `protocol:
 * "untrusted"`).
 */
import { type Static, Type } from 'typebox';
import { type ValidationIssue, validationError } from '../../errors/app-error.js';
import { ATTESTATION_PROTOCOLS, type PhysicalState, type PhysicalStateValue } from './index.js';
import { MAX_PREDICATE_LENGTH, PREDICATE_PATTERN } from './validate-physical-policy.js';

/** Most predicates one state map may hold. */
export const MAX_PREDICATES = 512;

const Timestamp = Type.Number({ minimum: 0, description: 'ms since the epoch' });

export const AttestationSchema = Type.Object(
  {
    channel: Type.String({ minLength: 1, maxLength: 200 }),
    safetyRated: Type.Optional(Type.Boolean({ description: 'Default false' })),
    protocol: Type.Optional(Type.Enum(ATTESTATION_PROTOCOLS, { description: 'Default untrusted' })),
  },
  { additionalProperties: false },
);

export const PhysicalStateValueSchema = Type.Union(
  [
    Type.Object(
      {
        kind: Type.Literal('boolean'),
        value: Type.Boolean(),
        asOfTimestampMs: Timestamp,
        attestation: AttestationSchema,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('number'),
        value: Type.Number(),
        unit: Type.Optional(Type.String({ maxLength: 64 })),
        asOfTimestampMs: Timestamp,
        attestation: AttestationSchema,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('string'),
        value: Type.String({ maxLength: 1024 }),
        asOfTimestampMs: Timestamp,
        attestation: AttestationSchema,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('unavailable'),
        reason: Type.String({ maxLength: 500 }),
        asOfTimestampMs: Type.Optional(Timestamp),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'An attested value of one predicate, discriminated on kind' },
);

export const PhysicalStateSchema = Type.Record(Type.String(), PhysicalStateValueSchema, {
  maxProperties: MAX_PREDICATES,
  description: 'Predicate name (a path-like string such as safety/emergency-stop) to its attested value',
});

export type PhysicalStateInput = Static<typeof PhysicalStateSchema>;

/** JSON Pointer escaping of one path segment (predicate names contain `/`). */
const pointerSegment = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

/** Issues of the predicate names of a schema-valid state; `at` is the pointer of the map. */
export function physicalStateIssues(state: PhysicalStateInput, at: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(state)) {
    if (name.length > MAX_PREDICATE_LENGTH || !PREDICATE_PATTERN.test(name)) {
      issues.push({
        path: `${at}/${pointerSegment(name)}`,
        message: `predicate names are 1 to ${MAX_PREDICATE_LENGTH} characters of path segments [A-Za-z0-9_.-] separated by "/"`,
      });
    }
  }
  return issues;
}

/**
 * The state with every attestation default written out. Throws 400 `validation_error` for a
 * predicate name a clause could never name.
 */
export function normalizePhysicalState(state: PhysicalStateInput, at = '/physicalState'): PhysicalState {
  const issues = physicalStateIssues(state, at);
  if (issues.length > 0) throw validationError(issues);
  const out: Record<string, PhysicalStateValue> = {};
  for (const [name, value] of Object.entries(state)) {
    out[name] =
      value.kind === 'unavailable'
        ? { ...value }
        : {
            ...value,
            attestation: {
              channel: value.attestation.channel,
              safetyRated: value.attestation.safetyRated ?? false,
              protocol: value.attestation.protocol ?? 'untrusted',
            },
          };
  }
  return out;
}
