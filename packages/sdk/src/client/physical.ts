import type {
  BatchVerificationReport,
  Classification,
  PhysicalActor,
  PhysicalActorRegistration,
  PhysicalAllow,
  PhysicalAuditEntry,
  PhysicalDenyDetails,
  PhysicalEscalate,
  PhysicalJwks,
  PhysicalPolicyUpload,
  PhysicalPolicyUploaded,
  PhysicalPolicyView,
  Revocation,
  RevocationPage,
  RevokeResult,
  SnapshotResult,
  Ticket,
  TicketDecision,
  TicketStatus,
  Verification,
  VerificationBatchResult,
  VerificationReport,
} from '../wire/index.js';
import type { PhysicalState, PhysicalTokenRequest, StructuredGoal } from '../wire/physical-request.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import { nextCursorOf, PagedList } from './paged-list.js';
import { type IdempotentCallOptions, newIdempotencyKey, Resource } from './resource.js';
import { type CallOptions, errorFromAnswer } from './transport.js';

/** A physical DENY as a result: 422, or 423 when an audit-gap clause decided. */
export interface PhysicalDenial {
  decision: 'DENY';
  status: 422 | 423;
  /** The deciding clause, every firing clause, the safe default to fall back to. */
  details: PhysicalDenyDetails;
  message: string;
  requestId: string;
}

/** The outcome of `POST /v1/physical/authority-tokens`, with the `Idempotency-Key` it was sent with. */
export type PhysicalDecision = (PhysicalAllow | PhysicalEscalate | PhysicalDenial) & {
  idempotencyKey: string;
};

