import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { BudgetStore } from '../use-cases/budget-store.js';

/** Budgets per actor (contract §16). */
export const budgetRoutes: FastifyPluginAsyncTypebox<{ budgets: BudgetStore }> = async (app, { budgets }) => {
  app.get(
    '/authority/budgets/:tenantId',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.getBudgets),
    },
    async (request) => budgets.get(principalOf(request).tenantId),
  );

  app.put(
    '/authority/budgets/:tenantId',
    {
      config: needs('authority:policy:write'),
      schema: wireSchema(WIRE_ROUTES.putBudgets),
    },
    async (request) => {
      const principal = principalOf(request);
      return budgets.put(principal.tenantId, principal, request.body);
    },
  );

  app.get(
    '/authority/budgets/:tenantId/usage',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.getBudgetUsage),
    },
    async (request) => budgets.usage(principalOf(request).tenantId, request.query.actorId),
  );
};
