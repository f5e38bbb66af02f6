import { isPermission, isRole, type Permission, type Role } from '../identity/permissions.js';
import type { Executor } from '../storage/database.js';
import type { ApiKeysTable } from '../storage/schema.js';

/** An API key record; the secret itself is never stored, only its SHA-256. */
export interface ApiKeyRecord {
  tenantId: string;
  id: string;
  name: string;
  keyHash: string;
  displayPrefix: string;
  role: Role;
  scopes: Permission[] | null;
  expiresAt: number | null;
  createdAt: number;
  createdBy: string | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

function toRecord(row: ApiKeysTable): ApiKeyRecord {
  if (!isRole(row.role)) throw new Error(`API key ${row.id} has an unknown role in storage`);
  const scopes = row.scopes === null ? null : (JSON.parse(row.scopes) as string[]).filter(isPermission);
  return {
    tenantId: row.tenant_id,
    id: row.id,
    name: row.name,
    keyHash: row.key_hash,
    displayPrefix: row.display_prefix,
    role: row.role,
    scopes,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    createdBy: row.created_by,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export const apiKeyRepository = {
  async insert(db: Executor, key: ApiKeyRecord): Promise<void> {
    await db
      .insertInto('api_keys')
      .values({
        tenant_id: key.tenantId,
        id: key.id,
        name: key.name,
        key_hash: key.keyHash,
        display_prefix: key.displayPrefix,
        role: key.role,
        scopes: key.scopes === null ? null : JSON.stringify(key.scopes),
        expires_at: key.expiresAt,
        created_at: key.createdAt,
        created_by: key.createdBy,
        revoked_at: key.revokedAt,
        last_used_at: key.lastUsedAt,
      })
      .execute();
  },

  async findByHash(db: Executor, keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  },

  async get(db: Executor, tenantId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  },

  async list(db: Executor, tenantId: string): Promise<ApiKeyRecord[]> {
    const rows = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  },

  /**
   * Marks a key revoked, in one conditional update: `revoked` when this call did, `unchanged` when
   * it was revoked already (the first time is kept), `missing` when the tenant has no such key.
   */
  async revoke(
    db: Executor,
    tenantId: string,
    id: string,
    now: number,
  ): Promise<'revoked' | 'unchanged' | 'missing'> {
    const updated = await db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 1) return 'revoked';
    return (await apiKeyRepository.get(db, tenantId, id)) ? 'unchanged' : 'missing';
  },

  async touchLastUsed(db: Executor, tenantId: string, id: string, now: number): Promise<void> {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },
};
