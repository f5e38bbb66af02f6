import { LRUCache } from 'lru-cache';
import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { AppError, validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import { allowlistAllows, type CidrBlock, parseAllowlist, toBlocks } from '../foundation/ip-allowlist.js';
import type { Principal } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import type { Plan, Tenant } from './tenant.js';
import { tenantRepository } from './tenant-repository.js';

/** What every request of a tenant needs besides its credential: the plan's budget and the allowlist. */
export interface TenantAccess {
  plan: Plan;
  rateLimitPerMinute: number | null;
  allowlist: CidrBlock[];
}

/** Like key look-ups (contract section 2), a tenant's access settings are cached for at most 5 s. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_TENANTS = 10_000;

export interface TenantAccessService {
  /** The tenant's plan and allowlist; undefined when the tenant does not exist. */
  get(tenantId: string): Promise<TenantAccess | undefined>;
  /** Drops the cached settings at once (this process changed them). */
  forget(tenantId: string): void;
  /**
   * Replaces the allowlist (an empty list allows every address); audited. Refuses (400) a list that
   * would not let `callerAddress` in, so that nobody locks themselves out by mistake.
   */
  setIpAllowlist(
    tenantId: string,
    principal: Principal,
    cidrs: readonly string[],
    callerAddress: string,
  ): Promise<Tenant>;
}

export function createTenantAccess(deps: { storage: Storage; clock: Clock }): TenantAccessService {
  const { storage, clock } = deps;
  const cache = new LRUCache<string, { access: TenantAccess | undefined; fetchedAt: number }>({
    max: CACHE_MAX_TENANTS,
  });

  async function load(tenantId: string): Promise<TenantAccess | undefined> {
    const stored = await tenantRepository.access(storage.db, tenantId);
    if (stored === undefined) return undefined;
    return {
      plan: stored.plan,
      rateLimitPerMinute: stored.rateLimitPerMinute,
      allowlist: toBlocks(stored.ipAllowlist),
    };
  }

  return {
    async get(tenantId) {
      const now = clock();
      const cached = cache.get(tenantId);
      if (cached !== undefined && now - cached.fetchedAt < CACHE_TTL_MS && now >= cached.fetchedAt) {
        return cached.access;
      }
      const access = await load(tenantId);
      cache.set(tenantId, { access, fetchedAt: now });
      return access;
    },

    forget(tenantId) {
      cache.delete(tenantId);
    },

    async setIpAllowlist(tenantId, principal, entries, callerAddress) {
      const { cidrs, issues } = parseAllowlist(entries);
      if (issues.length > 0) throw validationError(issues);
      if (!allowlistAllows(toBlocks(cidrs), callerAddress)) {
        throw validationError([
          {
            path: '/cidrs',
            message: `the list must include the address of this request (${callerAddress}), or it would lock you out`,
          },
        ]);
      }
      const now = clock();
      await storage.writeTransaction(async (trx) => {
        // Under the chain head's lock: changes at once each record the list they replaced.
        await chainRepository.lockHead(trx, tenantId, now);
        const previous = await tenantRepository.replaceAllowlist(trx, tenantId, cidrs, now);
        if (previous === undefined) throw new AppError('NOT_FOUND', 'No such tenant');
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'tenant.ip_allowlist.changed', {
              cidrs,
              previous,
            }),
          ],
          now,
        );
      });
      cache.delete(tenantId);
      const tenant = await tenantRepository.get(storage.db, tenantId);
      if (!tenant) throw new AppError('NOT_FOUND', 'No such tenant');
      return tenant;
    },
  };
}
