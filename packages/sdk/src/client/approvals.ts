import type {
  ApprovalList,
  ApprovalListQuery,
  ApprovalRequest,
  ApprovalView,
  EscalationDetail,
  EscalationView,
} from '../wire/approvals.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import type { TokenConsumeRequest, TokenConsumeResult } from '../wire/tokens.js';
import { nextCursorOf, PagedList } from './paged-list.js';
import { Resource } from './resource.js';
import type { CallOptions } from './transport.js';

/** Human review of escalated intents (contract §4.8). */
export class ApprovalsResource extends Resource {
  /**
   * `POST /authority/approval`: approve or deny an escalation as the calling principal (never the
   * one that submitted it). Not retried once sent, so an approval is never recorded twice.
   *
   * @example
   * ```ts
   * const view = await approver.approvals.decide({
   *   intentId,
   *   decision: 'approve',
   *   rationale: 'Reviewed the diff and the rollout plan',
   * });
   * console.log(view.status, view.approvalsReceived, view.requiredApprovals);
   * ```
   */
  decide(request: ApprovalRequest, options?: CallOptions): Promise<ApprovalView> {
    return this.expect({ route: R.decideApproval, body: request, retry: 'unprocessed', options });
  }

  /**
   * `GET /authority/approvals/:escalationId`: one escalation (the id in its `approvalUrl`) with the
   * intent it holds, its decision trace, the arguments (secret-looking values redacted) and the
   * decisions recorded so far.
   *
   * @example
   * ```ts
   * const escalation = await approver.approvals.get(escalationId);
   * console.log(escalation.intent.actor.id, escalation.decidingRule?.id, escalation.intent.args);
   * console.log(`${escalation.approvalsReceived} of ${escalation.requiredApprovals}`);
   * ```
   */
  get(escalationId: string, options?: CallOptions): Promise<EscalationDetail> {
    return this.expect({ route: R.getApproval, params: { escalationId }, retry: 'safe', options });
  }

  /**
   * `GET /authority/approvals`, newest first (default `status: 'pending'`): await it for a page,
   * iterate it for every escalation.
   *
   * @example
   * ```ts
   * for await (const escalation of client.approvals.list({ queue: 'catastrophic-review' })) {
   *   console.log(escalation.intentId, escalation.proposedAction);
   * }
   * ```
   */
  list(query: ApprovalListQuery = {}, options?: CallOptions): PagedList<EscalationView, ApprovalList> {
    return new PagedList(
      (cursor) =>
        this.expect<ApprovalList>({
          route: R.listApprovals,
          query: { ...query, cursor: cursor ?? query.cursor },
          retry: 'safe',
          options,
        }),
      (page) => page.approvals,
      nextCursorOf,
    );
  }
}

/** Authority Decision Tokens as the service checks them (contract §5). */
export class TokensResource extends Resource {
  /**
   * `POST /authority/tokens/consume`: verify a token exactly as the SDK verifier does and consume
   * its nonce in the service, for adapters that share one nonce store. Always a verdict: `{valid:
   * true, claims}` once, then `{valid: false, reason: 'NONCE_ALREADY_CONSUMED'}`.
   *
   * @example
   * ```ts
   * const verdict = await client.tokens.consume({ token, adapterId: 'external', targetSystem: 'acme/payments' });
   * if (!verdict.valid) throw new Error(`refused: ${verdict.reason}`);
   * ```
   */
  consume(request: TokenConsumeRequest, options?: CallOptions): Promise<TokenConsumeResult> {
    // A repeated consume can only turn an accept into NONCE_ALREADY_CONSUMED: fail-closed, so it is retried.
    return this.expect({ route: R.consumeToken, body: request, retry: 'safe', options });
  }
}
