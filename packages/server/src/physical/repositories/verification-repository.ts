import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { PhysicalVerificationsTable } from '../../storage/physical-schema.js';

/** `physical_verifications`: what edge verifiers reported about issued tokens. */
export const verificationRepository = {
  async insert(trx: Executor, rows: readonly PhysicalVerificationsTable[]): Promise<void> {
    if (rows.length > 0)
      await trx
        .insertInto('physical_verifications')
        .values([...rows])
        .execute();
  },

  /** The most recent `perToken` reports of each token among `jtis`, oldest first. */
  async recentOfTokens(
    db: Executor,
    tenantId: string,
    jtis: readonly string[],
    perToken: number,
  ): Promise<PhysicalVerificationsTable[]> {
    if (jtis.length === 0) return [];
    const ranked = db
      .selectFrom('physical_verifications')
      .selectAll()
      .select(sql<number>`row_number() over (partition by token_jti order by id desc)`.as('rank'))
      .where('tenant_id', '=', tenantId)
      .where('token_jti', 'in', [...jtis])
      .as('ranked');
    const rows = await db
      .selectFrom(ranked)
      .selectAll()
      .where('rank', '<=', perToken)
      .orderBy('id')
      .execute();
    return rows.map(({ rank: _rank, ...row }) => row);
  },
};
