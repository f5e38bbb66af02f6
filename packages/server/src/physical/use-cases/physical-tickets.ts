/**
 * Storage and use cases of escalation tickets (02-physical-api.md "Escalation ticket", contract §9).
 * The transitions are the pure functions of `physical/operator-ticket.ts`; this module keeps the
 * record, serializes changes (row lock on PostgreSQL, `BEGIN IMMEDIATE` on SQLite), and records
 * decisions in the audit chain.
 *
 * - Stored statuses are `pending`, `approved`, `rejected` and `consumed`; `expired` is computed on
 *   read from `expiresAtMs` (so the list filter `expired` means "pending or approved, past expiry").
 * - `approvalUrl` = `AUTHORITY_APPROVAL_URL` (default `<public base URL>/console/approvals`) + "/" +
 *   ticketId.
 * - `redeem` consumes an approved ticket inside the issuance transaction with a conditional update,
 *   so exactly one issuance wins even when several race.
 */
import { v7 as uuidv7 } from 'uuid';
import { chainRepository } from '../../chain/chain-repository.js';
import { approvalUrlOf } from '../../config/approval-url.js';
import { AppError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import type { PhysicalTicketsTable } from '../../storage/physical-schema.js';
import {
  checkTicketRedeemable,
  consumeTicket,
  decideTicket,
  newOperatorTicket,
  type OperatorTicket,
  type StructuredGoal,
  type TicketStatus,
  ticketAsOf,
} from '../domain/index.js';
import { physicalEvent } from '../domain/physical-events.js';
import { ticketRepository } from '../repositories/ticket-repository.js';

/** A ticket as the approvals routes show it: the document's shape, its approval URL and the operator's display name. */
export interface TicketView extends OperatorTicket {
  approvalUrl: string;
  /** The `operator` display name given with the decision; null while pending. */
  operator: string | null;
}

/** A ticket as stored, with the correlation id of the issuance request that opened it. */
export interface StoredTicket extends OperatorTicket {
  correlationId: string;
}

export interface TicketDecisionRequest {
  decision: 'approved' | 'rejected';
  /** Display only; `approvedBy` is the authenticated principal. */
  operator: string;
  reason?: string | undefined;
}

export interface NewTicketRequest {
  tenantId: string;
  oiCode: string;
  structuredGoal: StructuredGoal;
  /** The issuance request's correlation id; a re-issue with this ticket reuses it. */
  correlationId: string;
}

export interface PhysicalTickets {
  /** A new `pending` ticket (one hour), inside the caller's transaction; with its approval URL. */
  create(trx: Executor, request: NewTicketRequest): Promise<TicketView>;
  /**
   * The stored record (status as stored, not as of now) for the decision's `operatorTicket`, with
   * the correlation id a re-issue reuses.
   */
  find(tenantId: string, ticketId: string): Promise<StoredTicket | undefined>;
  /** The ticket as of now; 404 `not_found` for an unknown id (or another tenant's). */
  get(tenantId: string, ticketId: string): Promise<TicketView>;
  /** Newest first; `before` is the ticketId of the last ticket of the previous page. */
  list(
    tenantId: string,
    query: { status: TicketStatus; limit: number; before?: string | undefined },
  ): Promise<{ tickets: TicketView[]; hasMore: boolean }>;
  /** Approve or reject a pending ticket; 409 `conflict` with `details.status` otherwise. Audited. */
  decide(
    tenantId: string,
    principal: Principal,
    ticketId: string,
    request: TicketDecisionRequest,
  ): Promise<TicketView>;
  /**
   * Consumes an approved ticket for the one issuance it allows, inside the issuance transaction:
   * same `oiCode`, same canonical structured goal, before `expiresAtMs`. 404 `not_found` for an
   * unknown ticket; 409 `conflict` with `details.status` for a pending, rejected, expired or
   * consumed one (or one approved for another code or goal). Returns the consumed ticket and its
   * correlation id.
   */
  redeem(
    trx: Executor,
    tenantId: string,
    ticketId: string,
    request: { oiCode: string; structuredGoal: StructuredGoal },
  ): Promise<{ ticket: OperatorTicket; correlationId: string }>;
  approvalUrl(ticketId: string): string;
}

type TicketRow = PhysicalTicketsTable;

function toTicket(row: TicketRow): OperatorTicket {
  return {
    ticketId: row.id,
    tenantId: row.tenant_id,
    status: row.status as TicketStatus,
    approvedBy: row.approved_by,
    approvedAtMs: row.approved_at,
    rejectionReason: row.rejection_reason,
    expiresAtMs: row.expires_at,
    intent: { oiCode: row.oi_code, structuredGoal: JSON.parse(row.structured_goal) as StructuredGoal },
    createdAtMs: row.created_at,
  };
}

export function createPhysicalTickets(deps: {
  storage: Storage;
  clock: Clock;
  /** AUTHORITY_APPROVAL_URL without a trailing slash. */
  approvalUrl: string;
}): PhysicalTickets {
  const { storage, clock } = deps;
  const db = storage.db;
  const approvalUrl = (ticketId: string) => approvalUrlOf(deps.approvalUrl, ticketId);

  const view = (row: TicketRow, now: number): TicketView => ({
    ...ticketAsOf(toTicket(row), now),
    approvalUrl: approvalUrl(row.id),
    operator: row.operator,
  });

  const selectTicket = (source: Executor, tenantId: string, ticketId: string, lock: boolean) =>
    ticketRepository.get(source, tenantId, ticketId, { forUpdate: lock });

  return {
    async create(trx, request) {
      const now = clock();
      const ticket = newOperatorTicket({
        ticketId: `esc_${uuidv7()}`,
        tenantId: request.tenantId,
        oiCode: request.oiCode,
        structuredGoal: request.structuredGoal,
        nowMs: now,
      });
      const row: TicketRow = {
        tenant_id: ticket.tenantId,
        id: ticket.ticketId,
        status: ticket.status,
        oi_code: ticket.intent.oiCode,
        structured_goal: JSON.stringify(ticket.intent.structuredGoal),
        correlation_id: request.correlationId,
        approved_by: null,
        approved_at: null,
        operator: null,
        rejection_reason: null,
        expires_at: ticket.expiresAtMs,
        created_at: ticket.createdAtMs,
        consumed_at: null,
      };
      await ticketRepository.insert(trx, row);
      return view(row, now);
    },

    async find(tenantId, ticketId) {
      const row = await selectTicket(db, tenantId, ticketId, false);
      return row && { ...toTicket(row), correlationId: row.correlation_id };
    },

    async get(tenantId, ticketId) {
      const row = await selectTicket(db, tenantId, ticketId, false);
      if (!row) throw new AppError('NOT_FOUND', 'The ticket does not exist');
      return view(row, clock());
    },

    async list(tenantId, query) {
      const now = clock();
      const rows = await ticketRepository.list(db, tenantId, {
        status: query.status,
        now,
        before: query.before,
        limit: query.limit + 1,
      });
      return {
        tickets: rows.slice(0, query.limit).map((row) => view(row, now)),
        hasMore: rows.length > query.limit,
      };
    },

    async decide(tenantId, principal, ticketId, request) {
      return storage.writeTransaction(async (trx) => {
        const now = clock();
        const row = await selectTicket(trx, tenantId, ticketId, true);
        if (!row) throw new AppError('NOT_FOUND', 'The ticket does not exist');
        const decided = decideTicket(
          toTicket(row),
          { decision: request.decision, principal: principal.id, reason: request.reason },
          now,
        );
        await ticketRepository.decide(trx, tenantId, ticketId, {
          status: decided.status,
          approvedBy: decided.approvedBy,
          approvedAtMs: decided.approvedAtMs,
          operator: request.operator,
          rejectionReason: decided.rejectionReason,
        });
        await chainRepository.append(
          trx,
          tenantId,
          [
            physicalEvent(
              {
                actorIdentity: decided.intent.structuredGoal.actor.identifier,
                actorKind: decided.intent.structuredGoal.actor.kind,
                correlationId: row.correlation_id,
              },
              'physical.ticket.decided',
              {
                ticketId,
                decision: decided.status,
                operator: request.operator,
                reason: decided.rejectionReason,
                oiCode: decided.intent.oiCode,
                expiresAtMs: decided.expiresAtMs,
                decidedBy: principal.id,
              },
            ),
          ],
          now,
        );
        return {
          ...decided,
          approvalUrl: approvalUrl(ticketId),
          operator: request.operator,
        };
      });
    },

    async redeem(trx, tenantId, ticketId, request) {
      const now = clock();
      const row = await selectTicket(trx, tenantId, ticketId, true);
      if (!row) throw new AppError('NOT_FOUND', 'The operator ticket does not exist');
      const ticket = checkTicketRedeemable(
        toTicket(row),
        { oiCode: request.oiCode, goal: request.structuredGoal },
        now,
      );
      // The conditional update is what makes redemption exactly-once; the lock only orders readers.
      if (!(await ticketRepository.consume(trx, tenantId, ticketId, now))) {
        throw new AppError('CONFLICT', 'The operator ticket is consumed, not approved', {
          status: 'consumed',
        });
      }
      return { ticket: consumeTicket(ticket), correlationId: row.correlation_id };
    },

    approvalUrl,
  };
}
