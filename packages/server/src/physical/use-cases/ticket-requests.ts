import type { Storage } from '../../storage/database.js';
import { decisionRepository } from '../repositories/decision-repository.js';

/**
 * What the operator deciding a ticket needs besides the ticket itself (contract §14: "oiCode, goal,
 * safety bit and citations"): the escalated request's actor, the classifier's safety bit and
 * citations, and the clauses that fired, read from the decision record that opened the ticket.
 */
export interface TicketRequest {
  actorIdentity: string;
  actorKind: string;
  safetyBit: boolean;
  safetyCitations: string[];
  clauseIds: string[];
  safeDefault: string;
}

export function createTicketRequests(deps: { storage: Storage }) {
  const db = deps.storage.db;
  return {
    /** The escalated request of each ticket, by ticket id (index `physical_decisions_ticket_idx`). */
    async forTickets(tenantId: string, ticketIds: readonly string[]): Promise<Map<string, TicketRequest>> {
      const found = new Map<string, TicketRequest>();
      if (ticketIds.length === 0) return found;
      const rows = await decisionRepository.escalationsOfTickets(db, tenantId, ticketIds);
      for (const row of rows) {
        if (row.escalation_ticket_id === null) continue;
        found.set(row.escalation_ticket_id, {
          actorIdentity: row.actor_identity,
          actorKind: row.actor_kind,
          safetyBit: row.safety_bit === 1,
          safetyCitations: JSON.parse(row.safety_citations) as string[],
          clauseIds: JSON.parse(row.clause_ids) as string[],
          safeDefault: row.safe_default,
        });
      }
      return found;
    },
  };
}

export type TicketRequests = ReturnType<typeof createTicketRequests>;
