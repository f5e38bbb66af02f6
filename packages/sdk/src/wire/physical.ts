import { type Static, Type } from 'typebox';
import { Closed, Millis, Nullable } from './common.js';
import {
  ACTOR_KINDS,
  CLAUSE_EFFECTS,
  CLAUSE_OPERATORS,
  MAX_VERIFICATION_REPORTS,
  PHYSICAL_ACTOR_STATUSES,
  PHYSICAL_OUTCOMES,
  SAFE_DEFAULTS,
  TICKET_STATUSES,
  VERIFICATION_RESULTS,
} from './constants.js';
import { DagNode, PhysicalState, StructuredGoal } from './physical-request.js';

/** The answers and resources of the physical surface (document 02, contract §9). */

/** The classification result, exactly the document's shape. */
export const Classification = Type.Object({
  oiCode: Type.String({ description: 'OI-NNN or OI-NNNN' }),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String({ description: 'OI-29NN' })),
  alternatives: Type.Array(Type.Object({ oiCode: Type.String(), confidence: Type.Number() }), {
    maxItems: 3,
  }),
  failClosed: Type.Boolean({ description: 'No rule matched confidently: treat as a denial' }),
  explanation: Nullable(Type.String()),
});
export type Classification = Static<typeof Classification>;

/** 200 ALLOW: the token for the edge verifier. */
export const PhysicalAllow = Type.Object({
  decision: Type.Literal('ALLOW'),
  token: Type.String({ description: 'RS256 JWT for service-edge-verifier' }),
  oiCode: Type.String(),
  expiresAtMs: Millis,
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String()),
  physicalStateRef: Nullable(Type.String({ description: 'null when no physicalState was sent' })),
  tokenJti: Type.String(),
});
export type PhysicalAllow = Static<typeof PhysicalAllow>;

/** 200 ESCALATE: an operator ticket; re-issue with `operatorTicketId` once it is approved. */
export const PhysicalEscalate = Type.Object({
  decision: Type.Literal('ESCALATE'),
  escalationTicketId: Type.String({ description: 'esc_ + UUIDv7' }),
  approvalUrl: Type.String(),
  safeDefault: Type.Enum(SAFE_DEFAULTS),
  expiresAtMs: Type.Integer({ minimum: 0, description: 'Ticket expiry (one hour)' }),
});
export type PhysicalEscalate = Static<typeof PhysicalEscalate>;

/** The answer of `POST /v1/physical/authority-tokens` with status 200. */
export const PhysicalIssuance = Type.Union([PhysicalAllow, PhysicalEscalate]);
export type PhysicalIssuance = Static<typeof PhysicalIssuance>;

/**
 * `error.details` of a DENY (422 `policy_denied`, 423 when an audit-gap clause decided): the
 * deciding clause, every firing clause, the safe default to fall back to.
 */
export const PhysicalDenyDetails = Type.Object({
  decision: Type.Literal('DENY'),
  clauseId: Type.String({ description: 'The deciding clause (or default-deny)' }),
  clauseIds: Type.Array(Type.String(), { description: 'Every firing clause in policy order' }),
  safeDefault: Type.Enum(SAFE_DEFAULTS),
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String()),
  explanation: Type.Optional(Type.String({ description: 'classifier-fail-closed only' })),
});
export type PhysicalDenyDetails = Static<typeof PhysicalDenyDetails>;

/** The error envelope of a physical DENY. */
export const PhysicalDeny = Type.Object(
  {
    error: Type.Object({
      code: Type.Literal('policy_denied'),
      message: Type.String(),
      details: PhysicalDenyDetails,
      requestId: Type.String(),
    }),
  },
  { description: 'A DENY decision: 422, or 423 when an audit-gap clause decided' },
);
export type PhysicalDeny = Static<typeof PhysicalDeny>;

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const ClauseCondition = Type.Object(
  {
    predicate: Type.String({
      description: 'A physicalState predicate or a reserved one (classifier/*, goal/*)',
    }),
    op: Type.Enum(CLAUSE_OPERATORS),
    value: Type.Optional(
      Type.Union([Scalar, Type.Array(Scalar)], {
        description: 'A scalar for eq/neq, a number for lt/lte/gt/gte, a list for in, absent otherwise',
      }),
    ),
  },
  Closed,
);
export type ClauseCondition = Static<typeof ClauseCondition>;

