import type { Executor } from '../storage/database.js';

/** `token_nonces`: every consumed token nonce; the primary key (tenant, nonce) allows one use. */
export const tokenNonceRepository = {
  /** Records the nonce as used; fails with a unique violation when it was used before. */
  async consume(
    trx: Executor,
    nonce: {
      tenantId: string;
      nonce: string;
      intentId: string | null;
      adapterId: string;
      consumedAtMs: number;
      expiresAtMs: number;
    },
  ): Promise<void> {
    await trx
      .insertInto('token_nonces')
      .values({
        tenant_id: nonce.tenantId,
        nonce: nonce.nonce,
        intent_id: nonce.intentId,
        adapter_id: nonce.adapterId,
        consumed_at: nonce.consumedAtMs,
        expires_at: nonce.expiresAtMs,
      })
      .execute();
  },

  /** Whether the nonce has been used (a nonce past its token's expiry may have been swept). */
  async isConsumed(db: Executor, tenantId: string, nonce: string): Promise<boolean> {
    const row = await db
      .selectFrom('token_nonces')
      .select('nonce')
      .where('tenant_id', '=', tenantId)
      .where('nonce', '=', nonce)
      .executeTakeFirst();
    return row !== undefined;
  },
};
