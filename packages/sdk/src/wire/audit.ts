import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';
import { CHAIN_BREAK_REASONS } from './constants.js';

/** The audit chain, checkpoints, evidence bundles and receipts (contract §6). */

/** A chain index: 32-bit in storage, so larger values are refused. */
export const ChainIndex = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

const Hash = Type.String({ description: '64 lower-case hex digits (SHA-256)' });

/**
 * One entry of a tenant's hash-chained audit log. `entryHash = sha256_hex(JCS(entry without
 * entryHash))`; `previousHash` of entry 0 is 64 zeros.
 */
export const AuditEntry = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'Position in the chain, from 0, without gaps' }),
  tenantId: Type.String(),
  correlationId: Nullable(Type.String()),
  intentId: Nullable(Type.String({ description: 'null for configuration and physical events' })),
  actorId: Type.String(),
  actorType: Type.String(),
  eventType: Type.String(),
  payload: Type.Unknown({ description: 'Event-specific JSON value (docs/audit-chain.md)' }),
  previousHash: Hash,
  entryHash: Hash,
  createdAt: Type.String({ description: 'Exactly YYYY-MM-DDTHH:mm:ss.sssZ' }),
});
export type AuditEntry = Static<typeof AuditEntry>;

/** A signed statement of the chain head. */
export const Checkpoint = Type.Object({
  tenantId: Type.String(),
  index: Type.Integer({ minimum: 0, description: 'The entry it names' }),
  entryHash: Hash,
  issuedAt: IsoDateTime,
  kid: Type.String({ description: 'The tenant key that signed' }),
  signature: Type.String({ description: 'Compact JWS over JCS({tenantId, index, entryHash, issuedAt})' }),
});
export type Checkpoint = Static<typeof Checkpoint>;

export const CheckpointQuery = Type.Object(
  {
    from: Type.Optional(ChainIndex),
    to: Type.Optional(ChainIndex),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 100' })),
  },
  Closed,
);
export type CheckpointQuery = Static<typeof CheckpointQuery>;

export const CheckpointList = Type.Object({
  checkpoints: Type.Array(Checkpoint, { description: 'Oldest first' }),
});
export type CheckpointList = Static<typeof CheckpointList>;

/** One line of `GET /audit/:tenantId/export` (NDJSON): an entry, or a checkpoint right after its entry. */
export const ExportLine = Type.Union([
  Type.Object({ entry: AuditEntry }),
  Type.Object({ checkpoint: Checkpoint }),
]);
export type ExportLine = Static<typeof ExportLine>;

export const ExportQuery = Type.Object(
  {
    fromIndex: Type.Optional(ChainIndex),
    toIndex: Type.Optional(ChainIndex),
  },
  Closed,
);
export type ExportQuery = Static<typeof ExportQuery>;

