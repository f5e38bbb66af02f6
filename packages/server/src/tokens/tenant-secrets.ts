import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { SecretBox } from '../crypto/secret-box.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';

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
    const row = await storage.db
      .selectFrom('tenant_secrets')
      .select(['id', 'secret'])
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return row ? { id: row.id, secret: secretBox.open(row.secret, context(tenantId, row.id)) } : undefined;
  }

  function newRow(tenantId: string, kind: SecretKind) {
    const id = uuidv7();
    const secret = randomBytes(32);
    return {
      secret: { id, secret },
      row: {
        tenant_id: tenantId,
        id,
        kind,
        secret: secretBox.seal(secret, context(tenantId, id)),
        status: 'active',
        created_at: clock(),
      },
    };
  }

  return {
    /** The active secret of a kind, created on first use (one active per kind: a partial unique index). */
    async active(tenantId: string, kind: SecretKind): Promise<TenantSecret> {
      const existing = await readActive(tenantId, kind);
      if (existing) return existing;
      const { secret, row } = newRow(tenantId, kind);
      try {
        await storage.db.insertInto('tenant_secrets').values(row).execute();
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
      const row = await storage.db
        .selectFrom('tenant_secrets')
        .select(['id', 'secret'])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return undefined;
      const secret = { id: row.id, secret: secretBox.open(row.secret, context(tenantId, row.id)) };
      cache.set(key, secret);
      return secret;
    },

    /** Retires the active secret and creates a new one; the caller shows it once. */
    async rotate(tenantId: string, kind: SecretKind): Promise<TenantSecret & { createdAt: string }> {
      const { secret, row } = newRow(tenantId, kind);
      await storage.writeTransaction(async (trx) => {
        await trx
          .updateTable('tenant_secrets')
          .set({ status: 'retired' })
          .where('tenant_id', '=', tenantId)
          .where('kind', '=', kind)
          .where('status', '=', 'active')
          .execute();
        await trx.insertInto('tenant_secrets').values(row).execute();
      });
      return { ...secret, createdAt: new Date(row.created_at).toISOString() };
    },
  };
}

export type TenantSecrets = ReturnType<typeof createTenantSecrets>;
