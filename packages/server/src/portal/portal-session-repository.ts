import type { Executor } from '../storage/database.js';

/** A session with what authentication needs of its user. */
export interface SessionWithUser {
  tenantId: string;
  userId: string;
  createdAtMs: number;
  lastSeenAtMs: number;
  mfaVerified: boolean;
  role: string;
  totpEnrolled: boolean;
}

/** `portal_sessions`, keyed by (tenant, SHA-256 of the session id); the id itself is never stored. */
export const portalSessionRepository = {
  async insert(
    trx: Executor,
    session: { tenantId: string; sessionHash: string; userId: string; createdAtMs: number },
  ): Promise<void> {
    await trx
      .insertInto('portal_sessions')
      .values({
        tenant_id: session.tenantId,
        session_hash: session.sessionHash,
        user_id: session.userId,
        created_at: session.createdAtMs,
        last_seen_at: session.createdAtMs,
        mfa_verified: 0,
        mfa_failures: 0,
      })
      .execute();
  },

  /** The session of a hash, before its tenant is known (the hash is unique in practice). */
  async findWithUser(db: Executor, sessionHash: string): Promise<SessionWithUser | undefined> {
    const row = await db
      .selectFrom('portal_sessions as s')
      .innerJoin('portal_users as u', (join) =>
        join.onRef('u.tenant_id', '=', 's.tenant_id').onRef('u.id', '=', 's.user_id'),
      )
      .select([
        's.tenant_id',
        's.user_id',
        's.created_at',
        's.last_seen_at',
        's.mfa_verified',
        'u.role',
        'u.totp_secret',
      ])
      .where('s.session_hash', '=', sessionHash)
      .executeTakeFirst();
    return (
      row && {
        tenantId: row.tenant_id,
        userId: row.user_id,
        createdAtMs: row.created_at,
        lastSeenAtMs: row.last_seen_at,
        mfaVerified: row.mfa_verified === 1,
        role: row.role,
        totpEnrolled: row.totp_secret !== null,
      }
    );
  },

  /** Records activity, never moving it back. */
  async touch(db: Executor, tenantId: string, sessionHash: string, now: number): Promise<void> {
    await db
      .updateTable('portal_sessions')
      .set({ last_seen_at: now })
      .where('tenant_id', '=', tenantId)
      .where('session_hash', '=', sessionHash)
      .where('last_seen_at', '<', now)
      .execute();
  },

  /**
   * The session passed its second factor: verified, its failures forgotten, and its key replaced
   * by the hash of a new session id (the old id ends, so one learnt before the factor is useless).
   */
  async markMfaVerified(
    trx: Executor,
    tenantId: string,
    sessionHash: string,
    newSessionHash: string,
  ): Promise<void> {
    await trx
      .updateTable('portal_sessions')
      .set({ session_hash: newSessionHash, mfa_verified: 1, mfa_failures: 0 })
      .where('tenant_id', '=', tenantId)
      .where('session_hash', '=', sessionHash)
      .execute();
  },

  /** Wrong second-factor codes the session sent so far; undefined when it no longer exists. */
  async mfaFailures(db: Executor, tenantId: string, sessionHash: string): Promise<number | undefined> {
    const row = await db
      .selectFrom('portal_sessions')
      .select('mfa_failures')
      .where('tenant_id', '=', tenantId)
      .where('session_hash', '=', sessionHash)
      .executeTakeFirst();
    return row?.mfa_failures;
  },

  async setMfaFailures(
    trx: Executor,
    tenantId: string,
    sessionHash: string,
    failures: number,
  ): Promise<void> {
    await trx
      .updateTable('portal_sessions')
      .set({ mfa_failures: failures })
      .where('tenant_id', '=', tenantId)
      .where('session_hash', '=', sessionHash)
      .execute();
  },

  async delete(db: Executor, tenantId: string, sessionHash: string): Promise<void> {
    await db
      .deleteFrom('portal_sessions')
      .where('tenant_id', '=', tenantId)
      .where('session_hash', '=', sessionHash)
      .execute();
  },
};
