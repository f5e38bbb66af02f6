import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../../src/identity/principal.js';
import {
  buildPhysicalClaims,
  type PhysicalDecision,
  type PhysicalOutcome,
  type PhysicalTokenRequest,
  type StructuredGoal,
} from '../../src/physical/domain/index.js';
import { normalizePhysicalState, type PhysicalStateInput } from '../../src/physical/domain/physical-state.js';
import { newPhysicalStateRef } from '../../src/physical/use-cases/physical-snapshots.js';
import type { TestApp } from '../helpers/app.js';

/**
 * Decisions recorded the way the decision endpoint records them: a token signed by the physical
 * signer over claims from the domain's claim builder, then the snapshot, the decision row and its
 * chain entries in one write transaction.
 */

export const ACTOR = 'devid:arm-7';

export function goal(actorIdentity = ACTOR, overrides: Partial<StructuredGoal> = {}): StructuredGoal {
  return {
    schema: 'robot.manipulation',
    verb: 'pick',
    object: 'tote',
    parameters: { cell: 4 },
    actor: { kind: 'robot', identifier: actorIdentity },
    ...overrides,
  };
}

export function tokenRequest(actorIdentity = ACTOR, deadlineMs = 5_000): PhysicalTokenRequest {
  return {
    intent: { structuredGoal: goal(actorIdentity) },
    dagNode: { nodeId: 'node-1', oiCode: 'OI-1501', deadlineMs, safeDefault: 'stop' },
    claims: { actorIdentity, deadlineMs, safeDefault: 'stop' },
  };
}

function decisionOf(outcome: PhysicalOutcome, oiCode: string): PhysicalDecision {
  return {
    decision: outcome,
    httpStatus: outcome === 'DENY' ? 422 : 200,
    auditGap: false,
    clauseId:
      outcome === 'ALLOW'
        ? 'allow-when-clear'
        : outcome === 'DENY'
          ? 'deny-on-emergency-stop'
          : 'escalate-on-low-confidence',
    clauseIds: [],
    safeDefault: 'stop',
    reasons: ['fixture'],
    oiCode,
    hypotheses: [oiCode],
    safetyBit: outcome === 'DENY',
    safetyCitations: outcome === 'DENY' ? ['OI-2901'] : [],
    explanation: null,
    operatorTicketId: null,
  };
}

export interface Issued {
  jti: string;
  token: string;
  kid: string;
  correlationId: string;
  decisionId: string;
  physicalStateRef: string | null;
}

export interface IssueOptions {
  actorIdentity?: string;
  oiCode?: string;
  deadlineMs?: number;
  physicalState?: PhysicalStateInput;
  operatorTicketId?: string | null;
  correlationId?: string;
}

/** An ALLOW: a signed token, its snapshot (when state is given) and its audit record. */
export async function issueToken(t: TestApp, tenantId: string, options: IssueOptions = {}): Promise<Issued> {
  const actorIdentity = options.actorIdentity ?? ACTOR;
  const oiCode = options.oiCode ?? 'OI-1501';
  const request = tokenRequest(actorIdentity, options.deadlineMs);
  const jti = randomUUID();
  const correlationId = options.correlationId ?? uuidv7();
  const nowMs = t.clock();
  const state = options.physicalState && normalizePhysicalState(options.physicalState);
  // As the decision endpoint does: everything the token names is minted first, signing happens
  // before the transaction opens.
  const physicalStateRef = state ? newPhysicalStateRef() : null;
  const decision = { ...decisionOf('ALLOW', oiCode), operatorTicketId: options.operatorTicketId ?? null };
  const claims = buildPhysicalClaims({
    issuer: t.config.publicBaseUrl,
    tenantId,
    jti,
    nowMs,
    decision,
    request,
    physicalStateRef,
  });
  const { token, kid } = await t.services.physical.signer.sign(claims);
  const { decisionId } = await t.storage.writeTransaction(async (trx) => {
    if (state && physicalStateRef) {
      await t.services.physical.snapshots.record(
        trx,
        tenantId,
        state,
        { actorIdentity, actorKind: 'robot', correlationId },
        physicalStateRef,
      );
    }
    return t.services.physical.audit.record(trx, {
      tenantId,
      decision: 'ALLOW',
      tokenJti: jti,
      correlationId,
      issuedAtMs: nowMs,
      expiresAtMs: claims.service.expiresAtMs,
      actorIdentity,
      actorKind: 'robot',
      oiCode,
      structuredGoal: request.intent.structuredGoal,
      dagNode: request.dagNode,
      physicalStateRef,
      safetyBit: false,
      safetyCitations: [],
      safeDefault: 'stop',
      clauseId: decision.clauseId,
      clauseIds: [decision.clauseId],
      escalationTicketId: null,
      operatorTicketId: decision.operatorTicketId,
      reasons: decision.reasons,
    });
  });
  return { jti, token, kid, correlationId, decisionId, physicalStateRef };
}

/** A DENY or ESCALATE record (no token); ESCALATE also opens a ticket. */
export async function recordRefusal(
  t: TestApp,
  tenantId: string,
  outcome: 'DENY' | 'ESCALATE',
  options: { actorIdentity?: string; oiCode?: string } = {},
): Promise<{ decisionId: string; ticketId: string | null; correlationId: string }> {
  const actorIdentity = options.actorIdentity ?? ACTOR;
  const oiCode = options.oiCode ?? 'OI-1501';
  const request = tokenRequest(actorIdentity);
  const decision = decisionOf(outcome, oiCode);
  const correlationId = uuidv7();
  return t.storage.writeTransaction(async (trx) => {
    const ticket =
      outcome === 'ESCALATE'
        ? await t.services.physical.tickets.create(trx, {
            tenantId,
            oiCode,
            structuredGoal: request.intent.structuredGoal,
            correlationId,
          })
        : null;
    const { decisionId } = await t.services.physical.audit.record(trx, {
      tenantId,
      decision: outcome,
      tokenJti: null,
      correlationId,
      issuedAtMs: t.clock(),
      expiresAtMs: ticket?.expiresAtMs ?? null,
      actorIdentity,
      actorKind: 'robot',
      oiCode,
      structuredGoal: request.intent.structuredGoal,
      dagNode: request.dagNode,
      physicalStateRef: null,
      safetyBit: decision.safetyBit,
      safetyCitations: decision.safetyCitations,
      safeDefault: decision.safeDefault,
      clauseId: decision.clauseId,
      clauseIds: [decision.clauseId],
      escalationTicketId: ticket?.ticketId ?? null,
      operatorTicketId: null,
    });
    return { decisionId, ticketId: ticket?.ticketId ?? null, correlationId };
  });
}

/** A principal for calling the services directly (the HTTP layer builds these from credentials). */
export function principal(
  tenantId: string,
  id: string,
  type: 'api_key' | 'portal_user' = 'api_key',
): Principal {
  const base = { id, tenantId, role: 'owner' as const, scopes: null, permissions: new Set<never>() };
  return type === 'api_key'
    ? { ...base, type }
    : { ...base, type, session: { key: 'test-session', mfaRequired: false, mfaVerified: true } };
}

export { chainEvents } from '../helpers/audit.js';
