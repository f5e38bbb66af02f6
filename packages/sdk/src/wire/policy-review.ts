import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';
import { EFFECTS } from './constants.js';

/** Policy simulation and two-person review of intent policy versions (contract §16). */

export const DECISIONS = ['APPROVED', 'ESCALATED', 'DENIED'] as const;

/** The body of `POST /authority/policy/simulate`: a draft (`rules`) or a stored `version`, and the sample. */
export const SimulationRequest = Type.Object(
  {
    rules: Type.Optional(
      Type.Array(Type.Unknown({ description: 'A PolicyRule' }), {
        maxItems: 2_000,
        description: 'The draft, as POST /authority/policy takes it; exactly one of rules and version',
      }),
    ),
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    replacePacks: Type.Optional(
      Type.Boolean({ description: 'With rules only; default false: installed pack rules are kept' }),
    ),
    sample: Type.Optional(
      Type.Object(
        {
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Default 1000' })),
          from: Type.Optional(IsoDateTime),
          to: Type.Optional(IsoDateTime),
          actorId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          targetSystem: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        Closed,
      ),
    ),
  },
  Closed,
);
export type SimulationRequest = Static<typeof SimulationRequest>;

/** A decision as a simulation compares it. */
export const SimulatedDecision = Type.Object({
  decision: Type.Enum(DECISIONS),
  decidingRule: Type.Object({
    id: Type.String(),
    effect: Type.Enum(EFFECTS),
    priority: Type.Integer(),
  }),
});
export type SimulatedDecision = Static<typeof SimulatedDecision>;

export const SimulationResult = Type.Object({
  evaluated: Type.Integer({ minimum: 0 }),
  changed: Type.Integer({ minimum: 0 }),
  transitions: Type.Record(Type.String(), Type.Integer(), {
    description: '"<before>-><after>": count, changed pairs only',
  }),
  changes: Type.Array(
    Type.Object({
      intentId: Type.String(),
      createdAt: IsoDateTime,
      before: SimulatedDecision,
      after: SimulatedDecision,
    }),
    { maxItems: 200, description: 'Newest first' },
  ),
  durationMs: Type.Integer({ minimum: 0 }),
});
export type SimulationResult = Static<typeof SimulationResult>;

/** The body of `PUT /authority/policy-review/:tenantId`. */
export const PolicyReviewSettingRequest = Type.Object(
  {
    required: Type.Boolean(),
    approvals: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2)], { description: 'Approvals a draft needs; default 1' }),
    ),
  },
  Closed,
);
export type PolicyReviewSettingRequest = Static<typeof PolicyReviewSettingRequest>;

export const PolicyReviewSetting = Type.Object({
  tenantId: Type.String(),
  required: Type.Boolean(),
  approvals: Type.Integer({ minimum: 1, maximum: 2 }),
  updatedAt: Nullable(IsoDateTime),
  updatedBy: Nullable(Type.String()),
});
export type PolicyReviewSetting = Static<typeof PolicyReviewSetting>;

/** The body of `POST /authority/policy/versions/:version/reviews`. */
export const PolicyReviewRequest = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
    comment: Type.String({ maxLength: 2_000 }),
  },
  Closed,
);
export type PolicyReviewRequest = Static<typeof PolicyReviewRequest>;

/** One review of a policy version. */
export const PolicyReview = Type.Object({
  principalId: Type.String(),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
  comment: Type.String(),
  createdAt: IsoDateTime,
});
export type PolicyReview = Static<typeof PolicyReview>;

export const POLICY_VERSION_STATUSES = ['draft', 'approved', 'rejected', 'active', 'inactive'] as const;
