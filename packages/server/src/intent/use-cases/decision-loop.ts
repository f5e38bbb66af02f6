import { v7 as uuidv7 } from 'uuid';
import { chainRepository } from '../../chain/chain-repository.js';
import type { ConnectorService } from '../../connectors/connector-service.js';
import { AppError } from '../../errors/app-error.js';
import { failClosed, loopFailed } from '../../errors/fail-closed.js';
import type { Clock } from '../../foundation/clock.js';
import type { ClaimedKey, Idempotency, StoredResponse } from '../../idempotency/idempotency.js';
import { requestHash } from '../../idempotency/idempotency.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import { createGroupCommit } from '../../storage/group-commit.js';
import {
  AuthorityWithdrawn,
  authorityWithdrawn,
  decideUntilCurrent,
  type TenantControls,
} from '../../tenancy/tenant-controls.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import { type MintedToken, mintDecisionToken } from '../../tokens/decision-token.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import { enqueueEvents } from '../../webhooks/outbox.js';
import { evaluateIntent, type IntentEvaluation } from '../domain/evaluate-intent.js';
import type { ApprovalState } from '../domain/intent-record.js';
import type { IntentRequest } from '../domain/intent-request.js';
import { isInterpretable } from '../domain/interpret.js';
import type { ThresholdSettings } from '../domain/thresholds.js';
import { budgetRepository } from '../repositories/budget-repository.js';
import { intentRepository } from '../repositories/intent-repository.js';
import { type PendingDecision, pendingDecision } from './decision-record.js';
import { type ExecutionPlan, executeApproved, executionPending, planExecution } from './execution-plan.js';
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

