import type { Executor } from '../storage/database.js';
import type { LogKeysTable } from '../storage/transparency-schema.js';

/** A tenant's log key as stored: its origin, public key (base64) and sealed seed. */
export interface StoredLogKey {
  tenantId: string;
  origin: string;
  publicKey: string;
  sealedSeed: string;
  createdAt: number;
}

function fromRow(row: LogKeysTable): StoredLogKey {
  return {
    tenantId: row.tenant_id,
    origin: row.origin,
    publicKey: row.public_key,
    sealedSeed: row.private_key,
    createdAt: row.created_at,
  };
}

/** One Ed25519 log key per tenant (contract §15), created once and never replaced. */
export const logKeyRepository = {
  async get(db: Executor, tenantId: string): Promise<StoredLogKey | undefined> {
    const row = await db
      .selectFrom('log_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  },

  /** Stores the key unless the tenant has one already (two instances raced): the first stays. */
  async insertIfAbsent(db: Executor, key: StoredLogKey): Promise<void> {
    await db
      .insertInto('log_keys')
      .values({
        tenant_id: key.tenantId,
        origin: key.origin,
        public_key: key.publicKey,
        private_key: key.sealedSeed,
        created_at: key.createdAt,
      })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
  },
};
