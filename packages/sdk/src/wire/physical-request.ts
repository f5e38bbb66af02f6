import { type Static, Type } from 'typebox';
import { Closed, Nullable } from './common.js';
import {
  ACTOR_KINDS,
  ATTESTATION_PROTOCOLS,
  OI_CODE_PATTERN,
  REAL_TIME_TIERS,
  SAFE_DEFAULTS,
} from './constants.js';

/**
 * The requests of the physical surface's decision endpoints (document 02 "StructuredGoal",
 * "PhysicalStateValue", "POST /v1/physical/authority-tokens"; contract §9). Field names are the
 * document's, literally; unknown fields are refused at every level.
 */

const OiCode = Type.String({ pattern: OI_CODE_PATTERN, description: 'OI-NNN or OI-NNNN' });

export const StructuredGoal = Type.Object(
  {
    schema: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Namespace of the payload (e.g. robot.manipulation); drives which rule matches',
    }),
    verb: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
      description: 'Lower-case kebab action, e.g. pick or emergency-stop',
    }),
    object: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'What the verb acts on' }))),
    parameters: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 128 }),
        Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean(), Type.Null()]),
        { maxProperties: 64, description: 'Flat key/value bag; default {}' },
      ),
    ),
    actor: Type.Object(
      {
        kind: Type.Enum(ACTOR_KINDS),
        identifier: Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'Identity of the issuing agent',
        }),
      },
      Closed,
    ),
    sourceTimestampMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Edge-side origin time (ms), for the 30 s replay window',
      }),
    ),
  },
  Closed,
);
export type StructuredGoal = Static<typeof StructuredGoal>;

export const ClassifyRequest = Type.Object({ goal: StructuredGoal }, Closed);
export type ClassifyRequest = Static<typeof ClassifyRequest>;

const Timestamp = Type.Number({ minimum: 0, description: 'ms since the epoch' });

export const Attestation = Type.Object(
  {
    channel: Type.String({ minLength: 1, maxLength: 200 }),
    safetyRated: Type.Optional(Type.Boolean({ description: 'Default false' })),
    protocol: Type.Optional(Type.Enum(ATTESTATION_PROTOCOLS, { description: 'Default untrusted' })),
  },
  Closed,
);
export type Attestation = Static<typeof Attestation>;

/** An attested value of one predicate, discriminated on `kind`. Attestation is asserted by the caller. */
export const PhysicalStateValue = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('boolean'),
      value: Type.Boolean(),
      asOfTimestampMs: Timestamp,
      attestation: Attestation,
    },
    Closed,
  ),
  Type.Object(
    {
      kind: Type.Literal('number'),
      value: Type.Number(),
      unit: Type.Optional(Type.String({ maxLength: 64 })),
      asOfTimestampMs: Timestamp,
      attestation: Attestation,
    },
    Closed,
  ),
  Type.Object(
    {
      kind: Type.Literal('string'),
      value: Type.String({ maxLength: 1024 }),
      asOfTimestampMs: Timestamp,
      attestation: Attestation,
    },
    Closed,
  ),
  Type.Object(
    {
      kind: Type.Literal('unavailable'),
      reason: Type.String({ maxLength: 500 }),
      asOfTimestampMs: Type.Optional(Timestamp),
    },
    Closed,
  ),
]);
export type PhysicalStateValue = Static<typeof PhysicalStateValue>;

/** Predicate name (a path such as `safety/emergency-stop`) to its attested value; at most 512. */
export const PhysicalState = Type.Record(Type.String(), PhysicalStateValue, { maxProperties: 512 });
export type PhysicalState = Static<typeof PhysicalState>;

export const DagNode = Type.Object(
  {
    nodeId: Type.String({ minLength: 1, maxLength: 200, description: 'Echoed into the token' }),
    oiCode: OiCode,
    deadlineMs: Type.Integer({ minimum: 1, description: 'Token lifetime, 1 to 300000 ms' }),
    safeDefault: Type.Enum(SAFE_DEFAULTS),
    realTimeTier: Type.Optional(Type.Enum(REAL_TIME_TIERS, { description: 'Default best-effort' })),
    streaming: Type.Optional(Type.Boolean()),
    streamingWindowMs: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Required when streaming; 1 to deadlineMs' }),
    ),
  },
  Closed,
);
export type DagNode = Static<typeof DagNode>;

/** The body of `POST /v1/physical/authority-tokens`. */
export const PhysicalTokenRequest = Type.Object(
  {
    intent: Type.Object({ structuredGoal: StructuredGoal, oiCode: Type.Optional(OiCode) }, Closed),
    dagNode: DagNode,
    claims: Type.Object(
      {
        actorIdentity: Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'Must be an active actor of the roster',
        }),
        deadlineMs: Type.Integer({ minimum: 1, description: 'Equals dagNode.deadlineMs' }),
        safeDefault: Type.String({ maxLength: 64, description: 'Equals dagNode.safeDefault' }),
        safetyBit: Type.Optional(Type.Boolean({ description: "OR'ed with the classifier's" })),
        safetyCitations: Type.Optional(
          Type.Array(Type.String({ maxLength: 16 }), { maxItems: 32, description: 'OI-29NN; default []' }),
        ),
      },
      Closed,
    ),
    physicalState: Type.Optional(PhysicalState),
    operatorTicketId: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'An approved ticket, when re-issuing after ESCALATE',
        }),
      ),
    ),
  },
  Closed,
);
export type PhysicalTokenRequest = Static<typeof PhysicalTokenRequest>;

export const SnapshotRequest = Type.Object({ physicalState: PhysicalState }, Closed);
export type SnapshotRequest = Static<typeof SnapshotRequest>;
