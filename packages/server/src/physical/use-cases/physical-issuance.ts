/**
 * The physical authority loop (02-physical-api.md, contract §9): `POST /physical/classify` and
 * `POST /physical/authority-tokens`. The decision is the pure domain's (`evaluatePhysical`); this
 * module gathers its inputs, mints and signs the token, and records the outcome.
 *
 * Order of an issuance: roster (403 `actor_not_registered`), predicate names of the state (400),
 * classification by the server, request consistency (400), then the decision over the tenant's
 * context (kill switch, active policy or the default, an unacknowledged chain break) and the
 * operator ticket named by the request (404, or 409 when it cannot be redeemed):
 *
 * - ALLOW: the claims are built and signed *before* the write transaction (RSA runs on the thread
 *   pool); one transaction then redeems the ticket (exactly once), stores the snapshot, writes the
 *   audit record and its chain entry, and the idempotent answer.
 * - ESCALATE: one transaction stores the snapshot, opens the ticket and writes the record.
 * - DENY: one transaction stores the snapshot and writes the record; the answer is the 422 (423
 *   for an audit gap) `policy_denied` envelope with the deciding clause and the safe default.
 * The snapshot is stored whenever `physicalState` was sent: a refusal keeps its evidence too.
 *
 * Fail closed: anything unexpected becomes 500 `internal_error` (503 when the database cannot be
 * reached); the transaction rolls back, so a failure leaves no record, no snapshot, no consumed
 * ticket and no stored idempotent answer, and the signed token is never returned.
 */

import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { chainRepository } from '../../chain/chain-repository.js';
import { AppError } from '../../errors/app-error.js';
import { failClosed } from '../../errors/fail-closed.js';
import type { Clock } from '../../foundation/clock.js';
import { withSpan } from '../../foundation/tracing.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import { createGroupCommit } from '../../storage/group-commit.js';
import { AuthorityWithdrawn, authorityWithdrawn, decideUntilCurrent } from '../../tenancy/tenant-controls.js';
import {
  buildPhysicalClaims,
  type ClassificationResult,
  checkRequestConsistency,
  classify,
  evaluatePhysical,
  type PhysicalDecision,
  type PhysicalState,
  type PhysicalTokenRequest,
  physicalDenyDetails,
  type SafeDefault,
  type StructuredGoal,
} from '../domain/index.js';
import { physicalEvent } from '../domain/physical-events.js';
import type { IssuanceRequest } from '../domain/physical-request.js';
import { normalizePhysicalState } from '../domain/physical-state.js';
import { actorRepository } from '../repositories/actor-repository.js';
import {
  type IssuanceContext,
  issuanceContextRepository,
} from '../repositories/issuance-context-repository.js';
import type { PhysicalActor, PhysicalActors } from './physical-actors.js';
import type { PhysicalAudit } from './physical-audit.js';
import type { IdempotencyScope } from './physical-idempotency.js';
import type { PhysicalPolicyStore } from './physical-policy-store.js';
import type { PhysicalSigner } from './physical-signer.js';
import { newPhysicalStateRef, type PhysicalSnapshots } from './physical-snapshots.js';
import type { PhysicalTickets } from './physical-tickets.js';

export interface AllowBody {
  decision: 'ALLOW';
  token: string;
  oiCode: string;
  expiresAtMs: number;
  safetyBit: boolean;
  safetyCitations: string[];
  physicalStateRef: string | null;
  tokenJti: string;
}

export interface EscalateBody {
  decision: 'ESCALATE';
  escalationTicketId: string;
  approvalUrl: string;
  safeDefault: SafeDefault;
  expiresAtMs: number;
}

/** A decision that answered 200; a DENY is thrown as its 422/423 AppError. */
export interface IssuanceOutcome {
  statusCode: 200;
  body: AllowBody | EscalateBody;
}

export interface PhysicalIssuance {
  /** `POST /physical/classify`: the classification, recorded as `physical.classified`. */
  classify(principal: Principal, goal: StructuredGoal): Promise<ClassificationResult>;
  /**
   * `POST /physical/authority-tokens`. Resolves with ALLOW or ESCALATE; rejects with the DENY's
   * `policy_denied` error once the refusal is recorded, or with the 4xx/5xx of a failed check.
   */
  issue(tenantId: string, request: IssuanceRequest, scope: IdempotencyScope): Promise<IssuanceOutcome>;
  /** Observes every commit of decisions (their rows and audit entries): batch size and duration. */
  onCommit(listener: (batchSize: number, seconds: number) => void): void;
}

export interface PhysicalIssuanceDeps {
  storage: Storage;
  clock: Clock;
  signer: PhysicalSigner;
  actors: PhysicalActors;
  tickets: PhysicalTickets;
  audit: PhysicalAudit;
  snapshots: PhysicalSnapshots;
  policies: PhysicalPolicyStore;
  /**
   * `iss` of physical tokens: PUBLIC_BASE_URL, document 02's `{base_url}` (contract §9;
   * `service-authority` is the intent surface's issuer only).
   */
  issuer: string;
}

