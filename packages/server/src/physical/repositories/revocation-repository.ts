import type { Revocation } from '@authority-runtime/sdk';
import type { Executor } from '../../storage/database.js';

/** `physical_revocations`: one per revoked token; `revoked_at` is unique and increasing per tenant. */
export const revocationRepository = {
  /** When the token was revoked, or undefined while it is not. */
  async revokedAt(db: Executor, tenantId: string, tokenJti: string): Promise<number | undefined> {
    const row = await db
      .selectFrom('physical_revocations')
      .select('revoked_at')
      .where('tenant_id', '=', tenantId)
      .where('token_jti', '=', tokenJti)
      .executeTakeFirst();
    return row?.revoked_at;
  },

  /** The tenant's latest revocation time, or null before its first revocation. */
  async latestRevokedAt(db: Executor, tenantId: string): Promise<number | null> {
    const row = await db
      .selectFrom('physical_revocations')
      .select('revoked_at')
      .where('tenant_id', '=', tenantId)
      .orderBy('revoked_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.revoked_at ?? null;
  },

  async insert(
    trx: Executor,
    revocation: {
      tenantId: string;
      tokenJti: string;
      revokedAtMs: number;
      reason: string;
      revokedBy: string;
    },
  ): Promise<void> {
    await trx
      .insertInto('physical_revocations')
      .values({
        tenant_id: revocation.tenantId,
        token_jti: revocation.tokenJti,
        revoked_at: revocation.revokedAtMs,
        reason: revocation.reason,
        revoked_by: revocation.revokedBy,
      })
      .execute();
  },

  /** Revocations with `revokedAtMs > sinceMs`, oldest first, at most `limit`. */
  async since(db: Executor, tenantId: string, sinceMs: number, limit: number): Promise<Revocation[]> {
    const rows = await db
      .selectFrom('physical_revocations')
      .select(['token_jti', 'revoked_at', 'reason'])
      .where('tenant_id', '=', tenantId)
      .where('revoked_at', '>', sinceMs)
      .orderBy('revoked_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ tokenJti: row.token_jti, revokedAtMs: row.revoked_at, reason: row.reason }));
  },

  /** The revocations of some tokens, by jti. */
  async ofTokens(
    db: Executor,
    tenantId: string,
    jtis: readonly string[],
  ): Promise<Map<string, { revokedAtMs: number; reason: string }>> {
    const revocations = new Map<string, { revokedAtMs: number; reason: string }>();
    if (jtis.length === 0) return revocations;
    const rows = await db
      .selectFrom('physical_revocations')
      .select(['token_jti', 'revoked_at', 'reason'])
      .where('tenant_id', '=', tenantId)
      .where('token_jti', 'in', [...jtis])
      .execute();
    for (const row of rows)
      revocations.set(row.token_jti, { revokedAtMs: row.revoked_at, reason: row.reason });
    return revocations;
  },
};
