import { Type } from 'typebox';
import { bodyConflictErrors, Closed, conflictErrors, ErrorEnvelope, Nullable, PageQuery } from './common.js';
import { TICKET_STATUSES } from './constants.js';
import {
  Classification,
  PhysicalActor,
  PhysicalActorRegistration,
  PhysicalAuditEntry,
  PhysicalDeny,
  PhysicalIssuance,
  PhysicalJwks,
  PhysicalPolicyUpload,
  PhysicalPolicyUploaded,
  PhysicalPolicyView,
  RevocationPage,
  RevokeRequest,
  RevokeResult,
  SnapshotResult,
  Ticket,
  TicketDecision,
  Verification,
  VerificationBatch,
  VerificationBatchResult,
  VerificationReport,
} from './physical.js';
import { ClassifyRequest, PhysicalTokenRequest, SnapshotRequest } from './physical-request.js';
import { route } from './route.js';

/**
 * The routes of the physical surface. The service also answers them under `/v1` (the document's
 * addresses, `/v1/physical/...`); errors carry the lower-snake codes.
 */
const IdSegment = Type.String({ minLength: 1, maxLength: 200 });
const JtiParams = Type.Object({ jti: IdSegment });
const TicketParams = Type.Object({ ticketId: IdSegment });
const errors = conflictErrors;
const bodyErrors = bodyConflictErrors;