type Page<Name extends string, T> = { [K in Name]: T[] } & { nextCursor: string | null };
type PageQuery = { limit?: number; cursor?: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The physical surface (document 02, contract §9); calls go to `/v1/physical/*`. */
export class PhysicalResource extends Resource {
  /**
   * `POST /v1/physical/classify`: the open-intent code of a structured goal; no token.
   *
   * @example
   * ```ts
   * const { oiCode, safetyBit, failClosed } = await client.physical.classify(goal);
   * ```
   */
  classify(goal: StructuredGoal, options?: CallOptions): Promise<Classification> {
    return this.expect({ route: R.classifyGoal, body: { goal }, retry: 'safe', options });
  }

  /**
   * `POST /v1/physical/authority-tokens`: ALLOW (a token), ESCALATE (an operator ticket) and DENY
   * (422, or 423 for an audit gap) are results; anything else throws. Every attempt carries the
   * same `Idempotency-Key`, so retries never make a second decision.
   *
   * @example
   * ```ts
   * const decision = await client.physical.issueToken(request);
   * if (decision.decision === 'ALLOW') await robot.execute(decision.token);
   * else if (decision.decision === 'DENY') await robot.apply(decision.details.safeDefault);
   * ```
   */
  async issueToken(
    request: PhysicalTokenRequest,
    options: IdempotentCallOptions = {},
  ): Promise<PhysicalDecision> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    const answer = await this.transport.send({
      route: R.issuePhysicalToken,
      body: request,
      idempotencyKey,
      retry: 'safe',
      options,
    });
    const body = answer.body;
    if (answer.status === 200 && isRecord(body)) {
      if (body.decision === 'ALLOW' && typeof body.token === 'string') {
        return { ...(body as PhysicalAllow), idempotencyKey };
      }
      if (body.decision === 'ESCALATE' && typeof body.escalationTicketId === 'string') {
        return { ...(body as PhysicalEscalate), idempotencyKey };
      }
      throw errorFromAnswer(answer, 'A 200 answer that is neither an ALLOW with its token nor an ESCALATE');
    }
    const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
    if (
      (answer.status === 422 || answer.status === 423) &&
      error?.code === 'policy_denied' &&
      isRecord(error.details)
    ) {
      return {
        decision: 'DENY',
        status: answer.status,
        details: error.details as PhysicalDenyDetails,
        message: String(error.message),
        requestId: String(error.requestId),
        idempotencyKey,
      };
    }
    throw errorFromAnswer(answer);
  }

  /**
   * `POST /v1/physical/authority-tokens/:jti/revoke`: revoking twice answers the original `revokedAtMs`.
   *
   * @example
   * ```ts
   * await client.physical.revoke(decision.tokenJti, 'operator stop');
   * ```
   */
  revoke(jti: string, reason: string, options?: CallOptions): Promise<RevokeResult> {
    return this.expect({
      route: R.revokePhysicalToken,
      params: { jti },
      body: { reason },
      retry: 'safe',
      options,
    });
  }

  /**
   * `GET /v1/physical/revocations?since=`, oldest first: await it for a page, iterate it for every
   * revocation after `since` (pages follow on from `asOfMs` while `hasMore`).
   *
   * @example
   * ```ts
   * for await (const revocation of client.physical.revocations(lastSeenMs)) revoked.add(revocation.tokenJti);
   * ```
   */
  revocations(since = 0, options?: CallOptions): PagedList<Revocation, RevocationPage> {
    return new PagedList(
      (cursor) =>
        this.expect<RevocationPage>({
          route: R.listRevocations,
          query: { since: cursor === undefined ? since : Number(cursor) },
          retry: 'safe',
          options,
        }),
      (page) => page.revocations,
      (page) => (page.hasMore ? String(page.asOfMs) : undefined),
    );
  }

  /**
   * `POST /v1/physical/snapshots`: record attested state in the audit chain (with an `Idempotency-Key`).
   *
   * @example
   * ```ts
   * const { physicalStateRef } = await client.physical.snapshot(state);
   * ```
   */
  snapshot(physicalState: PhysicalState, options: IdempotentCallOptions = {}): Promise<SnapshotResult> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    return this.expect({
      route: R.recordSnapshot,
      body: { physicalState },
      idempotencyKey,
      retry: 'safe',
      options,
    });
  }

  /**
   * `POST /v1/physical/actors`: register or update an actor of the roster (idempotent on `actorIdentity`).
   *
   * @example
   * ```ts
   * await client.physical.registerActor({ actorIdentity: 'devid:arm-7', actorKind: 'robot' });
   * ```
   */
  registerActor(registration: PhysicalActorRegistration, options?: CallOptions): Promise<PhysicalActor> {
    return this.expect({ route: R.registerPhysicalActor, body: registration, retry: 'safe', options });
  }

  /**
   * `GET /v1/physical/actors`, most recent first: await it for a page, iterate it for every actor.
   *
   * @example
   * ```ts
   * const roster = await client.physical.actors().all();
   * ```
   */
  actors(
    query: PageQuery = {},
    options?: CallOptions,
  ): PagedList<PhysicalActor, Page<'actors', PhysicalActor>> {
    return this.#paged(R.listPhysicalActors, query, 'actors', options);
  }

  /**
   * `GET /v1/physical/approvals`: operator tickets by status (default `pending`), newest first.
   *
   * @example
   * ```ts
   * for await (const ticket of client.physical.tickets({ status: 'pending' })) console.log(ticket.approvalUrl);
   * ```
   */
  tickets(
    query: PageQuery & { status?: TicketStatus } = {},
    options?: CallOptions,
  ): PagedList<Ticket, Page<'tickets', Ticket>> {
    return this.#paged(R.listTickets, query, 'tickets', options);
  }

  /**
   * `GET /v1/physical/approvals/:ticketId`: poll one ticket.
   *
   * @example
   * ```ts
   * const { status } = await client.physical.ticket(decision.escalationTicketId);
   * ```
   */
  ticket(ticketId: string, options?: CallOptions): Promise<Ticket> {
    return this.expect({ route: R.getTicket, params: { ticketId }, retry: 'safe', options });
  }

  /**
   * `POST /v1/physical/approvals/:ticketId/decide`: approve or reject a pending ticket as the calling principal.
   *
   * @example
   * ```ts
   * await operator.physical.decideTicket(ticketId, { decision: 'approved', operator: 'Dana (shift lead)' });
   * ```
   */
  decideTicket(ticketId: string, decision: TicketDecision, options?: CallOptions): Promise<Ticket> {
    const params = { ticketId };
    return this.expect({ route: R.decideTicket, params, body: decision, retry: 'unprocessed', options });
  }

  /**
   * `GET /v1/physical/audit`: every physical decision, newest first.
   *
   * @example
   * ```ts
   * for await (const entry of client.physical.audit({ actorIdentity: 'devid:arm-7' })) console.log(entry.decision);
   * ```
   */
  audit(
    query: PageQuery & { oiCode?: string; actorIdentity?: string } = {},
    options?: CallOptions,
  ): PagedList<PhysicalAuditEntry, Page<'entries', PhysicalAuditEntry>> {
    return this.#paged(R.listPhysicalAudit, query, 'entries', options);
  }

  /**
   * `GET /v1/physical/audit/:jti`: the audit entry of an issued token, with its verification reports.
   *
   * @example
   * ```ts
   * const entry = await client.physical.auditEntry(decision.tokenJti);
   * ```
   */
  auditEntry(jti: string, options?: CallOptions): Promise<PhysicalAuditEntry> {
    return this.expect({ route: R.getPhysicalAudit, params: { jti }, retry: 'safe', options });
  }

  /**
   * `POST /v1/physical/audit/:jti/verifications`: an edge verifier's report about one token.
   *
   * @example
   * ```ts
   * await client.physical.report(jti, { edgeNodeId: 'cell-4', result: 'accepted', atMs: Date.now() });
   * ```
   */
  report(
    jti: string,
    report: VerificationReport,
    options?: CallOptions,
  ): Promise<{ tokenJti: string; verification: Verification }> {
    const params = { jti };
    return this.expect({ route: R.reportVerification, params, body: report, retry: 'unprocessed', options });
  }

  /**
   * `POST /v1/physical/verifications`: reports about several tokens (at most 500); refused ones are listed by index.
   *
   * @example
   * ```ts
   * const { accepted, rejected } = await client.physical.reportBatch(reports);
   * ```
   */
  reportBatch(
    reports: readonly BatchVerificationReport[],
    options?: CallOptions,
  ): Promise<VerificationBatchResult> {
    return this.expect({ route: R.reportVerifications, body: { reports }, retry: 'unprocessed', options });
  }

  /**
   * `GET /v1/physical/policy`: the active clause policy (the default is version 0).
   *
   * @example
   * ```ts
   * const { version, active } = await client.physical.policy();
   * ```
   */
  policy(options?: CallOptions): Promise<PhysicalPolicyView> {
    return this.expect({ route: R.getPhysicalPolicy, retry: 'safe', options });
  }

  /**
   * `POST /v1/physical/policy`: upload the next version (`activate` defaults to false).
   *
   * @example
   * ```ts
   * await client.physical.uploadPolicy({ policy: { clauses }, activate: true });
   * ```
   */
  uploadPolicy(upload: PhysicalPolicyUpload, options?: CallOptions): Promise<PhysicalPolicyUploaded> {
    return this.expect({ route: R.uploadPhysicalPolicy, body: upload, retry: 'unprocessed', options });
  }

  /**
   * `GET /.well-known/jwks.json`: the physical signer's keys (public); `EdgeVerifier` fetches them itself.
   *
   * @example
   * ```ts
   * const jwks = await client.physical.jwks();
   * ```
   */
  jwks(options?: CallOptions): Promise<PhysicalJwks> {
    return this.expect({ route: R.getPhysicalJwks, retry: 'safe', options });
  }

  #paged<Name extends string, T>(
    route: (typeof R)['listPhysicalActors' | 'listTickets' | 'listPhysicalAudit'],
    query: PageQuery & Record<string, unknown>,
    name: Name,
    options: CallOptions | undefined,
  ): PagedList<T, Page<Name, T>> {
    return new PagedList(
      (cursor) =>
        this.expect<Page<Name, T>>({
          route,
          query: { ...query, cursor: cursor ?? query.cursor },
          retry: 'safe',
          options,
        }),
      (page) => page[name],
      nextCursorOf,
    );
  }
}