/** A clause of a physical policy (contract §9). Most severe wins: deny > audit-gap > escalate > allow. */
export const PhysicalClause = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    effect: Type.Enum(CLAUSE_EFFECTS),
    appliesTo: Type.Optional(
      Type.Object(
        {
          oiCodes: Type.Optional(Type.Array(Type.String(), { description: 'Globs' })),
          actorKinds: Type.Optional(Type.Array(Type.Enum(ACTOR_KINDS))),
          schemas: Type.Optional(Type.Array(Type.String(), { description: 'Globs over the goal schema' })),
        },
        Closed,
      ),
    ),
    when: Type.Optional(Type.Array(ClauseCondition, { maxItems: 64, description: 'All must hold' })),
    requireSafetyRated: Type.Optional(Type.Boolean({ description: 'Default true for deny and audit-gap' })),
    maxStateAgeMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
    safeDefault: Type.Enum(SAFE_DEFAULTS),
    citations: Type.Optional(Type.Array(Type.String({ description: 'OI-29NN' }))),
  },
  Closed,
);
export type PhysicalClause = Static<typeof PhysicalClause>;

export const PhysicalPolicyDocument = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    clauses: Type.Array(PhysicalClause, { maxItems: 2000 }),
  },
  Closed,
);
export type PhysicalPolicyDocument = Static<typeof PhysicalPolicyDocument>;

export const PhysicalPolicyUpload = Type.Object(
  {
    policy: PhysicalPolicyDocument,
    activate: Type.Optional(Type.Boolean({ description: 'Default false' })),
  },
  Closed,
);
export type PhysicalPolicyUpload = Static<typeof PhysicalPolicyUpload>;

export const PhysicalPolicyUploaded = Type.Object({
  id: Type.String({ description: 'UUIDv7 of the upload' }),
  version: Type.Integer({ minimum: 1 }),
  active: Type.Boolean(),
});
export type PhysicalPolicyUploaded = Static<typeof PhysicalPolicyUploaded>;

export const PhysicalPolicyView = Type.Object({
  active: PhysicalPolicyDocument,
  version: Type.Integer({ minimum: 0, description: '0: the default policy' }),
  activatedAt: Nullable(Millis),
});
export type PhysicalPolicyView = Static<typeof PhysicalPolicyView>;

export const Ticket = Type.Object({
  ticketId: Type.String({ description: 'esc_ + UUIDv7' }),
  tenantId: Type.String(),
  status: Type.Enum(TICKET_STATUSES),
  approvedBy: Nullable(Type.String({ description: 'The principal that decided (approve or reject)' })),
  approvedAtMs: Nullable(Millis),
  rejectionReason: Nullable(Type.String()),
  expiresAtMs: Millis,
  intent: Type.Object({ oiCode: Type.String(), structuredGoal: StructuredGoal }),
  createdAtMs: Millis,
  approvalUrl: Type.String(),
  operator: Nullable(Type.String({ description: 'Display name given with the decision' })),
  request: Nullable(
    Type.Object(
      {
        actorIdentity: Type.String(),
        actorKind: Type.String(),
        safetyBit: Type.Boolean(),
        safetyCitations: Type.Array(Type.String()),
        clauseIds: Type.Array(Type.String()),
        safeDefault: Type.String(),
      },
      {
        description: 'The escalated request: its actor, safety bit and citations, and the clauses that fired',
      },
    ),
  ),
});
export type Ticket = Static<typeof Ticket>;

export const TicketDecision = Type.Object(
  {
    decision: Type.Enum(['approved', 'rejected']),
    operator: Type.String({ minLength: 1, maxLength: 200, description: 'Display only' }),
    reason: Type.Optional(Type.String({ maxLength: 2000, description: 'Recorded on rejection' })),
  },
  Closed,
);
export type TicketDecision = Static<typeof TicketDecision>;

export const Verification = Type.Object({
  atMs: Millis,
  edgeNodeId: Type.String(),
  result: Type.Enum(VERIFICATION_RESULTS),
  reason: Type.Optional(Type.String()),
});
export type Verification = Static<typeof Verification>;

/** A physical decision's audit record (every ALLOW, ESCALATE and DENY). */
export const PhysicalAuditEntry = Type.Object({
  decisionId: Type.String(),
  tokenJti: Nullable(Type.String({ description: 'Set for issued tokens (ALLOW) only' })),
  tenantId: Type.String(),
  issuedAtMs: Millis,
  expiresAtMs: Nullable(Millis),
  actorIdentity: Type.String(),
  oiCode: Type.String(),
  decision: Type.Enum(PHYSICAL_OUTCOMES),
  structuredGoal: StructuredGoal,
  dagNode: DagNode,
  physicalStateRef: Nullable(Type.String()),
  physicalState: Nullable(PhysicalState),
  safetyBit: Type.Boolean(),
  safetyCitations: Type.Array(Type.String()),
  verifications: Type.Array(Verification),
  correlationId: Type.String(),
  safeDefault: Type.Enum(SAFE_DEFAULTS),
  clauseId: Nullable(Type.String()),
  clauseIds: Type.Array(Type.String()),
  escalationTicketId: Nullable(Type.String()),
  operatorTicketId: Nullable(Type.String()),
  revocation: Nullable(Type.Object({ revokedAtMs: Millis, reason: Type.String() })),
});
export type PhysicalAuditEntry = Static<typeof PhysicalAuditEntry>;

