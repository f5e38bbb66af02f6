import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { decodeIdCursor, nextIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PhysicalTickets, TicketView } from '../use-cases/physical-tickets.js';
import type { TicketRequests } from '../use-cases/ticket-requests.js';
import { DEFAULT_PAGE_LIMIT } from './physical-schemas.js';

/** Operator tickets of escalated physical requests (document 02 "Approvals", contract §9). */
export const physicalApprovalRoutes: FastifyPluginAsyncTypebox<{
  tickets: PhysicalTickets;
  ticketRequests: TicketRequests;
}> = async (app, { tickets, ticketRequests }) => {
  /** Each ticket with the escalated request behind it (one query for the whole page). */
  const withRequests = async (tenantId: string, views: TicketView[]) => {
    const requests = await ticketRequests.forTickets(
      tenantId,
      views.map((view) => view.ticketId),
    );
    return views.map((view) => ({ ...view, request: requests.get(view.ticketId) ?? null }));
  };

  app.get(
    '/physical/approvals',
    {
      config: needs('physical:approvals:read'),
      schema: wireSchema(WIRE_ROUTES.listTickets),
    },
    async (request) => {
      const page = await tickets.list(principalOf(request).tenantId, {
        status: request.query.status ?? 'pending',
        limit: request.query.limit ?? DEFAULT_PAGE_LIMIT,
        before: decodeIdCursor(request.query.cursor),
      });
      return {
        tickets: await withRequests(principalOf(request).tenantId, page.tickets),
        nextCursor: nextIdCursor(page.tickets, page.hasMore, (t) => t.ticketId),
      };
    },
  );

  app.get(
    '/physical/approvals/:ticketId',
    {
      config: needs('physical:approvals:read'),
      schema: wireSchema(WIRE_ROUTES.getTicket),
    },
    async (request) => {
      const tenantId = principalOf(request).tenantId;
      const [ticket] = await withRequests(tenantId, [await tickets.get(tenantId, request.params.ticketId)]);
      return ticket;
    },
  );

  app.post(
    '/physical/approvals/:ticketId/decide',
    {
      config: needs('physical:approvals:decide'),
      schema: wireSchema(WIRE_ROUTES.decideTicket),
    },
    async (request) => {
      const principal = principalOf(request);
      const decided = await tickets.decide(
        principal.tenantId,
        principal,
        request.params.ticketId,
        request.body,
      );
      const [ticket] = await withRequests(principal.tenantId, [decided]);
      return ticket;
    },
  );
};
