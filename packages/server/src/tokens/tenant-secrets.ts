import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Principal } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import { tenantSecretRepository } from './tenant-secret-repository.js';

/** Per-tenant HMAC secrets (contract §5): evidence bundles and permission tokens. */
export type SecretKind = 'evidence' | 'permission';

export interface TenantSecret {
  id: string;
  secret: Buffer;
}

const context = (tenantId: string, id: string) => `tenant-secret:${tenantId}:${id}`;

export function createTenantSecrets(deps: { storage: Storage; clock: Clock; secretBox: SecretBox }) {
  const { storage, clock, secretBox } = deps;
  const cache = new Map<string, TenantSecret>();

  async function readActive(tenantId: string, kind: SecretKind): Promise<TenantSecret | undefined> {
    const stored = await tenantSecretRepository.active(storage.db, tenantId, kind);
    return stored
      ? { id: stored.id, secret: secretBox.open(stored.sealed, context(tenantId, stored.id)) }
      : undefined;
  }

  function newSecret(tenantId: string, kind: SecretKind) {
    const id = uuidv7();
    const secret = randomBytes(32);
    return {
      secret: { id, secret },
      stored: {
        tenantId,
        id,
        kind,
        sealed: secretBox.seal(secret, context(tenantId, id)),
        createdAtMs: clock(),
      },
    };
  }

  return {
    /** The active secret of a kind, created on first use (one active per kind: a partial unique index). */
    async active(tenantId: string, kind: SecretKind): Promise<TenantSecret> {
      const existing = await readActive(tenantId, kind);
      if (existing) return existing;
      const { secret, stored } = newSecret(tenantId, kind);
      try {
        await tenantSecretRepository.insertActive(storage.db, stored);
        return secret;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const winner = await readActive(tenantId, kind);
        if (!winner) throw error;
        return winner;
      }
    },

    /** A secret by id (any status), for verifying what an older secret signed. */
    async byId(tenantId: string, id: string): Promise<TenantSecret | undefined> {
      const key = `${tenantId}:${id}`;
      const cached = cache.get(key);
      if (cached) return cached;
      const stored = await tenantSecretRepository.get(storage.db, tenantId, id);
      if (!stored) return undefined;
      const secret = { id: stored.id, secret: secretBox.open(stored.sealed, context(tenantId, stored.id)) };
      cache.set(key, secret);
      return secret;
    },

    /**
     * Retires the active secret and creates a new one, recorded in the chain (`secret.rotated`,
     * the ids only); the caller shows the secret once.
     */
    async rotate(
      tenantId: string,
      kind: SecretKind,
      principal: Principal,
    ): Promise<TenantSecret & { createdAt: string }> {
      const { secret, stored } = newSecret(tenantId, kind);
      await storage.writeTransaction(async (trx) => {
        const previous = await tenantSecretRepository.active(trx, tenantId, kind);
        await tenantSecretRepository.retireActive(trx, tenantId, kind);
        await tenantSecretRepository.insertActive(trx, stored);
        const payload = { kind, secretId: stored.id, previousSecretId: previous?.id ?? null };
        await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'secret.rotated', payload)],
          stored.createdAtMs,
        );
      });
      return { ...secret, createdAt: new Date(stored.createdAtMs).toISOString() };
    },
  };
}

export type TenantSecrets = ReturnType<typeof createTenantSecrets>;
