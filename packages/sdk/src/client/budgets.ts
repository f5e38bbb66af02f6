import type { BudgetSet, BudgetSetRequest, BudgetUsage } from '../wire/budgets.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import { Resource } from './resource.js';
import type { CallOptions } from './transport.js';

/** Budgets per actor (contract §16): at most N APPROVED decisions per fixed UTC window. */
export class BudgetsResource extends Resource {
  /**
   * `GET /authority/budgets/:tenantId`: the tenant's budgets (empty until set).
   *
   * @example
   * ```ts
   * const { budgets } = await client.budgets.get();
   * ```
   */
  get(options?: CallOptions): Promise<BudgetSet> {
    return this.expect({ route: R.getBudgets, params: { tenantId: this.tenantId }, retry: 'safe', options });
  }

  /**
   * `PUT /authority/budgets/:tenantId`: replace the whole list (an empty list removes all).
   *
   * @example
   * ```ts
   * await client.budgets.put({
   *   budgets: [{ id: 'deploys', actorIds: ['deploy-*'], window: 'hour', maxApproved: 20, onExceeded: 'ESCALATE' }],
   * });
   * ```
   */
  put(request: BudgetSetRequest, options?: CallOptions): Promise<BudgetSet> {
    return this.expect({
      route: R.putBudgets,
      params: { tenantId: this.tenantId },
      body: request,
      retry: 'safe',
      options,
    });
  }

  /**
   * `GET /authority/budgets/:tenantId/usage?actorId=`: the actor's count in each budget's current window.
   *
   * @example
   * ```ts
   * const { usage } = await client.budgets.usage('deploy-bot');
   * ```
   */
  usage(actorId: string, options?: CallOptions): Promise<BudgetUsage> {
    return this.expect({
      route: R.getBudgetUsage,
      params: { tenantId: this.tenantId },
      query: { actorId },
      retry: 'safe',
      options,
    });
  }
}
