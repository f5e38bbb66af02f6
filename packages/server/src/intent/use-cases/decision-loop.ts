import { v7 as uuidv7 } from 'uuid';
import type { AuditEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { approvalUrlOf } from '../../config/approval-url.js';
import type { ConnectorService } from '../../connectors/connector-service.js';
import { canonicalJson, sha256Hex } from '../../crypto/canonical-json.js';
import { AppError } from '../../errors/app-error.js';
import { failClosed, loopFailed } from '../../errors/fail-closed.js';
import type { Clock } from '../../foundation/clock.js';
import type { Idempotency } from '../../idempotency/idempotency.js';
import { requestHash } from '../../idempotency/idempotency.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import { createGroupCommit } from '../../storage/group-commit.js';
import type { TenantControls } from '../../tenancy/tenant-controls.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import { type MintedToken, mintDecisionToken } from '../../tokens/decision-token.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import type { DecisionEvent } from '../../webhooks/events.js';
import { enqueueEvents } from '../../webhooks/outbox.js';
import { argsPreview } from '../domain/args-redaction.js';
import { evaluateIntent, type IntentEvaluation } from '../domain/evaluate-intent.js';
import { tokenIssuedEvent } from '../domain/intent-events.js';
import type { ApprovalState, IntentRecord } from '../domain/intent-record.js';
import type { IntentRequest } from '../domain/intent-request.js';
import { isInterpretable } from '../domain/interpret.js';
import type { ThresholdSettings } from '../domain/thresholds.js';
import { intentRepository } from '../repositories/intent-repository.js';
import { type ExecutionPlan, executeApproved, initialExecution, planExecution } from './execution-plan.js';
import { loadGateContext } from './gate-context.js';
import type { PolicyStore } from './policy-store.js';

export const INTENT_IDEMPOTENCY_SCOPE = 'intent';

export interface IntentResponse {
  intentId: string;
  correlationId: string;
  authorityDecision: Record<string, unknown>;
  audit: { entriesWritten: number; latestHash: string };
  execution: Record<string, unknown>;
  authorityDecisionToken?: string;
  escalationId?: string;
  /** ESCALATED only: the console page where a human decides (contract §14). */
  approvalUrl?: string;
  approval?: ApprovalState;
}

export interface SubmitResult {
  statusCode: number;
  body: IntentResponse;
}

const STATUS_CODE = { APPROVED: 200, ESCALATED: 202, DENIED: 403 } as const;
/** One webhook event per transition (contract §4.6). */
const DECISION_EVENT = {
  APPROVED: 'decision.completed',
  ESCALATED: 'decision.escalated',
  DENIED: 'decision.denied',
} as const;
/** Decisions per group commit: 64 intents of 18 columns stay far below SQLite's parameter limit. */
const MAX_BATCH = 64;

/** A decided intent waiting for its commit. */
interface PendingDecision {
  intent: IntentRecord;
  events: AuditEvent[];
  /** The decision's webhook event, written to the outbox in the same commit. */
  webhook: DecisionEvent;
  idempotencyKey: string | undefined;
  statusCode: number;
  response: Omit<IntentResponse, 'audit'>;
}

/**
 * `POST /intent` (contract §4.6): load the tenant's controls and policy, run the gates, sign a
 * token for an approval before any transaction opens, then commit the intent, its audit entries
 * and the idempotency record together. Evaluation or signing failing is 500 AUTHORITY_LOOP_FAILED;
 * the database failing is 503; neither ever carries a token.
 */
export function createDecisionLoop(deps: {
  storage: Storage;
  clock: Clock;
  tenants: TenantService;
  controls: TenantControls;
  policies: PolicyStore;
  signingKeys: SigningKeyService;
  idempotency: Idempotency;
  connectors: ConnectorService;
  /** AUTHORITY_APPROVAL_URL without a trailing slash. */
  approvalUrl: string;
}) {
  const { storage, clock } = deps;

  /**
   * Writes a batch of decisions in one transaction: the intents, each tenant's audit entries
   * appended under one head lock, and the idempotency records, so that concurrent decisions share a
   * commit. The response of each decision names its own entries and latest hash.
   */
  async function commitDecisions(
    trx: Executor,
    items: readonly PendingDecision[],
  ): Promise<IntentResponse[]> {
    const now = clock();
    await intentRepository.insert(
      trx,
      items.map((item) => item.intent),
    );
    const byTenant = new Map<string, number[]>();
    items.forEach((item, index) => {
      const indexes = byTenant.get(item.intent.tenantId);
      if (indexes) indexes.push(index);
      else byTenant.set(item.intent.tenantId, [index]);
    });
    const responses: IntentResponse[] = new Array(items.length);
    for (const [tenantId, indexes] of byTenant) {
      const appended = await chainRepository.append(
        trx,
        tenantId,
        indexes.flatMap((index) => (items[index] as PendingDecision).events),
        now,
      );
      await enqueueEvents(
        trx,
        tenantId,
        indexes.map((index) => (items[index] as PendingDecision).webhook),
      );
      let offset = 0;
      for (const index of indexes) {
        const item = items[index] as PendingDecision;
        offset += item.events.length;
        const latest = appended.entries[offset - 1];
        if (!latest) throw new Error('audit append returned fewer entries than it was given');
        responses[index] = {
          ...item.response,
          audit: { entriesWritten: item.events.length, latestHash: latest.entryHash },
        };
      }
    }
    for (const [index, item] of items.entries()) {
      if (item.idempotencyKey === undefined) continue;
      await deps.idempotency.complete(
        trx,
        item.intent.tenantId,
        INTENT_IDEMPOTENCY_SCOPE,
        item.idempotencyKey,
        {
          statusCode: item.statusCode,
          body: responses[index],
        },
      );
    }
    return responses;
  }

  const commitListeners: Array<(batchSize: number, seconds: number) => void> = [];
  const commits = createGroupCommit({
    storage,
    maxBatch: MAX_BATCH,
    apply: commitDecisions,
    onCommit: (batchSize, seconds) => {
      for (const listener of commitListeners) listener(batchSize, seconds);
    },
  });

  async function evaluate(
    tenantId: string,
    request: IntentRequest,
    explain: boolean,
    now: number,
  ): Promise<{ evaluation: IntentEvaluation; thresholds: ThresholdSettings }> {
    const context = await loadGateContext(deps, tenantId, request.actor.id, now);
    try {
      return { evaluation: evaluateIntent({ ...context, request, explain }), thresholds: context.thresholds };
    } catch (error) {
      throw loopFailed(error);
    }
  }

  async function decideAndRecord(
    principal: Principal,
    request: IntentRequest,
    explain: boolean,
    idempotencyKey: string | undefined,
  ): Promise<SubmitResult> {
    const tenantId = principal.tenantId;
    const now = clock();
    const { evaluation, thresholds } = await evaluate(tenantId, request, explain, now);
    const intentId = uuidv7();
    const correlationId = uuidv7();

    let minted: MintedToken | undefined;
    let plan: ExecutionPlan | undefined;
    if (evaluation.outcome === 'APPROVED') {
      try {
        plan = await planExecution(deps.connectors, tenantId, request.targetSystem);
        minted = await mintDecisionToken(
          await deps.signingKeys.signer(tenantId),
          {
            intentId,
            tenantId,
            ...plan.binding,
            targetSystem: request.targetSystem,
            proposedAction: request.proposedAction,
            ttlSeconds: thresholds.tokenTtlSeconds,
          },
          now,
        );
      } catch (error) {
        throw loopFailed(error);
      }
    }

    const escalationId = evaluation.outcome === 'ESCALATED' ? uuidv7() : undefined;
    const approval: ApprovalState | undefined =
      evaluation.outcome === 'ESCALATED'
        ? {
            queue: evaluation.queue,
            status: 'pending',
            requiredApprovals: evaluation.queue === 'catastrophic-review' ? 2 : 1,
            expiresAt: new Date(now + thresholds.approvalTtlSeconds * 1000).toISOString(),
          }
        : undefined;
    const { primary, alternates } = evaluation.interpretation;
    const authorityDecision: Record<string, unknown> = {
      decision: evaluation.outcome,
      riskScore: evaluation.riskScore,
      policyCompliant: evaluation.policyCompliant,
      rationale: evaluation.rationale,
      gateTrace: evaluation.gateTrace,
      matchedRules: evaluation.matchedRules,
      decidingRule: evaluation.decidingRule,
      intent: {
        oiCode: primary.oiCode,
        operationType: primary.operationType,
        confidence: primary.confidence,
      },
      ...(evaluation.explanation ? { explanation: evaluation.explanation } : {}),
    };
    const execution = plan ? initialExecution(plan) : { attempted: false, status: 'skipped' };

    const base = { correlationId, intentId, actorId: request.actor.id, actorType: request.actor.type };
    const events: AuditEvent[] = [
      {
        ...base,
        eventType: 'intent.received',
        payload: {
          targetSystem: request.targetSystem,
          proposedAction: request.proposedAction,
          principalId: principal.id,
          argsHash: request.args === undefined ? null : sha256Hex(canonicalJson(request.args)),
          argsPreview: argsPreview(request.args),
          riskContext: request.riskContext,
          ...(idempotencyKey ? { idempotencyKey } : {}),
        },
      },
      {
        ...base,
        eventType: 'intent.decided',
        payload: {
          targetSystem: request.targetSystem,
          decision: evaluation.outcome,
          effect: evaluation.effect,
          riskScore: evaluation.riskScore,
          matchedRules: evaluation.matchedRules,
          decidingRule: evaluation.decidingRule,
          gateTrace: evaluation.gateTrace,
          hypotheses: { primary, alternates },
          ...(evaluation.floor.matched
            ? { floor: { pattern: evaluation.floor.pattern, location: evaluation.floor.location } }
            : {}),
          ...(approval ? { escalationId, approval } : {}),
        },
      },
    ];
    if (minted) events.push(tokenIssuedEvent(base, request.targetSystem, minted));

    const statusCode = STATUS_CODE[evaluation.outcome];
    const body = await commits.submit({
      intent: {
        tenantId,
        id: intentId,
        correlationId,
        principalId: principal.id,
        actorId: request.actor.id,
        targetSystem: request.targetSystem,
        status: evaluation.outcome,
        decision: evaluation.outcome,
        reviewState: evaluation.outcome === 'ESCALATED' ? 'PENDING' : 'DECIDED',
        request,
        authorityDecision,
        hypotheses: [primary, ...alternates],
        execution,
        token: minted?.token ?? null,
        escalationId: escalationId ?? null,
        approval: approval ?? null,
        createdAt: now,
        updatedAt: now,
      },
      events,
      webhook: {
        event: DECISION_EVENT[evaluation.outcome],
        intentId,
        decision: evaluation.outcome,
        riskScore: evaluation.riskScore,
        occurredAt: now,
      },
      idempotencyKey,
      statusCode,
      response: {
        intentId,
        correlationId,
        authorityDecision,
        execution,
        ...(minted ? { authorityDecisionToken: minted.token } : {}),
        ...(escalationId && approval
          ? { escalationId, approvalUrl: approvalUrlOf(deps.approvalUrl, escalationId), approval }
          : {}),
      },
    });
    if (!plan?.executes || !minted) return { statusCode, body };
    const executed = await executeApproved(deps.connectors, plan, tenantId, request, {
      ...body,
      authorityDecisionToken: minted.token,
    });
    if (idempotencyKey !== undefined) {
      // A replay answers what the caller saw, outcome of the execution included.
      await deps.idempotency.complete(storage.db, tenantId, INTENT_IDEMPOTENCY_SCOPE, idempotencyKey, {
        statusCode,
        body: executed,
      });
    }
    return { statusCode, body: executed };
  }

  return {
    /** Observes every commit of decisions (intents, audit entries, outbox): batch size and duration. */
    onCommit(listener: (batchSize: number, seconds: number) => void): void {
      commitListeners.push(listener);
    },

    async submit(
      principal: Principal,
      request: IntentRequest,
      options: { explain: boolean; idempotencyKey?: string | undefined },
    ): Promise<SubmitResult> {
      if (!isInterpretable(request.proposedAction)) {
        throw new AppError('INVALID_INTENT', 'proposedAction must contain a letter or a digit');
      }
      const key = options.idempotencyKey;
      if (key !== undefined) {
        const claim = await deps.idempotency.claim(
          principal.tenantId,
          INTENT_IDEMPOTENCY_SCOPE,
          key,
          requestHash(request),
        );
        if (claim.kind === 'replay')
          return { statusCode: claim.statusCode, body: claim.body as IntentResponse };
      }
      try {
        return await decideAndRecord(principal, request, options.explain, key);
      } catch (error) {
        if (key !== undefined)
          await deps.idempotency.release(principal.tenantId, INTENT_IDEMPOTENCY_SCOPE, key).catch(() => {});
        // Anything that breaks the loop is a failed authorization, never an allow.
        throw failClosed(error);
      }
    },
  };
}

export type DecisionLoop = ReturnType<typeof createDecisionLoop>;
