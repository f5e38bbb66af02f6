import type { FastifyReply } from 'fastify';
import type { IdempotentOutcome } from '../use-cases/physical-idempotency.js';

/** Helpers shared by the `/physical/*` routes (their schemas are the SDK wire's). */

export const DEFAULT_PAGE_LIMIT = 50;

/**
 * Sends an idempotent outcome: the status and body as first answered (a replay may be a stored
 * error envelope, which the route's error schemas describe).
 */
export function sendOutcome(reply: FastifyReply, outcome: IdempotentOutcome): FastifyReply {
  return reply.code(outcome.statusCode).send(outcome.body);
}
