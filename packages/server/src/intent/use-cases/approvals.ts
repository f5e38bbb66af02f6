import { v7 as uuidv7 } from 'uuid';
import { type AuditEvent, principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import type { ConnectorService } from '../../connectors/connector-service.js';
import { AppError } from '../../errors/app-error.js';
import { isUniqueViolation } from '../../errors/database-errors.js';
import type { Clock } from '../../foundation/clock.js';
import { type Idempotency, requestHash } from '../../idempotency/idempotency.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import { mintDecisionToken } from '../../tokens/decision-token.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import { enqueueEvent } from '../../webhooks/outbox.js';
import {
  type ApprovalStatus,
  type EscalationDetail,
  type EscalationView,
  escalationDetail,
  escalationStatus,
  escalationView,
  intentStatus,
  riskScoreOf,
} from '../domain/escalation-views.js';
import { tokenIssuedEvent } from '../domain/intent-events.js';
import type { ApprovalState, IntentRecord } from '../domain/intent-record.js';
import { approvalRepository } from '../repositories/approval-repository.js';
import { intentRepository } from '../repositories/intent-repository.js';
import type { IntentResponse } from './decision-loop.js';
import { executeApproved, initialExecution, planExecution } from './execution-plan.js';
import type { ThresholdsStore } from './thresholds-store.js';

/** The answer of `POST /intent/:id/token`: the intent response shape with the token. */
type IntentTokenResponse = IntentResponse & { authorityDecisionToken: string };

/** Idempotency scope of `POST /intent/:id/token` (`POST /intent` uses scope `intent`). */
export const TOKEN_IDEMPOTENCY_SCOPE = 'intent-token';

export interface ApprovalInput {
  intentId: string;
  decision: 'approve' | 'deny';
  approver?: { id?: string | undefined; name?: string | undefined } | undefined;
  rationale: string;
}

/** The recorded decision (contract §4.8). `approver` is who decided; `id`/`name` are display only. */
export interface ApprovalView {
  approvalId: string;
  intentId: string;
  escalationId: string;
  decision: 'approve' | 'deny';
  approver: { principalId: string; id: string | null; name: string | null };
  rationale: string;
  decidedAt: string;
  status: ApprovalStatus;
  approvalsReceived: number;
  requiredApprovals: number;
}

export interface EscalationQuery {
  status?: ApprovalStatus | undefined;
  queue?: ApprovalState['queue'] | undefined;
  /** Continue below this intent id (UUIDv7 ids sort by time). */
  before?: string | undefined;
  limit: number;
}

const CATASTROPHIC_PERMISSION = 'authority:approve:catastrophic';

/**
 * Audit events of an intent carry its correlation id and its target; the actor is the principal
 * that acted, or `system` for an expiry.
 */
function reviewEvent(
  record: IntentRecord,
  principal: Principal | null,
  eventType: string,
  payload: Record<string, unknown>,
): AuditEvent {
  const withTarget = { targetSystem: record.targetSystem, ...payload };
  const event: AuditEvent =
    principal === null
      ? {
          correlationId: null,
          intentId: record.id,
          actorId: 'system',
          actorType: 'system',
          eventType,
          payload: withTarget,
        }
      : principalEvent(principal, eventType, withTarget, record.id);
  return { ...event, correlationId: record.correlationId };
}

/**
 * Human review of escalated intents (contract §4.8): approvals with separation of duties, the
 * two-person rule of the catastrophic queue, expiry, and the one token an approved intent earns.
 */
export function createApprovals(deps: {
  storage: Storage;
  clock: Clock;
  tenants: TenantService;
  thresholds: ThresholdsStore;
  signingKeys: SigningKeyService;
  connectors: ConnectorService;
  idempotency: Idempotency;
  /** AUTHORITY_APPROVAL_URL without a trailing slash. */
  approvalUrl: string;
}) {
  const { storage, clock } = deps;

  async function lockIntent(trx: Executor, tenantId: string, intentId: string) {
    return intentRepository.get(trx, tenantId, intentId, { forUpdate: true });
  }

  /** Writes the expiry of a lapsed escalation: status, audit entry and `decision.denied` event. */
  async function expire(trx: Executor, record: IntentRecord, now: number): Promise<void> {
    const approval: ApprovalState = { ...(record.approval as ApprovalState), status: 'expired' };
    await intentRepository.review(trx, record.tenantId, record.id, {
      status: 'EXPIRED',
      approval,
      updatedAt: now,
    });
    await chainRepository.append(
      trx,
      record.tenantId,
      [
        reviewEvent(record, null, 'intent.expired', {
          escalationId: record.escalationId,
          expiresAt: approval.expiresAt,
        }),
      ],
      now,
    );
    await enqueueEvent(trx, record.tenantId, {
      event: 'decision.denied',
      intentId: record.id,
      decision: 'DENIED',
      riskScore: riskScoreOf(record),
      reason: 'expired',
      occurredAt: now,
    });
  }

  /**
   * Mints the one token of an approved escalation: signed before the transaction, attached to the
   * intent with its `token.issued` entry (and the answer under the idempotency key) in one commit,
   * then executed through the target's connector when it has autoExecute.
   */
  async function mintToken(
    record: IntentRecord,
    idempotencyKey: string | undefined,
  ): Promise<IntentTokenResponse> {
    const { tenantId, id: intentId } = record;
    const now = clock();
    const status = intentStatus(record, now);
    if (status !== 'APPROVED_AFTER_REVIEW') {
      throw new AppError('CONFLICT', 'Only an approved escalation earns a token', { status });
    }
    if (record.token !== null) {
      throw new AppError('CONFLICT', 'The token of this intent was already issued', {
        status,
        reason: 'token_already_issued',
      });
    }
    const tenant = await deps.tenants.get(tenantId);
    if (!tenant || tenant.killSwitch.enabled) {
      throw new AppError('CONFLICT', 'The tenant kill switch is on', { status, reason: 'kill_switch' });
    }
    const thresholds = await deps.thresholds.read(tenantId);
    const request = record.request as { proposedAction: string; args?: unknown };
    const plan = await planExecution(deps.connectors, tenantId, record.targetSystem);
    const minted = await mintDecisionToken(
      await deps.signingKeys.signer(tenantId),
      {
        intentId,
        tenantId,
        ...plan.binding,
        targetSystem: record.targetSystem,
        proposedAction: request.proposedAction,
        ttlSeconds: thresholds.tokenTtlSeconds,
      },
      now,
    );
    const execution = initialExecution(plan);
    const response = await storage.writeTransaction(async (trx) => {
      const claimed = await intentRepository.attachToken(
        trx,
        tenantId,
        intentId,
        minted.token,
        execution,
        now,
      );
      if (!claimed) {
        throw new AppError('CONFLICT', 'The token of this intent was already issued', {
          status,
          reason: 'token_already_issued',
        });
      }
      const appended = await chainRepository.append(
        trx,
        tenantId,
        [
          tokenIssuedEvent(
            {
              correlationId: record.correlationId,
              intentId,
              actorId: record.actorId,
              actorType: (record.request as { actor: { type: string } }).actor.type,
            },
            record.targetSystem,
            minted,
          ),
        ],
        now,
      );
      const committed: IntentTokenResponse = {
        intentId,
        correlationId: record.correlationId,
        authorityDecision: { ...record.authorityDecision, decision: 'APPROVED' },
        audit: { entriesWritten: appended.entries.length, latestHash: appended.latestHash },
        execution,
        authorityDecisionToken: minted.token,
      };
      if (idempotencyKey !== undefined) {
        const stored = { statusCode: 200, body: committed };
        await deps.idempotency.complete(trx, tenantId, TOKEN_IDEMPOTENCY_SCOPE, idempotencyKey, stored);
      }
      return committed;
    });
    if (!plan.executes) return response;
    const executed = await executeApproved(
      deps.connectors,
      plan,
      tenantId,
      { proposedAction: request.proposedAction, targetSystem: record.targetSystem, args: request.args },
      response,
    );
    if (idempotencyKey !== undefined) {
      // A replay answers what the caller saw, the outcome of the execution included.
      const stored = { statusCode: 200, body: executed };
      await deps.idempotency.complete(storage.db, tenantId, TOKEN_IDEMPOTENCY_SCOPE, idempotencyKey, stored);
    }
    return executed;
  }

  return {
    async decide(principal: Principal, input: ApprovalInput): Promise<ApprovalView> {
      const tenantId = principal.tenantId;
      const now = clock();
      const outcome = await storage.writeTransaction(async (trx) => {
        const record = await lockIntent(trx, tenantId, input.intentId);
        if (!record) throw new AppError('NOT_FOUND', 'No such intent');
        const status = escalationStatus(record, now);
        if (status === undefined) {
          throw new AppError('CONFLICT', 'The intent was not escalated', { status: record.status });
        }
        if (status === 'expired' && record.approval?.status === 'pending') {
          await expire(trx, record, now);
          return { expired: true as const };
        }
        if (status !== 'pending') {
          throw new AppError('CONFLICT', 'The escalation is already decided', {
            status: intentStatus(record, now),
          });
        }
        const approval = record.approval as ApprovalState;
        if (approval.queue === 'catastrophic-review' && !principal.permissions.has(CATASTROPHIC_PERMISSION)) {
          throw new AppError('FORBIDDEN', 'The catastrophic-review queue needs a senior approver', {
            permission: CATASTROPHIC_PERMISSION,
          });
        }
        const actorId = (record.request as { actor?: { id?: unknown } }).actor?.id;
        if (
          principal.id === record.principalId ||
          (input.approver?.id !== undefined && input.approver.id === actorId)
        ) {
          throw new AppError('FORBIDDEN', 'Whoever asked for an action cannot approve it', {
            reason: 'separation_of_duties',
          });
        }
        const approvalId = uuidv7();
        try {
          await approvalRepository.insert(trx, {
            tenantId,
            id: approvalId,
            intentId: record.id,
            escalationId: record.escalationId as string,
            decision: input.decision,
            principalId: principal.id,
            approver: input.approver ?? {},
            rationale: input.rationale,
            decidedAtMs: now,
          });
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          throw new AppError('CONFLICT', 'This principal has already decided on the escalation', {
            status: record.status,
            reason: 'already_decided_by_principal',
          });
        }
        const approvalsReceived = (approval.approvalsReceived ?? 0) + (input.decision === 'approve' ? 1 : 0);
        const next: ApprovalState = {
          ...approval,
          approvalsReceived,
          status:
            input.decision === 'deny'
              ? 'denied'
              : approvalsReceived >= approval.requiredApprovals
                ? 'approved'
                : 'pending',
        };
        await intentRepository.review(trx, tenantId, record.id, {
          status:
            next.status === 'denied'
              ? 'DENIED_AFTER_REVIEW'
              : next.status === 'approved'
                ? 'APPROVED_AFTER_REVIEW'
                : 'ESCALATED',
          approval: next,
          updatedAt: now,
        });
        const view: ApprovalView = {
          approvalId,
          intentId: record.id,
          escalationId: record.escalationId as string,
          decision: input.decision,
          approver: {
            principalId: principal.id,
            id: input.approver?.id ?? null,
            name: input.approver?.name ?? null,
          },
          rationale: input.rationale,
          decidedAt: new Date(now).toISOString(),
          status: next.status,
          approvalsReceived,
          requiredApprovals: approval.requiredApprovals,
        };
        await chainRepository.append(
          trx,
          tenantId,
          [
            reviewEvent(record, principal, 'approval.recorded', {
              approvalId,
              escalationId: view.escalationId,
              queue: approval.queue,
              decision: input.decision,
              approver: view.approver,
              rationale: input.rationale,
              status: next.status,
              approvalsReceived,
              requiredApprovals: approval.requiredApprovals,
            }),
          ],
          now,
        );
        if (next.status !== 'pending') {
          await enqueueEvent(trx, tenantId, {
            event: next.status === 'approved' ? 'decision.approved' : 'decision.denied',
            intentId: record.id,
            decision: next.status === 'approved' ? 'APPROVED' : 'DENIED',
            riskScore: riskScoreOf(record),
            ...(next.status === 'denied' ? { reason: 'denied_in_review' } : {}),
            occurredAt: now,
          });
        }
        return { expired: false as const, view };
      });
      if (outcome.expired) {
        throw new AppError('CONFLICT', 'The escalation expired before it was decided', { status: 'EXPIRED' });
      }
      return outcome.view;
    },

    /**
     * `POST /intent/:id/token`: the one token of an approved escalation, for the principal that
     * submitted the intent (anyone else: 404, before the key is looked at). A second call, a
     * pending or refused escalation and an engaged kill switch answer 409, except that a call with
     * the `Idempotency-Key` of the call that minted replays its stored 200 (contract §13.1), so a
     * caller that lost the reply still gets its token. A refusal releases the key.
     */
    async issueToken(
      principal: Principal,
      intentId: string,
      idempotencyKey?: string,
    ): Promise<IntentTokenResponse> {
      const tenantId = principal.tenantId;
      const record = await intentRepository.get(storage.db, tenantId, intentId);
      if (!record || record.principalId !== principal.id) throw new AppError('NOT_FOUND', 'No such intent');
      if (idempotencyKey === undefined) return mintToken(record, undefined);
      const hash = requestHash({ intentId });
      const claim = await deps.idempotency.claim(tenantId, TOKEN_IDEMPOTENCY_SCOPE, idempotencyKey, hash);
      if (claim.kind === 'replay') return claim.body as IntentTokenResponse;
      try {
        return await mintToken(record, idempotencyKey);
      } catch (error) {
        await deps.idempotency.release(tenantId, TOKEN_IDEMPOTENCY_SCOPE, idempotencyKey).catch(() => {});
        throw error;
      }
    },

    /** Escalations for the console, newest first; one row more than `limit` signals a next page. */
    async list(
      tenantId: string,
      query: EscalationQuery,
    ): Promise<{ approvals: EscalationView[]; hasMore: boolean }> {
      const now = clock();
      const records = await intentRepository.listEscalations(storage.db, tenantId, {
        ...query,
        limit: query.limit + 1,
        now,
      });
      return {
        approvals: records
          .slice(0, query.limit)
          .map((record) => escalationView(record, now, deps.approvalUrl)),
        hasMore: records.length > query.limit,
      };
    },

    /** `GET /authority/approvals/:escalationId`: one escalation of the tenant, or undefined. */
    async get(tenantId: string, escalationId: string): Promise<EscalationDetail | undefined> {
      const record = await intentRepository.getByEscalation(storage.db, tenantId, escalationId);
      if (!record || record.approval === null) return undefined;
      const decisions = await approvalRepository.decisionsOf(storage.db, tenantId, record.id);
      return escalationDetail(record, decisions, clock(), deps.approvalUrl);
    },

    /** Writes the expiry of every lapsed escalation (at most `limit` per call); returns how many. */
    async sweepExpired(limit = 500): Promise<number> {
      const now = clock();
      const due = await intentRepository.lapsedEscalations(storage.db, now, limit);
      let expired = 0;
      for (const { tenantId, id } of due) {
        const done = await storage.writeTransaction(async (trx) => {
          const record = await lockIntent(trx, tenantId, id);
          if (
            record === undefined ||
            escalationStatus(record, now) !== 'expired' ||
            record.approval?.status !== 'pending'
          ) {
            return false;
          }
          await expire(trx, record, now);
          return true;
        });
        if (done) expired += 1;
      }
      return expired;
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
