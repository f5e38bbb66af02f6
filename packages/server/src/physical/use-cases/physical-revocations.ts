/**
 * Revocation of issued physical tokens and the verifiers' revocation feed (02-physical-api.md,
 * contract §9).
 *
 * - `revokedAtMs = max(now, previous revokedAtMs of the tenant + 1)`, assigned after taking the
 *   tenant's chain-head lock (PostgreSQL `FOR UPDATE`; SQLite's `BEGIN IMMEDIATE` already holds the
 *   write lock), so a tenant's revocation times are strictly increasing in commit order and a
 *   verifier paging with an exclusive `since` never skips one. A unique constraint on
 *   (tenant, revokedAtMs) backs this up.
 * - Revoking a revoked token answers the original revocation and records nothing new.
 * - The feed: revocations with `revokedAtMs > since`, oldest first, at most 1,000; `asOfMs` is the
 *   last returned time (or `since` for an empty page), `hasMore` is true when the page is full.
 */

import { REVOCATIONS_PAGE_LIMIT, type Revocation } from '@authority-runtime/sdk';
import { chainRepository } from '../../chain/chain-repository.js';
import { AppError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import { type ActorKind, nextRevokedAtMs } from '../domain/index.js';
import { physicalEvent } from '../domain/physical-events.js';
import { decisionRepository } from '../repositories/decision-repository.js';
import { revocationRepository } from '../repositories/revocation-repository.js';

// The page size and entry shape the SDK's EdgeVerifier pages with: one definition for both ends.
export { REVOCATIONS_PAGE_LIMIT, type Revocation };

export interface RevocationPage {
  revocations: Revocation[];
  asOfMs: number;
  hasMore: boolean;
  serverTimeMs: number;
}

export interface PhysicalRevocations {
  /** Revokes an issued token of the tenant; 404 `not_found` for any other jti. Audited once. */
  revoke(
    tenantId: string,
    principal: Principal,
    tokenJti: string,
    reason: string,
  ): Promise<{ tokenJti: string; revokedAtMs: number }>;
  since(tenantId: string, sinceMs: number): Promise<RevocationPage>;
}

export function createPhysicalRevocations(deps: { storage: Storage; clock: Clock }): PhysicalRevocations {
  const { storage, clock } = deps;
  return {
    async revoke(tenantId, principal, tokenJti, reason) {
      return storage.writeTransaction(async (trx) => {
        // Behind the tenant's chain head (FOR UPDATE on PostgreSQL; SQLite is serialized already), so
        // revokedAtMs values are assigned one after another.
        await chainRepository.lockHead(trx, tenantId, clock());
        const issued = await decisionRepository.findByJti(trx, tenantId, tokenJti);
        if (!issued) throw new AppError('NOT_FOUND', 'No token with this jti was issued');
        const existing = await revocationRepository.revokedAt(trx, tenantId, tokenJti);
        if (existing !== undefined) return { tokenJti, revokedAtMs: existing };
        const latest = await revocationRepository.latestRevokedAt(trx, tenantId);
        const now = clock();
        const revokedAtMs = nextRevokedAtMs(now, latest);
        await revocationRepository.insert(trx, {
          tenantId,
          tokenJti,
          revokedAtMs,
          reason,
          revokedBy: principal.id,
        });
        await chainRepository.append(
          trx,
          tenantId,
          [
            physicalEvent(
              {
                actorIdentity: issued.actor_identity,
                actorKind: issued.actor_kind as ActorKind,
                correlationId: issued.correlation_id,
              },
              'physical.token.revoked',
              {
                tokenJti,
                revokedAtMs,
                reason,
                actorIdentity: issued.actor_identity,
                revokedBy: principal.id,
              },
            ),
          ],
          now,
        );
        return { tokenJti, revokedAtMs };
      });
    },

    async since(tenantId, sinceMs) {
      const revocations = await revocationRepository.since(
        storage.db,
        tenantId,
        sinceMs,
        REVOCATIONS_PAGE_LIMIT,
      );
      return {
        revocations,
        asOfMs: revocations[revocations.length - 1]?.revokedAtMs ?? sinceMs,
        hasMore: revocations.length === REVOCATIONS_PAGE_LIMIT,
        serverTimeMs: clock(),
      };
    },
  };
}
