import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { ErrorResponse, tenantErrors } from '../../http/schemas.js';
import type { IdempotentOutcome } from '../use-cases/physical-idempotency.js';

/** Schemas and helpers shared by the `/physical/*` routes (field names are document 02's, literally). */

export const Millis = Type.Integer({ minimum: 0, description: 'ms since the epoch' });

/** The error responses of a physical tenant route (lower-snake codes), with 409. */
export const physicalErrors = { ...tenantErrors, 409: ErrorResponse };

/** `limit` (1..200, default 50) and an opaque `cursor` (the `nextCursor` of the previous page). */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 50' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page' })),
};

export const DEFAULT_PAGE_LIMIT = 50;

/** A path segment naming a token id, ticket id or similar; longer values name nothing. */
export const IdSegment = Type.String({ minLength: 1, maxLength: 200 });

export const StructuredGoalView = Type.Unknown({
  description:
    'The structured goal as submitted (schema, verb, object, parameters, actor, sourceTimestampMs)',
});

/**
 * Sends an idempotent outcome: the status and body as first answered (a replay may be a stored
 * error envelope, which the route's error schemas describe).
 */
export function sendOutcome(reply: FastifyReply, outcome: IdempotentOutcome): FastifyReply {
  return reply.code(outcome.statusCode).send(outcome.body);
}
