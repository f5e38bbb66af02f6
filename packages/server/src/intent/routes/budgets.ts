import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import { BUDGET_EFFECTS, BUDGET_WINDOWS } from '../domain/budgets.js';
import type { BudgetStore } from '../use-cases/budget-store.js';

const Globs = Type.Optional(Type.Array(Type.String()));
const BudgetSchema = Type.Object({
  id: Type.String(),
  actorIds: Globs,
  targetSystems: Globs,
  oiCodes: Globs,
  window: Type.Enum(BUDGET_WINDOWS),
  maxApproved: Type.Integer(),
  onExceeded: Type.Enum(BUDGET_EFFECTS),
});
const BudgetSetSchema = Type.Object({
  tenantId: Type.String(),
  budgets: Type.Array(BudgetSchema),
  updatedAt: Type.Union([IsoDateTime, Type.Null()]),
  updatedBy: Type.Union([Type.String(), Type.Null()]),
});
const UsageSchema = Type.Object({
  tenantId: Type.String(),
  actorId: Type.String(),
  at: IsoDateTime,
  usage: Type.Array(
    Type.Object({
      budgetId: Type.String(),
      window: Type.Enum(BUDGET_WINDOWS),
      windowStart: IsoDateTime,
      windowEnd: IsoDateTime,
      approved: Type.Integer(),
      maxApproved: Type.Integer(),
      remaining: Type.Integer(),
      onExceeded: Type.Enum(BUDGET_EFFECTS),
    }),
  ),
});
const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });

/** Budgets per actor (contract §16). */
export const budgetRoutes: FastifyPluginAsyncTypebox<{ budgets: BudgetStore }> = async (app, { budgets }) => {
  app.get(
    '/authority/budgets/:tenantId',
    {
      config: needs('authority:policy:read'),
      schema: {
        tags: ['policy'],
        summary: "The tenant's budgets per actor (empty until set)",
        security: tenantSecurity,
        params: TenantParams,
        response: { 200: BudgetSetSchema, ...tenantErrors },
      },
    },
    async (request) => budgets.get(principalOf(request).tenantId),
  );

  app.put(
    '/authority/budgets/:tenantId',
    {
      config: needs('authority:policy:write'),
      schema: {
        tags: ['policy'],
        summary: 'Replace the budgets (an empty list removes all); validated, audited as budgets.updated',
        security: tenantSecurity,
        params: TenantParams,
        // Validated in the domain, with a path and message per field.
        body: Type.Unknown(),
        response: { 200: BudgetSetSchema, ...tenantErrors },
      },
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
      schema: {
        tags: ['policy'],
        summary: "An actor's APPROVED decisions in the current window of each budget that applies to it",
        security: tenantSecurity,
        params: TenantParams,
        querystring: Type.Object(
          { actorId: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 200: UsageSchema, ...tenantErrors },
      },
    },
    async (request) => budgets.usage(principalOf(request).tenantId, request.query.actorId),
  );
};
