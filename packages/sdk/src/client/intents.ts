import { setTimeout as sleep } from 'node:timers/promises';
import type { EvidenceBundle, Receipt } from '../wire/audit.js';
import type { IntentStatus } from '../wire/constants.js';
import type { EvaluateRequest, EvaluateResponse, PermissionTokenVerification } from '../wire/evaluate.js';
import type {
  IntentList,
  IntentListQuery,
  IntentRequest,
  IntentResponse,
  IntentView,
} from '../wire/intent.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import { AuthorityApiError } from './api-error.js';
import { nextCursorOf, PagedList } from './paged-list.js';
import { type IdempotentCallOptions, newIdempotencyKey, Resource } from './resource.js';
import { aborted, type CallOptions, errorFromAnswer } from './transport.js';

/** An IntentRequest without `tenantId`: the client fills in its own tenant. */
export type IntentInput = Omit<IntentRequest, 'tenantId'> & { tenantId?: string };

/** Options of {@link IntentsResource.submit}. */
export interface SubmitOptions extends IdempotentCallOptions {
  /** Adds `authorityDecision.explanation`: why each other rule did not match. */
  explain?: boolean;
}

/**
 * The outcome of a submitted intent. A DENIED decision is a result like the others; a `token` is
 * present only on APPROVED, taken from a 200 APPROVED answer and nowhere else.
 */
export type IntentSubmission =
  | {
      outcome: 'APPROVED';
      intentId: string;
      token: string;
      escalationId?: undefined;
      response: IntentResponse;
    }
  | {
      outcome: 'ESCALATED';
      intentId: string;
      token?: undefined;
      escalationId: string;
      response: IntentResponse;
    }
  | {
      outcome: 'DENIED';
      intentId: string;
      token?: undefined;
      escalationId?: undefined;
      response: IntentResponse;
    };

/** The submission and the `Idempotency-Key` it was sent with (reuse it to ask again). */
export type SubmittedIntent = IntentSubmission & { idempotencyKey: string };

/** The token of an approved escalation with the answer that carried it. */
export interface FetchedToken {
  token: string;
  response: IntentResponse;
  idempotencyKey: string;
}

/** Options of {@link IntentsResource.waitForApproval}. */
export interface WaitOptions {
  /**
   * How long to wait in total, ms; `ESCALATED` is returned when it runs out, also while a read of
   * the intent is still waiting for the service.
   */
  timeoutMs: number;
  /** Time between two reads of the intent, ms (default 1,000). */
  pollIntervalMs?: number;
  /** Stops waiting: throws `ABORTED`, or `TIMEOUT` for a signal of `AbortSignal.timeout`. */
  signal?: AbortSignal;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The decision of an intent answer, or `undefined` when the body is not one. */
function decisionOf(body: unknown): unknown {
  return isRecord(body) && isRecord(body.authorityDecision) ? body.authorityDecision.decision : undefined;
}

/** Intents: submit, read, list, wait for a review, fetch the token, evidence, receipts, evaluation. */
export class IntentsResource extends Resource {
  /**
   * `POST /intent`. APPROVED (200), ESCALATED (202) and DENIED (403 with the decision body) are
   * results; anything else throws {@link AuthorityApiError}. Every attempt carries the same
   * `Idempotency-Key` (the given one, else a fresh one), so retries never make a second decision.
   *
   * @example
   * ```ts
   * const result = await client.intents.submit({
   *   actor: { id: 'deploy-bot', type: 'agent' },
   *   targetSystem: 'acme/payments',
   *   proposedAction: 'merge pull request 42',
   *   riskContext: { baseRiskScore: 20 },
   * });
   * if (result.outcome === 'APPROVED') await execute(result.token);
   * ```
   */
  async submit(request: IntentInput, options: SubmitOptions = {}): Promise<SubmittedIntent> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    const answer = await this.transport.send({
      route: R.submitIntent,
      query: options.explain === undefined ? undefined : { explain: options.explain },
      body: { ...request, tenantId: request.tenantId ?? this.tenantId },
      idempotencyKey,
      retry: 'safe',
      options,
    });
    const body = answer.body as IntentResponse;
    const decision = decisionOf(answer.body);
    const base = { intentId: body?.intentId, response: body, idempotencyKey };
    if (answer.status === 200) {
      if (decision !== 'APPROVED' || typeof body.authorityDecisionToken !== 'string') {
        throw errorFromAnswer(answer, 'A 200 answer without an APPROVED decision and its token');
      }
      return { ...base, outcome: 'APPROVED', token: body.authorityDecisionToken };
    }
    if (answer.status === 202) {
      if (decision !== 'ESCALATED' || typeof body.escalationId !== 'string') {
        throw errorFromAnswer(answer, 'A 202 answer without an ESCALATED decision and its escalation');
      }
      return { ...base, outcome: 'ESCALATED', escalationId: body.escalationId };
    }
    if (answer.status === 403 && decision === 'DENIED') return { ...base, outcome: 'DENIED' };
    throw errorFromAnswer(answer);
  }

  /**
   * `GET /intent/:id`: the intent with its decision, approval, execution and audit entries.
   *
   * @example
   * ```ts
   * const intent = await client.intents.get(intentId);
   * console.log(intent.status, intent.authorityDecision.decidingRule.id);
   * ```
   */
  get(intentId: string, options?: CallOptions): Promise<IntentView> {
    return this.expect({ route: R.getIntent, params: { id: intentId }, retry: 'safe', options });
  }

