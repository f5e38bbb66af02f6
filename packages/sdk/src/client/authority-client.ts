import type {
  ApprovalList,
  ApprovalListQuery,
  ApprovalRequest,
  ApprovalView,
  EscalationView,
} from '../wire/approvals.js';
import type { IntentStatus } from '../wire/constants.js';
import type { IntentView } from '../wire/intent.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import type { Health, Readiness } from '../wire/tenant.js';
import type { TokenConsumeRequest, TokenConsumeResult } from '../wire/tokens.js';
import { ApprovalsResource, TokensResource } from './approvals.js';
import { AuditResource } from './audit.js';
import { type BackoffSettings, DEFAULT_BACKOFF } from './backoff.js';
import { BudgetsResource } from './budgets.js';
import { ConnectorsResource } from './connectors.js';
import {
  type FetchedToken,
  type IntentInput,
  IntentsResource,
  type SubmitOptions,
  type SubmittedIntent,
  type WaitOptions,
} from './intents.js';
import { KeysResource } from './keys.js';
import type { PagedList } from './paged-list.js';
import { PhysicalResource } from './physical.js';
import { PoliciesResource, TenantResource, ThresholdsResource } from './policies.js';
import { expectedBody, type IdempotentCallOptions } from './resource.js';
import { type Call, type CallOptions, Transport } from './transport.js';
import { WebhooksResource } from './webhooks.js';

/** Options of {@link AuthorityClient}. */
export interface AuthorityClientOptions {
  /** The service, e.g. `https://authority.example.com` (a path prefix and a trailing `/v1` are fine). */
  baseUrl: string;
  /** The tenant of the key; sent as `x-tenant-id` and filled into requests that name it. */
  tenantId: string;
  /** An API key (`service_live_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Bound of each attempt of a call, ms (default 10,000). */
  timeoutMs?: number;
  /** Attempts per call, the first included (default 4, at least 1). */
  maxAttempts?: number;
  /** The Fetch API to use (default the global `fetch` of Node 20). */
  fetch?: typeof fetch;
  /** Spacing of retries (defaults: 250 ms first ceiling, 8 s cap, `retry-after` waited up to 60 s). */
  backoff?: Partial<BackoffSettings>;
}

/**
 * The TypeScript client of Authority Runtime: every route of both surfaces, typed by the wire
 * contract, grouped by resource, with the retry policy of contract §13.1. Decisions (APPROVED,
 * ESCALATED, DENIED; ALLOW, ESCALATE, DENY) are results; everything else throws
 * {@link AuthorityApiError}.
 *
 * @example
 * ```ts
 * import { AuthorityClient, verifyAuthorityToken } from '@authority-runtime/sdk';
 *
 * const client = new AuthorityClient({
 *   baseUrl: 'https://authority.example.com',
 *   tenantId: 'acme',
 *   apiKey: process.env.AUTHORITY_API_KEY ?? '',
 * });
 * const result = await client.submitIntent({
 *   actor: { id: 'deploy-bot', type: 'agent' },
 *   targetSystem: 'acme/payments',
 *   proposedAction: 'list open pull requests',
 *   riskContext: { baseRiskScore: 10 },
 * });
 * if (result.outcome === 'APPROVED') await executor.run(result.token);
 * ```
 */
export class AuthorityClient {
  /** The tenant every call acts for. */
  readonly tenantId: string;
  readonly intents: IntentsResource;
  readonly approvals: ApprovalsResource;
  readonly tokens: TokensResource;
  readonly thresholds: ThresholdsResource;
  readonly budgets: BudgetsResource;
  readonly policies: PoliciesResource;
  readonly audit: AuditResource;
  readonly keys: KeysResource;
  readonly webhooks: WebhooksResource;
  readonly connectors: ConnectorsResource;
  /** The tenant and its controls: kill switch, floor, actor list, IP allowlist. */
  readonly tenant: TenantResource;
  readonly physical: PhysicalResource;
  readonly #transport: Transport;

