/**
 * The wire form of the decision endpoints' requests (02-physical-api.md "StructuredGoal" and
 * "POST /v1/physical/authority-tokens"): TypeBox schemas that validate the body, type the handler
 * and document the route. Unknown fields are refused at every level. What a schema cannot say
 * (deadlines equal, actor kind on the roster, …) is `checkRequestConsistency` of the domain.
 */
import { Type } from 'typebox';
import { ACTOR_KINDS, type PhysicalTokenRequest, REAL_TIME_TIERS, SAFE_DEFAULTS } from './index.js';
import { type PhysicalStateInput, PhysicalStateSchema } from './physical-state.js';

const OiCode = Type.String({ pattern: '^OI-\\d{3,4}$', description: 'OI-NNN or OI-NNNN' });

/** Most entries of a goal's `parameters`. */
const MAX_GOAL_PARAMETERS = 64;

export const StructuredGoalSchema = Type.Object(
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
    object: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'What the verb acts on' }),
    ),
    parameters: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 128 }),
        Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean(), Type.Null()]),
        { maxProperties: MAX_GOAL_PARAMETERS, description: 'Flat key/value bag; default {}' },
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
      { additionalProperties: false },
    ),
    sourceTimestampMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Edge-side origin time (ms), for the 30 s replay window',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ClassifyRequestSchema = Type.Object(
  { goal: StructuredGoalSchema },
  { additionalProperties: false },
);

export const AuthorityTokenRequestSchema = Type.Object(
  {
    intent: Type.Object(
      {
        structuredGoal: StructuredGoalSchema,
        oiCode: Type.Optional(OiCode),
      },
      { additionalProperties: false },
    ),
    dagNode: Type.Object(
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
      { additionalProperties: false },
    ),
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
      { additionalProperties: false },
    ),
    physicalState: Type.Optional(PhysicalStateSchema),
    operatorTicketId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], {
        description: 'An approved ticket, when re-issuing after ESCALATE',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The request as the issuance use case takes it: the domain's, with the state still as received. */
export type IssuanceRequest = Omit<PhysicalTokenRequest, 'physicalState'> & {
  physicalState?: PhysicalStateInput | undefined;
};