export const TimelineQuery = Type.Object(
  {
    actorId: Type.Optional(Type.String({ maxLength: 200 })),
    targetSystem: Type.Optional(Type.String({ maxLength: 500 })),
    eventType: Type.Optional(Type.String({ maxLength: 100 })),
    from: Type.Optional(
      Type.String({ maxLength: 40, description: 'ISO 8601 date (midnight UTC) or date-time with an offset' }),
    ),
    to: Type.Optional(
      Type.String({ maxLength: 40, description: 'ISO 8601 date (midnight UTC) or date-time with an offset' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 50' })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  Closed,
);
export type TimelineQuery = Static<typeof TimelineQuery>;

export const TimelineEvent = Type.Object({
  index: Type.Integer(),
  eventType: Type.String(),
  actorId: Type.String(),
  targetSystem: Nullable(Type.String()),
  intentId: Nullable(Type.String()),
  correlationId: Nullable(Type.String()),
  summary: Type.String(),
  createdAt: IsoDateTime,
  entryHash: Hash,
});
export type TimelineEvent = Static<typeof TimelineEvent>;

export const Timeline = Type.Object({
  events: Type.Array(TimelineEvent, { description: 'Newest first' }),
  nextCursor: Nullable(Type.String()),
});
export type Timeline = Static<typeof Timeline>;

export const VerifyChainRequest = Type.Object(
  { from: Type.Optional(ChainIndex), to: Type.Optional(ChainIndex) },
  Closed,
);
export type VerifyChainRequest = Static<typeof VerifyChainRequest>;

export const ChainVerification = Type.Object({
  valid: Type.Boolean(),
  length: Type.Integer(),
  latestHash: Type.String(),
  verifiedAt: IsoDateTime,
  checkpointsVerified: Type.Integer(),
  brokenAt: Type.Optional(Type.Integer()),
  reason: Type.Optional(Type.Enum(CHAIN_BREAK_REASONS)),
});
export type ChainVerification = Static<typeof ChainVerification>;

export const AcknowledgeBreakRequest = Type.Object(
  { brokenAt: ChainIndex, note: Type.String({ minLength: 1, maxLength: 2000 }) },
  Closed,
);
export type AcknowledgeBreakRequest = Static<typeof AcknowledgeBreakRequest>;

export const BreakAcknowledgement = Type.Object({
  brokenAt: Type.Integer(),
  reason: Type.String(),
  acknowledgedAt: IsoDateTime,
  acknowledgedBy: Type.String(),
  note: Type.String(),
  entryHash: Type.String(),
});
export type BreakAcknowledgement = Static<typeof BreakAcknowledgement>;

/** `GET /intent/:id/evidence-bundle`: the intent's entries, hashed and HMAC-signed with the tenant's evidence secret. */
export const EvidenceBundle = Type.Object({
  intentId: Type.String(),
  tenantId: Type.String(),
  events: Type.Array(AuditEntry),
  integrityHash: Type.String({ description: 'sha256: + sha256_hex(JCS(events))' }),
  signature: Type.String({ description: 'base64url(HMAC-SHA256(secret, intentId + ":" + integrityHash))' }),
  secretId: Type.String(),
  generatedAt: IsoDateTime,
});
export type EvidenceBundle = Static<typeof EvidenceBundle>;

const JwkCommon = {
  kid: Type.String(),
  use: Type.Literal('sig'),
};

/** A public JWK as the JWKS routes publish it: Ed25519 (EdDSA), P-256 (ES256) or RSA (RS256). */
export const PublicJwk = Type.Union([
  Type.Object({
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String(),
    alg: Type.Literal('EdDSA'),
    ...JwkCommon,
  }),
  Type.Object({
    kty: Type.Literal('EC'),
    crv: Type.Literal('P-256'),
    x: Type.String(),
    y: Type.String(),
    alg: Type.Literal('ES256'),
    ...JwkCommon,
  }),
  Type.Object({
    kty: Type.Literal('RSA'),
    n: Type.String(),
    e: Type.String(),
    alg: Type.Literal('RS256'),
    ...JwkCommon,
  }),
]);
export type PublicJwk = Static<typeof PublicJwk>;

/** A JSON Web Key Set. */
export const Jwks = Type.Object({ keys: Type.Array(PublicJwk) });
export type Jwks = Static<typeof Jwks>;

/**
 * The seal of a receipt: a signed statement of the chain head that also binds the intent's
 * entries. `signature` is a compact JWS over exactly `JCS(seal without signature)`.
 */
export const ReceiptSeal = Type.Object({
  tenantId: Type.String(),
  intentId: Type.String(),
  entryHashes: Type.Array(Hash, { description: "The hashes of the receipt's entries, in order" }),
  headIndex: Type.Integer({ minimum: 0, description: 'The chain head when issued' }),
  headHash: Hash,
  issuedAt: Type.String(),
  signature: Type.String(),
});
export type ReceiptSeal = Static<typeof ReceiptSeal>;

const receiptMembers = {
  intentId: Type.String(),
  tenantId: Type.String(),
  decision: Type.String({ description: 'The intent decision, e.g. APPROVED or DENIED' }),
  token: Nullable(Type.String({ description: 'The Authority Decision Token, or null when none was issued' })),
  entries: Type.Array(AuditEntry, { description: 'In chain order' }),
  seal: ReceiptSeal,
  jwks: Type.Object(
    { keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) },
    { description: 'Informational copy of the tenant JWKS: never trusted on its own' },
  ),
};

/** A receipt of version 1 (contract §6): the seal only. Verifiers still accept it. */
export const ReceiptV1 = Type.Object({ receiptVersion: Type.Literal(1), ...receiptMembers });
export type ReceiptV1 = Static<typeof ReceiptV1>;

/** The audit path of one of the receipt's entries in the tree of the receipt's checkpoint. */
export const ReceiptInclusion = Type.Object({
  index: ChainIndex,
  proof: Type.Array(Hash, { description: "RFC 9162 audit path, from the leaf's sibling up" }),
});
export type ReceiptInclusion = Static<typeof ReceiptInclusion>;

/**
 * `GET /intent/:id/receipt` (contract §15): version 1 plus the log's checkpoint for the tree of
 * `seal.headIndex + 1` entries and each entry's inclusion proof in that tree, so that a verifier
 * holding only the tenant's log key proves that the entries are in the log. Verify it offline with
 * `verifyReceipt(receipt, {jwks, logKey})`.
 */
export const Receipt = Type.Object({
  receiptVersion: Type.Literal(2),
  ...receiptMembers,
  checkpoint: Type.String({
    description: 'The signed checkpoint note (C2SP tlog-checkpoint) for tree size seal.headIndex + 1',
  }),
  inclusion: Type.Array(ReceiptInclusion, {
    description: "One per entry, in the entries' order: its index and its inclusion proof",
  }),
});
export type Receipt = Static<typeof Receipt>;
