import { AppError, type ValidationIssue, validationError } from '../errors/app-error.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';
import { apiKeyRepository } from './api-key-repository.js';
import { type IssuedKey, prepareKey } from './key-service.js';
import { isPlan, type Plan, TENANT_ID_PATTERN, type Tenant } from './tenant.js';
import { tenantRepository } from './tenant-repository.js';

export const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000;

export interface TenantRequest {
  id: string;
  name?: string | undefined;
  plan: string;
  rateLimitPerMinute?: number | undefined;
}

export interface TenantPatch {
  plan?: string | undefined;
  rateLimitPerMinute?: number | undefined;
}

export interface CreatedTenant {
  tenant: Tenant;
  ownerKey: IssuedKey;
}

function checkPlanAndLimit(plan: string, limit: number | null, issues: ValidationIssue[]): void {
  if (!isPlan(plan)) {
    issues.push({ path: '/plan', message: 'plan must be one of free, pro, business, enterprise' });
    return;
  }
  if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > MAX_RATE_LIMIT_PER_MINUTE)) {
    issues.push({
      path: '/rateLimitPerMinute',
      message: `rateLimitPerMinute must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}`,
    });
  } else if (plan === 'enterprise' && limit === null) {
    issues.push({
      path: '/rateLimitPerMinute',
      message: 'rateLimitPerMinute is required for the enterprise plan',
    });
  } else if (plan !== 'enterprise' && limit !== null) {
    issues.push({
      path: '/rateLimitPerMinute',
      message: 'rateLimitPerMinute applies to the enterprise plan only',
    });
  }
}

export interface TenantService {
  /** Creates a tenant and its first owner key in one transaction; 409 when the id is taken. */
  create(request: TenantRequest): Promise<CreatedTenant>;
  update(id: string, patch: TenantPatch): Promise<Tenant>;
  get(id: string): Promise<Tenant | undefined>;
  list(): Promise<Tenant[]>;
  /**
   * Creates tenant `demo` with an owner key if the database has no tenant yet. The bootstrap row's
   * primary key makes this happen once even when several processes start together.
   */
  bootstrapDemo(): Promise<CreatedTenant | undefined>;
}

/** `onChanged` hears of plan changes made here (the access-settings cache drops the tenant). */
export function createTenantService(
  storage: Storage,
  clock: Clock,
  onChanged: (tenantId: string) => void = () => {},
): TenantService {
  async function insertWithOwner(request: TenantRequest, bootstrapName?: string): Promise<CreatedTenant> {
    const issues: ValidationIssue[] = [];
    if (!TENANT_ID_PATTERN.test(request.id)) {
      issues.push({ path: '/id', message: 'id must match ^[a-z0-9][a-z0-9-]{1,62}$' });
    }
    const name = (request.name ?? request.id).trim();
    if (name === '' || name.length > 200)
      issues.push({ path: '/name', message: 'name must be 1 to 200 characters' });
    const limit = request.rateLimitPerMinute ?? null;
    checkPlanAndLimit(request.plan, limit, issues);
    if (issues.length > 0) throw validationError(issues);

    const now = clock();
    const { record, issued } = prepareKey(request.id, { name: 'owner', role: 'owner' }, null, now);
    try {
      const tenant = await storage.writeTransaction(async (trx) => {
        if (bootstrapName) await tenantRepository.recordBootstrap(trx, bootstrapName, now);
        const created = await tenantRepository.insert(
          trx,
          { id: request.id, name, plan: request.plan as Plan, rateLimitPerMinute: limit },
          now,
        );
        await apiKeyRepository.insert(trx, record);
        return created;
      });
      return { tenant, ownerKey: issued };
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', `Tenant ${request.id} already exists`);
      throw error;
    }
  }

  return {
    create: (request) => insertWithOwner(request),

    async update(id, patch) {
      const current = await tenantRepository.get(storage.db, id);
      if (!current) throw new AppError('NOT_FOUND', 'No such tenant');
      const plan = patch.plan ?? current.plan;
      const limit = patch.rateLimitPerMinute ?? (plan === 'enterprise' ? current.rateLimitPerMinute : null);
      const issues: ValidationIssue[] = [];
      checkPlanAndLimit(plan, limit, issues);
      if (issues.length > 0) throw validationError(issues);
      const updated = await tenantRepository.updatePlan(
        storage.db,
        id,
        { plan: plan as Plan, rateLimitPerMinute: limit },
        clock(),
      );
      if (!updated) throw new AppError('NOT_FOUND', 'No such tenant');
      onChanged(id);
      return updated;
    },

    get: (id) => tenantRepository.get(storage.db, id),
    list: () => tenantRepository.list(storage.db),

    async bootstrapDemo() {
      if ((await tenantRepository.count(storage.db)) > 0) return undefined;
      try {
        return await insertWithOwner({ id: 'demo', name: 'Demo', plan: 'pro' }, 'demo-tenant');
      } catch (error) {
        if (error instanceof AppError && error.code === 'CONFLICT') return undefined;
        throw error;
      }
    },
  };
}
