import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';

/** Agent budgets (contract §16). */

export const BUDGET_WINDOWS = ['minute', 'hour', 'day'] as const;
export const BUDGET_EFFECTS = ['ESCALATE', 'DENY'] as const;

const Globs = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 1_000 }),
);

/**
 * At most `maxApproved` APPROVED decisions per actor in the current fixed UTC window; beyond it a
 * matching decision gets `signal:budget-exceeded` with effect `onExceeded`.
 */
export const Budget = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' }),
    actorIds: Globs,
    targetSystems: Globs,
    oiCodes: Globs,
    window: Type.Enum(BUDGET_WINDOWS, { description: 'The current UTC minute, hour or day' }),
    maxApproved: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
    onExceeded: Type.Enum(BUDGET_EFFECTS),
  },
  Closed,
);
export type Budget = Static<typeof Budget>;

/** The body of `PUT /authority/budgets/:tenantId`: the whole list (empty removes all). */
export const BudgetSetRequest = Type.Object({ budgets: Type.Array(Budget, { maxItems: 100 }) }, Closed);
export type BudgetSetRequest = Static<typeof BudgetSetRequest>;

/** `GET` / `PUT /authority/budgets/:tenantId`. */
export const BudgetSet = Type.Object({
  tenantId: Type.String(),
  budgets: Type.Array(Budget),
  updatedAt: Nullable(IsoDateTime),
  updatedBy: Nullable(Type.String()),
});
export type BudgetSet = Static<typeof BudgetSet>;

export const BudgetUsageQuery = Type.Object(
  { actorId: Type.String({ minLength: 1, maxLength: 200 }) },
  Closed,
);
export type BudgetUsageQuery = Static<typeof BudgetUsageQuery>;

/** `GET /authority/budgets/:tenantId/usage?actorId=`: the budgets that apply to the actor. */
export const BudgetUsage = Type.Object({
  tenantId: Type.String(),
  actorId: Type.String(),
  at: IsoDateTime,
  usage: Type.Array(
    Type.Object({
      budgetId: Type.String(),
      window: Type.Enum(BUDGET_WINDOWS),
      windowStart: IsoDateTime,
      windowEnd: IsoDateTime,
      approved: Type.Integer({ minimum: 0 }),
      maxApproved: Type.Integer({ minimum: 0 }),
      remaining: Type.Integer({ minimum: 0 }),
      onExceeded: Type.Enum(BUDGET_EFFECTS),
    }),
  ),
});
export type BudgetUsage = Static<typeof BudgetUsage>;