  /**
   * `GET /intents`, newest first: await it for a page, iterate it for every intent.
   *
   * @example
   * ```ts
   * for await (const intent of client.intents.list({ status: 'ESCALATED' })) console.log(intent.intentId);
   * ```
   */
  list(query: IntentListQuery = {}, options?: CallOptions): PagedList<IntentView, IntentList> {
    return new PagedList(
      (cursor) =>
        this.expect<IntentList>({
          route: R.listIntents,
          query: { ...query, cursor: cursor ?? query.cursor },
          retry: 'safe',
          options,
        }),
      (page) => page.intents,
      nextCursorOf,
    );
  }

  /**
   * Polls `GET /intent/:id` until the intent leaves `ESCALATED` (`APPROVED_AFTER_REVIEW`,
   * `DENIED_AFTER_REVIEW`, `EXPIRED`, …) and returns its status, or returns `ESCALATED` when
   * `timeoutMs` runs out. A read that fails with a retryable error after all its retries (the
   * service unavailable for a while) does not end the wait: polling goes on until the deadline.
   * Any other error (404, 401, 403, `ABORTED`) is thrown.
   *
   * @example
   * ```ts
   * const status = await client.intents.waitForApproval(intentId, { timeoutMs: 10 * 60_000 });
   * if (status === 'APPROVED_AFTER_REVIEW') {
   *   const { token } = await client.intents.fetchToken(intentId);
   * }
   * ```
   */
  async waitForApproval(intentId: string, options: WaitOptions): Promise<IntentStatus> {
    // Called from JavaScript the options may be missing: a TypeError that says so, not a destructuring one.
    const timeoutMs = (options as WaitOptions | undefined)?.timeoutMs;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new TypeError('waitForApproval: options.timeoutMs (milliseconds, >= 0) is required');
    const { signal } = options;
    const interval = options.pollIntervalMs ?? 1_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Each read, its retries included, ends at the deadline: a service that does not answer
      // leaves the intent ESCALATED as far as the caller can know, when the time is up.
      const timeUp = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
      let status: IntentStatus = 'ESCALATED';
      try {
        ({ status } = await this.get(intentId, {
          signal: signal ? AbortSignal.any([signal, timeUp]) : timeUp,
        }));
      } catch (error) {
        if (timeUp.aborted && !signal?.aborted) return 'ESCALATED';
        // A service that is down for a while (its read failed after every retry) is waited out
        // like a pending escalation, until the deadline; a refusal (404, 401, 403) ends the wait.
        if (!(error instanceof AuthorityApiError && error.retryable) || signal?.aborted) throw error;
      }
      if (status !== 'ESCALATED') return status;
      const left = deadline - Date.now();
      if (left <= 0) return status;
      try {
        await sleep(Math.min(interval, left), undefined, signal ? { signal } : undefined);
      } catch (error) {
        if (signal?.aborted) throw aborted(signal);
        throw error;
      }
    }
  }

  /**
   * `POST /intent/:id/token`: the one token of an approved escalation, for the key that submitted
   * the intent. It always sends an `Idempotency-Key` (reuse `idempotencyKey` to ask again after a
   * lost reply: the service replays the token); the token is taken only from a 200 APPROVED answer.
   *
   * @example
   * ```ts
   * const { token } = await client.intents.fetchToken(intentId);
   * ```
   */
  async fetchToken(intentId: string, options: IdempotentCallOptions = {}): Promise<FetchedToken> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    const answer = await this.transport.send({
      route: R.fetchIntentToken,
      params: { id: intentId },
      idempotencyKey,
      retry: 'safe',
      options,
    });
    if (answer.status !== 200) throw errorFromAnswer(answer);
    const body = answer.body as IntentResponse;
    if (decisionOf(body) !== 'APPROVED' || typeof body.authorityDecisionToken !== 'string') {
      throw errorFromAnswer(answer, 'A 200 answer without an APPROVED decision and its token');
    }
    return { token: body.authorityDecisionToken, response: body, idempotencyKey };
  }

  /**
   * `GET /intent/:id/evidence-bundle`: the intent's entries, hashed and signed with the tenant's evidence secret.
   *
   * @example
   * ```ts
   * const bundle = await client.intents.evidenceBundle(intentId);
   * ```
   */
  evidenceBundle(intentId: string, options?: CallOptions): Promise<EvidenceBundle> {
    return this.expect({ route: R.getEvidenceBundle, params: { id: intentId }, retry: 'safe', options });
  }

  /**
   * `GET /intent/:id/receipt`: verify it offline with `verifyReceipt`. While the intent's token
   * can still be consumed, only the principal that submitted the intent gets it; anyone else gets
   * 409 `CONFLICT` (`details.reason: "token_live"`, `details.availableAt`).
   *
   * @example
   * ```ts
   * const receipt = await client.intents.receipt(intentId);
   * const result = await verifyReceipt(receipt, { jwks });
   * ```
   */
  receipt(intentId: string, options?: CallOptions): Promise<Receipt> {
    return this.expect({ route: R.getReceipt, params: { id: intentId }, retry: 'safe', options });
  }

  /**
   * `POST /authority/evaluate`: what the policy would decide, with a permission token; it decides
   * nothing, mints no decision token and executes nothing.
   *
   * @example
   * ```ts
   * const { decision, decidingRule, explanation } = await client.intents.evaluate(request);
   * ```
   */
  evaluate(request: EvaluateRequest, options?: CallOptions): Promise<EvaluateResponse> {
    return this.expect({ route: R.evaluateIntent, body: request, retry: 'safe', options });
  }

  /**
   * `POST /authority/permission-tokens/verify`: whether a permission token is genuine, of this tenant and unexpired.
   *
   * @example
   * ```ts
   * const { valid, reason } = await client.intents.verifyPermissionToken(evaluation.permissionToken);
   * ```
   */
  verifyPermissionToken(token: unknown, options?: CallOptions): Promise<PermissionTokenVerification> {
    return this.expect({ route: R.verifyPermissionToken, body: { token }, retry: 'safe', options });
  }
}