function denyError(decision: PhysicalDecision): AppError {
  const message = decision.auditGap
    ? `Denied by ${decision.clauseId}: the audit trail has a gap; fall back to ${decision.safeDefault}`
    : `Denied by ${decision.clauseId}; fall back to ${decision.safeDefault}`;
  return new AppError(decision.auditGap ? 'POLICY_DENIED_AUDIT_GAP' : 'POLICY_DENIED', message, {
    ...physicalDenyDetails(decision),
  });
}

/**
 * The writes of one decision of a tenant, run in a transaction shared with the other decisions of
 * its batch.
 */
interface DecisionWrite<T> {
  tenantId: string;
  write: (trx: Executor) => Promise<T>;
}

/** Decisions per group commit: each writes a handful of rows, so SQLite's limits are far away. */
const MAX_BATCH = 64;

export function createPhysicalIssuance(deps: PhysicalIssuanceDeps): PhysicalIssuance {
  const { storage, clock } = deps;
  const commitListeners: Array<(batchSize: number, seconds: number) => void> = [];
  // Group commit (storage/group-commit.ts): the decisions that arrive while a transaction is being
  // written share the next one, so they share its BEGIN, its COMMIT and the pages it writes, which
  // cost more than the rows of one decision (docs/performance.md). Each write runs after the
  // previous one of its batch, as it would have run alone; when one fails, the batch is rolled back
  // and every write is retried in a transaction of its own, so each request gets its own outcome.
  // Nothing is answered before its transaction committed. The writes run by tenant (`lockKey`), so
  // every instance takes the tenants' chain heads in one order.
  const commits = createGroupCommit<DecisionWrite<unknown>, unknown>({
    storage,
    maxBatch: MAX_BATCH,
    async apply(trx, writes) {
      const results: unknown[] = [];
      for (const { write } of writes) results.push(await write(trx));
      return results;
    },
    lockKey: (write) => write.tenantId,
    onCommit: (batchSize, seconds) => {
      for (const listener of commitListeners) listener(batchSize, seconds);
    },
  });
  const writeDecision = <T>(tenantId: string, write: DecisionWrite<T>['write']) =>
    commits.submit({ tenantId, write }) as Promise<T>;

  async function loadContext(tenantId: string): Promise<IssuanceContext> {
    const context = await issuanceContextRepository.get(storage.db, tenantId);
    if (!context) throw new Error(`tenant ${tenantId} does not exist`);
    return context;
  }

  async function decide(
    tenantId: string,
    input: IssuanceRequest,
  ): Promise<{
    request: PhysicalTokenRequest;
    state: PhysicalState | undefined;
    actor: PhysicalActor;
    decision: PhysicalDecision;
    nowMs: number;
    correlationId: string;
  }> {
    const goal = input.intent.structuredGoal;
    const ticketId = input.operatorTicketId ?? null;
    const [actor, context, ticket] = await Promise.all([
      deps.actors.get(tenantId, input.claims.actorIdentity),
      loadContext(tenantId),
      ticketId === null ? undefined : deps.tickets.find(tenantId, ticketId),
    ]);
    const state = input.physicalState === undefined ? undefined : normalizePhysicalState(input.physicalState);
    const request: PhysicalTokenRequest = {
      intent: input.intent,
      dagNode: input.dagNode,
      claims: input.claims,
      operatorTicketId: ticketId,
      ...(state === undefined ? {} : { physicalState: state }),
    };
    const classification = classify(goal);
    checkRequestConsistency(request, { rosterActorKind: actor.actorKind, classification });
    const { compiled } = await deps.policies.compiledAt(tenantId, context.policyVersion);
    const nowMs = clock();
    const decision = evaluatePhysical({
      policy: compiled,
      goal,
      classification,
      callerOiCodes: [input.intent.oiCode, input.dagNode.oiCode],
      callerSafetyBit: input.claims.safetyBit,
      callerSafetyCitations: input.claims.safetyCitations ?? [],
      ...(state === undefined ? {} : { physicalState: state }),
      requestSafeDefault: input.dagNode.safeDefault,
      nowMs,
      killSwitchEnabled: context.killSwitchEnabled,
      unacknowledgedChainBreak: context.unacknowledgedChainBreak,
      operatorTicketId: ticketId,
      ...(ticket === undefined ? {} : { operatorTicket: ticket }),
    });
    // A re-issue after an approval continues the story the escalation started.
    const correlationId =
      decision.operatorTicketId !== null && ticket !== undefined ? ticket.correlationId : uuidv7();
    return { request, state, actor, decision, nowMs, correlationId };
  }

  async function issue(
    tenantId: string,
    input: IssuanceRequest,
    scope: IdempotencyScope,
  ): Promise<IssuanceOutcome> {
    const { request, state, actor, decision, nowMs, correlationId } = await decide(tenantId, input);
    const goal = request.intent.structuredGoal;
    const source = { actorIdentity: actor.actorIdentity, actorKind: actor.actorKind, correlationId };
    const record = {
      tenantId,
      correlationId,
      issuedAtMs: nowMs,
      actorIdentity: actor.actorIdentity,
      actorKind: actor.actorKind,
      oiCode: decision.oiCode,
      structuredGoal: goal,
      dagNode: request.dagNode,
      safetyBit: decision.safetyBit,
      safetyCitations: decision.safetyCitations,
      clauseId: decision.clauseId,
      clauseIds: decision.clauseIds,
      reasons: decision.reasons,
    };
    const physicalStateRef = state === undefined ? null : newPhysicalStateRef();
    const snapshot = async (trx: Executor) => {
      if (state !== undefined && physicalStateRef !== null) {
        await deps.snapshots.record(trx, tenantId, state, source, physicalStateRef);
      }
    };

    if (decision.decision === 'DENY') {
      const error = denyError(decision);
      await writeDecision(tenantId, async (trx) => {
        await snapshot(trx);
        await deps.audit.record(trx, {
          ...record,
          decision: 'DENY',
          tokenJti: null,
          expiresAtMs: null,
          physicalStateRef,
          safeDefault: decision.safeDefault,
          escalationTicketId: null,
          operatorTicketId: null,
        });
        await scope.complete(trx, { statusCode: error.status, body: scope.errorBody(error) });
      });
      throw error;
    }

    if (decision.decision === 'ESCALATE') {
      return writeDecision(tenantId, async (trx) => {
        await snapshot(trx);
        const ticket = await deps.tickets.create(trx, {
          tenantId,
          oiCode: decision.oiCode,
          structuredGoal: goal,
          correlationId,
        });
        await deps.audit.record(trx, {
          ...record,
          decision: 'ESCALATE',
          tokenJti: null,
          expiresAtMs: ticket.expiresAtMs,
          physicalStateRef,
          safeDefault: decision.safeDefault,
          escalationTicketId: ticket.ticketId,
          operatorTicketId: null,
        });
        const answer: IssuanceOutcome = {
          statusCode: 200,
          body: {
            decision: 'ESCALATE',
            escalationTicketId: ticket.ticketId,
            approvalUrl: ticket.approvalUrl,
            safeDefault: decision.safeDefault,
            expiresAtMs: ticket.expiresAtMs,
          },
        };
        await scope.complete(trx, answer);
        return answer;
      });
    }

    const jti = randomUUID();
    const claims = buildPhysicalClaims({
      issuer: deps.issuer,
      tenantId,
      jti,
      nowMs,
      decision,
      request,
      actorIdentityKind: actor.actorIdentityKind,
      physicalStateRef,
    });
    const { token } = await withSpan('sign physical_token', {}, () => deps.signer.sign(claims));
    return writeDecision(tenantId, async (trx) => {
      // The ticket row is locked before the chain head, the order a ticket decision takes too.
      if (decision.operatorTicketId !== null) {
        await deps.tickets.redeem(trx, tenantId, decision.operatorTicketId, {
          oiCode: decision.oiCode,
          structuredGoal: goal,
        });
      }
      await snapshot(trx);
      await deps.audit.record(trx, {
        ...record,
        decision: 'ALLOW',
        tokenJti: jti,
        expiresAtMs: claims.service.expiresAtMs,
        physicalStateRef,
        safeDefault: claims.service.safeDefault,
        escalationTicketId: null,
        operatorTicketId: decision.operatorTicketId,
      });
      // The kill switch and the roster entry read by the decision may have changed since: both
      // changes take the chain head lock this transaction now holds (tenant-controls.ts).
      const rostered = await actorRepository.findByIdentity(trx, tenantId, actor.actorIdentity);
      if ((await authorityWithdrawn(trx, tenantId)) || rostered?.status !== 'active') {
        throw new AuthorityWithdrawn(tenantId);
      }
      const answer: IssuanceOutcome = {
        statusCode: 200,
        body: {
          decision: 'ALLOW',
          token,
          oiCode: decision.oiCode,
          expiresAtMs: claims.service.expiresAtMs,
          safetyBit: decision.safetyBit,
          safetyCitations: decision.safetyCitations,
          physicalStateRef,
          tokenJti: jti,
        },
      };
      await scope.complete(trx, answer);
      return answer;
    });
  }

  return {
    onCommit(listener) {
      commitListeners.push(listener);
    },

    async classify(principal, goal) {
      const result = classify(goal);
      await storage.writeTransaction((trx) =>
        chainRepository.append(
          trx,
          principal.tenantId,
          [
            physicalEvent(
              { actorIdentity: goal.actor.identifier, actorKind: goal.actor.kind, correlationId: uuidv7() },
              'physical.classified',
              { goal, classification: result, principalId: principal.id },
            ),
          ],
          clock(),
        ),
      );
      return result;
    },

    async issue(tenantId, request, scope) {
      try {
        // An ALLOW the kill switch or a roster change overtook before its commit is decided again.
        return await decideUntilCurrent(() => issue(tenantId, request, scope));
      } catch (error) {
        throw failClosed(error);
      }
    },
  };
}
