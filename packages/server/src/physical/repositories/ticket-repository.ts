import type { Executor } from '../../storage/database.js';
import type { PhysicalTicketsTable } from '../../storage/physical-schema.js';
import { forUpdate } from '../../storage/row-lock.js';
import type { TicketStatus } from '../domain/index.js';

/** A decision recorded on a pending ticket. */
export interface TicketDecisionColumns {
  status: string;
  approvedBy: string | null;
  approvedAtMs: number | null;
  operator: string;
  rejectionReason: string | null;
}

/** `physical_tickets`: escalation tickets; `expired` is computed on read, never stored. */
export const ticketRepository = {
  async insert(trx: Executor, row: PhysicalTicketsTable): Promise<void> {
    await trx.insertInto('physical_tickets').values(row).execute();
  },

  /** The ticket; `forUpdate` locks it for the rest of the transaction (decisions queue up). */
  async get(
    db: Executor,
    tenantId: string,
    ticketId: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<PhysicalTicketsTable | undefined> {
    const query = db
      .selectFrom('physical_tickets')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', ticketId);
    return (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst();
  },

  /**
   * Tickets with the status as of `now`, newest first, below `before`, at most `limit`:
   * `pending` and `approved` ones before their expiry, `expired` ones pending or approved past it.
   */
  async list(
    db: Executor,
    tenantId: string,
    query: { status: TicketStatus; now: number; before?: string | undefined; limit: number },
  ): Promise<PhysicalTicketsTable[]> {
    let select = db.selectFrom('physical_tickets').selectAll().where('tenant_id', '=', tenantId);
    switch (query.status) {
      case 'pending':
      case 'approved':
        select = select.where('status', '=', query.status).where('expires_at', '>', query.now);
        break;
      case 'expired':
        select = select.where('status', 'in', ['pending', 'approved']).where('expires_at', '<=', query.now);
        break;
      default:
        select = select.where('status', '=', query.status);
    }
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    return select.orderBy('id', 'desc').limit(query.limit).execute();
  },

  /** Tickets of every tenant awaiting a decision at `now` (pending and not expired). */
  async countPending(db: Executor, now: number): Promise<number> {
    const row = await db
      .selectFrom('physical_tickets')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },

  /** Records the decision on a ticket that is still pending. */
  async decide(
    trx: Executor,
    tenantId: string,
    ticketId: string,
    decision: TicketDecisionColumns,
  ): Promise<void> {
    await trx
      .updateTable('physical_tickets')
      .set({
        status: decision.status,
        approved_by: decision.approvedBy,
        approved_at: decision.approvedAtMs,
        operator: decision.operator,
        rejection_reason: decision.rejectionReason,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', ticketId)
      .where('status', '=', 'pending')
      .execute();
  },

  /** Consumes an approved ticket; true for exactly one caller, however many race. */
  async consume(trx: Executor, tenantId: string, ticketId: string, now: number): Promise<boolean> {
    const updated = await trx
      .updateTable('physical_tickets')
      .set({ status: 'consumed', consumed_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', ticketId)
      .where('status', '=', 'approved')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  },
};