/** Decisions per group commit: 64 intents of 18 columns stay far below SQLite's parameter limit. */
const MAX_BATCH = 64;

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
    pending: readonly PendingDecision[],
  ): Promise<SubmitResult[]> {
    const now = clock();
    const items: PendingDecision[] = [];
    for (const item of pending) items.push(await settleBudgets(trx, item));
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
      await refuseWithdrawnAuthority(
        trx,
        tenantId,
        indexes.map((index) => items[index] as PendingDecision),
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
    return responses.map((body, index) => ({
      statusCode: (items[index] as PendingDecision).statusCode,
      body,
    }));
  }

  /**
   * The kill switch and the actor list as the approvals of a tenant commit (after the tenant's
   * chain append, under its head lock): when the switch went on or an approved actor was blocked
   * after the decision read them, the batch rolls back and those decisions are made again
   * (`decideAndRecord`). One read per tenant of a batch with approvals, not per decision.
   */
  async function refuseWithdrawnAuthority(
    trx: Executor,
    tenantId: string,
    decisions: readonly PendingDecision[],
  ): Promise<void> {
    const actors = new Set<string>();
    for (const decision of decisions) {
      if (decision.response.authorityDecisionToken !== undefined) actors.add(decision.intent.actorId);
    }
    if (actors.size > 0 && (await authorityWithdrawn(trx, tenantId, [...actors]))) {
      throw new AuthorityWithdrawn(tenantId);
    }
  }

  /**
   * Takes the budget units an approval claims, each re-checked against the count committed by
   * concurrent decisions (§16). When one is used up, the units taken so far are given back and the
   * decision becomes the budget's effect: its signed token is discarded, never returned.
   */
  async function settleBudgets(trx: Executor, item: PendingDecision): Promise<PendingDecision> {
    const { tenantId, actorId } = item.intent;
    const taken: Array<{ budgetId: string; windowStart: number }> = [];
    for (const claim of item.budgetClaims) {
      const key = { tenantId, actorId, budgetId: claim.budgetId, windowStart: claim.windowStart };
      const result = await budgetRepository.take(trx, key, claim.maxApproved);
      if (result.taken) {
        taken.push(key);
        continue;
      }
      for (const unit of taken) await budgetRepository.giveBack(trx, { tenantId, actorId, ...unit });
      return item.exceeded(claim, result.approved);
    }
    return item;
  }

  const commitListeners: Array<(batchSize: number, seconds: number) => void> = [];
  const commits = createGroupCommit({
    storage,
    maxBatch: MAX_BATCH,
    apply: commitDecisions,
    // Budget counters, then chain heads, locked by tenant then actor (NUL sorts below any id).
    lockKey: (item) => `${item.intent.tenantId}\u0000${item.intent.actorId}`,
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

  /**
   * Decides and records, and decides again when the kill switch went on or the actor was blocked
   * after the decision read them and before an approval committed (the group commit refuses to
   * issue its token): the next attempt reads the change and denies.
   */
  async function decideAndRecord(
    principal: Principal,
    request: IntentRequest,
    explain: boolean,
    idempotencyKey: ClaimedKey | undefined,
  ): Promise<SubmitResult> {
    return decideUntilCurrent(() => decideAndRecordOnce(principal, request, explain, idempotencyKey));
  }

  async function decideAndRecordOnce(
    principal: Principal,
    request: IntentRequest,
    explain: boolean,
    idempotencyKey: ClaimedKey | undefined,
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

    const committed = await commits.submit(
      pendingDecision({
        principal,
        request,
        evaluation,
        thresholds,
        now,
        intentId,
        correlationId,
        minted,
        plan,
        idempotencyKey,
        approvalUrlBase: deps.approvalUrl,
      }),
    );
    const { statusCode, body } = committed;
    // A token discarded in the commit (a budget used up meanwhile) is never used nor returned.
    if (!plan?.executes || !minted || body.authorityDecisionToken === undefined) return committed;
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
    /**
     * A request refused before any decision (400: its body failed validation, or INVALID_INTENT)
     * under an `Idempotency-Key`: a final outcome, stored like a decision (contract §4.6 and §9),
     * so the same key and body replay it and another body under the key is 409. A body with no
     * canonical form cannot be compared later: its refusal is answered without being stored.
     */
    async recordRefusal(
      principal: Principal,
      body: unknown,
      idempotencyKey: string,
      refusal: StoredResponse,
    ): Promise<StoredResponse> {
      let hash: string;
      try {
        hash = requestHash({ principalId: principal.id, request: body });
      } catch {
        return refusal;
      }
      const { tenantId } = principal;
      const claim = await deps.idempotency.claim(tenantId, INTENT_IDEMPOTENCY_SCOPE, idempotencyKey, hash);
      if (claim.kind === 'replay') return { statusCode: claim.statusCode, body: claim.body };
      try {
        await deps.idempotency.complete(
          storage.db,
          tenantId,
          INTENT_IDEMPOTENCY_SCOPE,
          claim.claimed,
          refusal,
        );
      } catch (error) {
        await deps.idempotency.release(tenantId, INTENT_IDEMPOTENCY_SCOPE, claim.claimed).catch(() => {});
        throw failClosed(error);
      }
      return refusal;
    },

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
      let claimed: ClaimedKey | undefined;
      if (options.idempotencyKey !== undefined) {
        const claim = await deps.idempotency.claim(
          principal.tenantId,
          INTENT_IDEMPOTENCY_SCOPE,
          options.idempotencyKey,
          requestHash({ principalId: principal.id, request }),
          executionPending,
        );
        if (claim.kind === 'replay')
          return { statusCode: claim.statusCode, body: claim.body as IntentResponse };
        claimed = claim.claimed;
      }
      try {
        return await decideAndRecord(principal, request, options.explain, claimed);
      } catch (error) {
        if (claimed !== undefined)
          await deps.idempotency
            .release(principal.tenantId, INTENT_IDEMPOTENCY_SCOPE, claimed)
            .catch(() => {});
        // Anything that breaks the loop is a failed authorization, never an allow.
        throw failClosed(error);
      }
    },
  };
}

export type DecisionLoop = ReturnType<typeof createDecisionLoop>;