  /**
   * @param options The service, the tenant, the key, and the retry settings; see {@link AuthorityClientOptions}.
   */
  constructor(options: AuthorityClientOptions) {
    for (const name of ['baseUrl', 'tenantId', 'apiKey'] as const) {
      if (typeof options?.[name] !== 'string' || options[name] === '') {
        throw new TypeError(`AuthorityClient: ${name} is required`);
      }
    }
    const maxAttempts = options.maxAttempts ?? 4;
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw new TypeError('AuthorityClient: maxAttempts must be ≥ 1');
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new TypeError('AuthorityClient: timeoutMs must be > 0');
    this.tenantId = options.tenantId;
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      tenantId: options.tenantId,
      apiKey: options.apiKey,
      timeoutMs,
      maxAttempts,
      fetch: options.fetch ?? globalThis.fetch,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      random: Math.random,
    });
    const args = [this.#transport, options.tenantId] as const;
    this.intents = new IntentsResource(...args);
    this.approvals = new ApprovalsResource(...args);
    this.tokens = new TokensResource(...args);
    this.thresholds = new ThresholdsResource(...args);
    this.budgets = new BudgetsResource(...args);
    this.policies = new PoliciesResource(...args);
    this.audit = new AuditResource(...args);
    this.keys = new KeysResource(...args);
    this.webhooks = new WebhooksResource(...args);
    this.connectors = new ConnectorsResource(...args);
    this.tenant = new TenantResource(...args);
    this.physical = new PhysicalResource(...args);
  }

  /**
   * Submits an intent (`POST /intent`; the client fills in `tenantId`). APPROVED (with the token),
   * ESCALATED (with the escalation id) and DENIED are results; failures throw
   * {@link AuthorityApiError}, `AUTHORITY_LOOP_FAILED` included, and never yield a token. One
   * `Idempotency-Key` (given, or generated) is sent with every retry.
   *
   * @example
   * ```ts
   * const result = await client.submitIntent(
   *   { actor: { id: 'deploy-bot', type: 'agent' }, targetSystem: 'acme/payments', proposedAction: 'merge pull request 42', riskContext: { baseRiskScore: 30 } },
   *   { idempotencyKey: 'deploy-42' },
   * );
   * switch (result.outcome) {
   *   case 'APPROVED': await executor.run(result.token); break;
   *   case 'ESCALATED': console.log('waiting for review of', result.escalationId); break;
   *   case 'DENIED': console.log(result.response.authorityDecision.rationale); break;
   * }
   * ```
   */
  submitIntent(request: IntentInput, options?: SubmitOptions): Promise<SubmittedIntent> {
    return this.intents.submit(request, options);
  }

  /**
   * Reads an intent (`GET /intent/:id`).
   *
   * @example
   * ```ts
   * const { status, tokenIssued } = await client.getIntent(intentId);
   * ```
   */
  getIntent(intentId: string, options?: CallOptions): Promise<IntentView> {
    return this.intents.get(intentId, options);
  }

  /**
   * Polls the intent until it leaves `ESCALATED` and returns its status; `ESCALATED` when
   * `timeoutMs` runs out.
   *
   * @example
   * ```ts
   * const status = await client.waitForApproval(result.intentId, { timeoutMs: 15 * 60_000, signal });
   * ```
   */
  waitForApproval(intentId: string, options: WaitOptions): Promise<IntentStatus> {
    return this.intents.waitForApproval(intentId, options);
  }

  /**
   * Obtains the token of an approved escalation (`POST /intent/:id/token`), always with an
   * `Idempotency-Key`, so a retry after a lost reply gets the same token.
   *
   * @example
   * ```ts
   * if ((await client.waitForApproval(id, { timeoutMs: 60_000 })) === 'APPROVED_AFTER_REVIEW') {
   *   const { token } = await client.fetchToken(id);
   * }
   * ```
   */
  fetchToken(intentId: string, options?: IdempotentCallOptions): Promise<FetchedToken> {
    return this.intents.fetchToken(intentId, options);
  }

  /**
   * Verifies a token in the service and consumes its nonce (`POST /authority/tokens/consume`).
   *
   * @example
   * ```ts
   * const verdict = await client.consumeToken({ token, adapterId: 'external', targetSystem: 'acme/payments' });
   * ```
   */
  consumeToken(request: TokenConsumeRequest, options?: CallOptions): Promise<TokenConsumeResult> {
    return this.tokens.consume(request, options);
  }

  /**
   * Approves or denies an escalated intent as the calling principal (`POST /authority/approval`).
   *
   * @example
   * ```ts
   * await reviewer.decideApproval({ intentId, decision: 'approve', rationale: 'Change reviewed with the on-call' });
   * ```
   */
  decideApproval(request: ApprovalRequest, options?: CallOptions): Promise<ApprovalView> {
    return this.approvals.decide(request, options);
  }

  /**
   * Lists escalations (`GET /authority/approvals`): await it for a page, iterate it for all.
   *
   * @example
   * ```ts
   * for await (const escalation of reviewer.listApprovals({ status: 'pending' })) console.log(escalation.intentId);
   * ```
   */
  listApprovals(query?: ApprovalListQuery, options?: CallOptions): PagedList<EscalationView, ApprovalList> {
    return this.approvals.list(query, options);
  }

  /**
   * Liveness (`GET /health`, public).
   *
   * @example
   * ```ts
   * const { version } = await client.health();
   * ```
   */
  async health(options?: CallOptions): Promise<Health> {
    const call: Call = { route: R.health, retry: 'safe', options };
    return expectedBody<Health>(call, await this.#transport.send(call), [200]);
  }

  /**
   * Readiness (`GET /ready`, public): `ready: false` names the failing check (the 503 is a result).
   *
   * @example
   * ```ts
   * const { ready, checks } = await client.ready();
   * ```
   */
  async ready(options?: CallOptions): Promise<Readiness> {
    // Not retried: a 503 here is the answer, not a failure.
    const call: Call = { route: R.ready, retry: 'unprocessed', options };
    return expectedBody<Readiness>(call, await this.#transport.send(call), [200, 503]);
  }
}