export const PHYSICAL_ROUTES = {
  classifyGoal: route({
    operationId: 'classifyGoal',
    method: 'POST',
    path: '/physical/classify',
    tag: 'physical',
    summary: 'Classify a structured goal into an open-intent code; no token',
    security: 'tenant',
    schema: { body: ClassifyRequest, response: { 200: Classification, ...bodyErrors } },
  }),
  issuePhysicalToken: route({
    operationId: 'issuePhysicalToken',
    method: 'POST',
    path: '/physical/authority-tokens',
    tag: 'physical',
    summary:
      'Run the authority loop: ALLOW mints a token, ESCALATE opens a ticket, DENY is 422 (423 for an audit gap)',
    security: 'tenant',
    idempotent: true,
    schema: {
      body: PhysicalTokenRequest,
      response: { 200: PhysicalIssuance, ...bodyErrors, 422: PhysicalDeny, 423: PhysicalDeny },
    },
  }),
  revokePhysicalToken: route({
    operationId: 'revokePhysicalToken',
    method: 'POST',
    path: '/physical/authority-tokens/:jti/revoke',
    tag: 'physical',
    summary: 'Revoke an issued token; revoking it again answers the original revokedAtMs',
    security: 'tenant',
    schema: { params: JtiParams, body: RevokeRequest, response: { 200: RevokeResult, ...bodyErrors } },
  }),
  listRevocations: route({
    operationId: 'listRevocations',
    method: 'GET',
    path: '/physical/revocations',
    tag: 'physical',
    summary:
      'Revocations with revokedAtMs > since, oldest first, at most 1,000; poll again with since = asOfMs',
    security: 'tenant',
    schema: {
      querystring: Type.Object(
        {
          since: Type.Optional(
            Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Default 0' }),
          ),
        },
        Closed,
      ),
      response: { 200: RevocationPage, ...errors },
    },
  }),
  recordSnapshot: route({
    operationId: 'recordSnapshot',
    method: 'POST',
    path: '/physical/snapshots',
    tag: 'physical',
    summary: 'Record a state snapshot in the audit chain; Idempotency-Key makes retries safe',
    security: 'tenant',
    idempotent: true,
    schema: { body: SnapshotRequest, response: { 200: SnapshotResult, ...bodyErrors } },
  }),
  registerPhysicalActor: route({
    operationId: 'registerPhysicalActor',
    method: 'POST',
    path: '/physical/actors',
    tag: 'physical',
    summary: 'Register an actor, or update it: idempotent on actorIdentity; omitted fields keep their values',
    security: 'tenant',
    schema: { body: PhysicalActorRegistration, response: { 200: PhysicalActor, ...bodyErrors } },
  }),
  listPhysicalActors: route({
    operationId: 'listPhysicalActors',
    method: 'GET',
    path: '/physical/actors',
    tag: 'physical',
    summary: 'The roster, most recently registered first',
    security: 'tenant',
    schema: {
      querystring: Type.Object(PageQuery, Closed),
      response: {
        200: Type.Object({ actors: Type.Array(PhysicalActor), nextCursor: Nullable(Type.String()) }),
        ...errors,
      },
    },
  }),
  listTickets: route({
    operationId: 'listTickets',
    method: 'GET',
    path: '/physical/approvals',
    tag: 'physical',
    summary: 'Operator tickets by status (default pending), newest first',
    security: 'tenant',
    schema: {
      querystring: Type.Object(
        {
          status: Type.Optional(Type.Enum(TICKET_STATUSES, { description: 'Default pending' })),
          ...PageQuery,
        },
        Closed,
      ),
      response: {
        200: Type.Object({ tickets: Type.Array(Ticket), nextCursor: Nullable(Type.String()) }),
        ...errors,
      },
    },
  }),
  getTicket: route({
    operationId: 'getTicket',
    method: 'GET',
    path: '/physical/approvals/:ticketId',
    tag: 'physical',
    summary: 'Poll one ticket',
    security: 'tenant',
    schema: { params: TicketParams, response: { 200: Ticket, ...errors } },
  }),
  decideTicket: route({
    operationId: 'decideTicket',
    method: 'POST',
    path: '/physical/approvals/:ticketId/decide',
    tag: 'physical',
    summary: 'Approve or reject a pending ticket; the authenticated principal is recorded as approvedBy',
    security: 'tenant',
    schema: { params: TicketParams, body: TicketDecision, response: { 200: Ticket, ...bodyErrors } },
  }),
  listPhysicalAudit: route({
    operationId: 'listPhysicalAudit',
    method: 'GET',
    path: '/physical/audit',
    tag: 'physical',
    summary: 'Every physical decision (ALLOW, ESCALATE, DENY), newest first',
    security: 'tenant',
    schema: {
      querystring: Type.Object(
        {
          ...PageQuery,
          oiCode: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
          actorIdentity: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
        },
        Closed,
      ),
      response: {
        200: Type.Object({ entries: Type.Array(PhysicalAuditEntry), nextCursor: Nullable(Type.String()) }),
        ...errors,
      },
    },
  }),
  getPhysicalAudit: route({
    operationId: 'getPhysicalAudit',
    method: 'GET',
    path: '/physical/audit/:jti',
    tag: 'physical',
    summary: 'The audit entry of one issued token, with its verification reports',
    security: 'tenant',
    schema: { params: JtiParams, response: { 200: PhysicalAuditEntry, ...errors } },
  }),
  reportVerification: route({
    operationId: 'reportVerification',
    method: 'POST',
    path: '/physical/audit/:jti/verifications',
    tag: 'physical',
    summary: "An edge verifier's report about one token; appended to the entry and to the chain",
    security: 'tenant',
    schema: {
      params: JtiParams,
      body: VerificationReport,
      response: {
        200: Type.Object({ tokenJti: Type.String(), verification: Verification }),
        ...bodyErrors,
      },
    },
  }),
  reportVerifications: route({
    operationId: 'reportVerifications',
    method: 'POST',
    path: '/physical/verifications',
    tag: 'physical',
    summary: 'Reports about several tokens (at most 500); each malformed or unknown one is refused by index',
    security: 'tenant',
    schema: { body: VerificationBatch, response: { 200: VerificationBatchResult, ...bodyErrors } },
  }),
  getPhysicalPolicy: route({
    operationId: 'getPhysicalPolicy',
    method: 'GET',
    path: '/physical/policy',
    tag: 'physical',
    summary: 'The active clause policy; the default policy is version 0 with activatedAt null',
    security: 'tenant',
    schema: { response: { 200: PhysicalPolicyView, ...errors } },
  }),
  uploadPhysicalPolicy: route({
    operationId: 'uploadPhysicalPolicy',
    method: 'POST',
    path: '/physical/policy',
    tag: 'physical',
    summary: 'Upload a clause policy as the next version; activate (default false) makes it the active one',
    security: 'tenant',
    schema: { body: PhysicalPolicyUpload, response: { 200: PhysicalPolicyUploaded, ...bodyErrors } },
  }),
  getPhysicalJwks: route({
    operationId: 'getPhysicalJwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    tag: 'physical',
    summary: 'Verification keys of physical authority tokens (RS256, current and previous)',
    security: 'public',
    schema: { response: { 200: PhysicalJwks, 429: ErrorEnvelope } },
  }),
} as const;
