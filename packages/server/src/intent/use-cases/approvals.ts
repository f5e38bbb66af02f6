import { v7 as uuidv7 } from 'uuid';
import { type AuditEvent, principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import type { ConnectorService } from '../../connectors/connector-service.js';
import { AppError } from '../../errors/app-error.js';
import { isUniqueViolation } from '../../errors/database-errors.js';
import type { Clock } from '../../foundation/clock.js';
import type { Idempotency } from '../../idempotency/idempotency.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import { enqueueEvent } from '../../webhooks/outbox.js';
import {
  type ApprovalStatus,
  type EscalationDetail,
  type EscalationView,
  escalationDetail,
  escalationStatus,
  escalationView,
  riskScoreOf,
} from '../domain/escalation-views.js';
import type { ApprovalState, IntentRecord } from '../domain/intent-record.js';
import { approvalRepository } from '../repositories/approval-repository.js';
import { intentRepository } from '../repositories/intent-repository.js';
import { createEscalationTokens } from './escalation-tokens.js';
import type { ThresholdsStore } from './thresholds-store.js';

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
  const tokens = createEscalationTokens(deps);

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
          throw new AppError('CONFLICT', 'The escalation is already decided', { status });
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
            status,
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
        throw new AppError('CONFLICT', 'The escalation expired before it was decided', { status: 'expired' });
      }
      return outcome.view;
    },

    issueToken: tokens.issueToken,

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
