/**
 * Escalation tickets of the physical surface (02-physical-api.md, contract §9), as pure transitions
 * over a ticket record. Storage keeps the record; these functions decide what may happen to it.
 *
 * - A new ticket is `pending` and lives one hour.
 * - A `pending` or `approved` ticket whose `expiresAtMs` has passed is reported as `expired`.
 * - `decide` moves a pending ticket to `approved` or `rejected` and records the authenticated
 *   principal as `approvedBy` for both (the body's `operator` is display only); anything else is
 *   409 `conflict` with `details.status`.
 * - An approved ticket is redeemable, before `expiresAtMs`, by exactly one issuance with the same
 *   `oiCode` and the same canonical structured goal; the issuance marks it `consumed`.
 */
import canonicalize from 'canonicalize';
import { AppError } from '../../errors/app-error.js';
import type { StructuredGoal } from './physical-types.js';

export const TICKET_LIFETIME_MS = 3_600_000;
export const TICKET_ID_PREFIX = 'esc_';
export const TICKET_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export interface OperatorTicket {
  ticketId: string;
  tenantId: string;
  status: TicketStatus;
  approvedBy: string | null;
  approvedAtMs: number | null;
  rejectionReason: string | null;
  expiresAtMs: number;
  intent: { oiCode: string; structuredGoal: StructuredGoal };
  createdAtMs: number;
}

export interface NewTicketInput {
  /** `esc_` + UUIDv7, minted by the caller. */
  ticketId: string;
  tenantId: string;
  oiCode: string;
  structuredGoal: StructuredGoal;
  nowMs: number;
}

export function newOperatorTicket(input: NewTicketInput): OperatorTicket {
  if (!input.ticketId.startsWith(TICKET_ID_PREFIX))
    throw new Error(`ticket ids start with ${TICKET_ID_PREFIX}`);
  return {
    ticketId: input.ticketId,
    tenantId: input.tenantId,
    status: 'pending',
    approvedBy: null,
    approvedAtMs: null,
    rejectionReason: null,
    expiresAtMs: input.nowMs + TICKET_LIFETIME_MS,
    intent: { oiCode: input.oiCode, structuredGoal: input.structuredGoal },
    createdAtMs: input.nowMs,
  };
}

/** The status to report at `nowMs`: an open ticket past its expiry is `expired`. */
export function ticketStatusAt(
  ticket: Pick<OperatorTicket, 'status' | 'expiresAtMs'>,
  nowMs: number,
): TicketStatus {
  if ((ticket.status === 'pending' || ticket.status === 'approved') && nowMs >= ticket.expiresAtMs)
    return 'expired';
  return ticket.status;
}

/** The ticket as it should be shown at `nowMs`. */
export function ticketAsOf(ticket: OperatorTicket, nowMs: number): OperatorTicket {
  const status = ticketStatusAt(ticket, nowMs);
  return status === ticket.status ? ticket : { ...ticket, status };
}

export interface TicketDecisionInput {
  decision: 'approved' | 'rejected';
  /** The authenticated principal (API key id or portal user id). */
  principal: string;
  /** Recorded on rejection. */
  reason?: string;
}

/** `POST /approvals/{ticketId}/decide`: the updated ticket, or 409 `conflict` when it is not pending. */
export function decideTicket(
  ticket: OperatorTicket,
  input: TicketDecisionInput,
  nowMs: number,
): OperatorTicket {
  const status = ticketStatusAt(ticket, nowMs);
  if (status !== 'pending') {
    throw new AppError('CONFLICT', `The ticket is ${status}, not pending`, { status });
  }
  return {
    ...ticket,
    status: input.decision,
    approvedBy: input.principal,
    approvedAtMs: nowMs,
    rejectionReason: input.decision === 'rejected' ? (input.reason ?? null) : null,
  };
}

/**
 * The canonical text of a goal for ticket matching: defaults filled in (`object` null, `parameters`
 * `{}`) and `sourceTimestampMs` left out, since a re-issue after approval necessarily carries a
 * fresh origin time (the replay window is 30 s, an approval takes longer).
 */
export function canonicalGoal(goal: StructuredGoal): string {
  const text = canonicalize({
    schema: goal.schema,
    verb: goal.verb,
    object: goal.object ?? null,
    parameters: goal.parameters ?? {},
    actor: { kind: goal.actor.kind, identifier: goal.actor.identifier },
  });
  if (text === undefined) throw new Error('goal has no canonical JSON form');
  return text;
}

/**
 * Checks that `ticket` (the record found under the request's `operatorTicketId`, or undefined)
 * may be redeemed by an issuance of `oiCode` for `goal`. Throws 404 `not_found` for no record,
 * 409 `conflict` with `details.status` for a ticket that is not approved (pending, rejected,
 * expired, consumed) or that was approved for another code or goal.
 */
export function checkTicketRedeemable(
  ticket: OperatorTicket | undefined,
  request: { oiCode: string; goal: StructuredGoal },
  nowMs: number,
): OperatorTicket {
  if (ticket === undefined) throw new AppError('NOT_FOUND', 'The operator ticket does not exist');
  const status = ticketStatusAt(ticket, nowMs);
  if (status !== 'approved') {
    throw new AppError('CONFLICT', `The operator ticket is ${status}, not approved`, { status });
  }
  if (ticket.intent.oiCode !== request.oiCode) {
    throw new AppError('CONFLICT', 'The operator ticket was approved for another open-intent code', {
      status,
      reason: 'oi_code_mismatch',
    });
  }
  if (canonicalGoal(ticket.intent.structuredGoal) !== canonicalGoal(request.goal)) {
    throw new AppError('CONFLICT', 'The operator ticket was approved for another structured goal', {
      status,
      reason: 'goal_mismatch',
    });
  }
  return ticket;
}

/** The ticket after the one issuance it allowed. */
export function consumeTicket(ticket: OperatorTicket): OperatorTicket {
  if (ticket.status !== 'approved')
    throw new Error(`only an approved ticket can be consumed (is ${ticket.status})`);
  return { ...ticket, status: 'consumed' };
}