/** One report of an edge verifier about one token. */
export const VerificationReport = Type.Object(
  {
    edgeNodeId: Type.String({ minLength: 1, maxLength: 200 }),
    result: Type.Enum(VERIFICATION_RESULTS),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    atMs: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'When the edge verified the token (edge clock), ms',
    }),
  },
  Closed,
);
export type VerificationReport = Static<typeof VerificationReport>;

/** One report of the batch form: the same with the token's `jti`. */
export const BatchVerificationReport = Type.Object(
  { jti: Type.String({ minLength: 1, maxLength: 200 }), ...VerificationReport.properties },
  Closed,
);
export type BatchVerificationReport = Static<typeof BatchVerificationReport>;

/**
 * The body of `POST /v1/physical/verifications`. Each report is checked on its own (a malformed or
 * unknown one is refused by index, the others recorded), so the items are not validated as a whole.
 */
export const VerificationBatch = Type.Object(
  {
    reports: Type.Array(
      Type.Unknown({ description: 'A BatchVerificationReport: {jti, edgeNodeId, result, reason?, atMs}' }),
      { maxItems: MAX_VERIFICATION_REPORTS },
    ),
  },
  Closed,
);

export const VerificationBatchResult = Type.Object({
  accepted: Type.Integer(),
  rejected: Type.Array(
    Type.Object({ index: Type.Integer(), code: Type.Enum(['validation_error', 'not_found']) }),
  ),
});
export type VerificationBatchResult = Static<typeof VerificationBatchResult>;

export const PhysicalActor = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  actorIdentity: Type.String(),
  actorIdentityKind: Type.String(),
  actorKind: Type.Enum(ACTOR_KINDS),
  displayName: Nullable(Type.String()),
  status: Type.Enum(PHYSICAL_ACTOR_STATUSES),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  createdAtMs: Millis,
  updatedAtMs: Millis,
});
export type PhysicalActor = Static<typeof PhysicalActor>;

const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f]+$';

/** `POST /v1/physical/actors`: idempotent on `actorIdentity`; omitted fields keep their values. */
export const PhysicalActorRegistration = Type.Object(
  {
    actorIdentity: Type.String({ minLength: 1, maxLength: 256, pattern: NO_CONTROL_CHARACTERS }),
    actorKind: Type.Enum(ACTOR_KINDS),
    actorIdentityKind: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: NO_CONTROL_CHARACTERS,
        description: 'Default ieee-802-1ar-devid',
      }),
    ),
    displayName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    metadata: Type.Optional(
      Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'At most 16 KiB of JSON' })),
    ),
    status: Type.Optional(Type.Enum(PHYSICAL_ACTOR_STATUSES, { description: 'Default active' })),
  },
  Closed,
);
export type PhysicalActorRegistration = Static<typeof PhysicalActorRegistration>;

export const Revocation = Type.Object({
  tokenJti: Type.String(),
  revokedAtMs: Millis,
  reason: Type.String(),
});
export type Revocation = Static<typeof Revocation>;

export const RevocationPage = Type.Object({
  revocations: Type.Array(Revocation, { description: 'revokedAtMs > since, oldest first, at most 1,000' }),
  asOfMs: Millis,
  hasMore: Type.Boolean(),
  serverTimeMs: Millis,
});
export type RevocationPage = Static<typeof RevocationPage>;

export const RevokeRequest = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }) }, Closed);
export type RevokeRequest = Static<typeof RevokeRequest>;

export const RevokeResult = Type.Object({ tokenJti: Type.String(), revokedAtMs: Millis });
export type RevokeResult = Static<typeof RevokeResult>;

export const SnapshotResult = Type.Object({ physicalStateRef: Type.String(), asOfTimestampMs: Millis });
export type SnapshotResult = Static<typeof SnapshotResult>;

/** The physical signer's public keys (RS256, ACTIVE and PREVIOUS, shared by every tenant). */
export const PhysicalJwks = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.Literal('RSA'),
      n: Type.String(),
      e: Type.String(),
      kid: Type.String(),
      alg: Type.Literal('RS256'),
      use: Type.Literal('sig'),
    }),
  ),
});
export type PhysicalJwks = Static<typeof PhysicalJwks>;
