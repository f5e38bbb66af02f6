import type { Role } from '../identity/permissions.js';
import type { Executor } from '../storage/database.js';

/** A console user as stored: the password hash and TOTP secrets (sealed) included. */
export interface StoredPortalUser {
  tenantId: string;
  id: string;
  email: string;
  passwordHash: string;
  role: string;
  /** The enrolled TOTP secret, sealed; null until enrollment is confirmed. */
  totpSecret: string | null;
  /** A TOTP secret handed out and not yet confirmed by a code, sealed. */
  totpPendingSecret: string | null;
  /** The last TOTP time step accepted. */
  lastTotpStep: number | null;
  /** Wrong second-factor codes in a row, over every session. */
  mfaFailures: number;
  /** Until when the second factor refuses every code; null when it is not locked. */
  mfaLockedUntilMs: number | null;
  createdAtMs: number;
}

const COLUMNS = [
  'tenant_id',
  'id',
  'email',
  'password_hash',
  'role',
  'totp_secret',
  'totp_pending_secret',
  'last_totp_step',
  'mfa_failures',
  'mfa_locked_until',
  'created_at',
] as const;

function toUser(row: {
  tenant_id: string;
  id: string;
  email: string;
  password_hash: string;
  role: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  last_totp_step: number | null;
  mfa_failures: number;
  mfa_locked_until: number | null;
  created_at: number;
}): StoredPortalUser {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    role: row.role,
    totpSecret: row.totp_secret,
    totpPendingSecret: row.totp_pending_secret,
    lastTotpStep: row.last_totp_step,
    mfaFailures: row.mfa_failures,
    mfaLockedUntilMs: row.mfa_locked_until,
    createdAtMs: row.created_at,
  };
}

/** `portal_users`: each tenant's console users, unique by (tenant, lower-cased email). */
export const portalUserRepository = {
  /** Fails with a unique violation when the tenant has the email already. */
  async insert(
    trx: Executor,
    user: {
      tenantId: string;
      id: string;
      email: string;
      passwordHash: string;
      role: Role;
      createdAtMs: number;
    },
  ): Promise<void> {
    await trx
      .insertInto('portal_users')
      .values({
        tenant_id: user.tenantId,
        id: user.id,
        email: user.email,
        password_hash: user.passwordHash,
        role: user.role,
        totp_secret: null,
        totp_pending_secret: null,
        last_totp_step: null,
        created_at: user.createdAtMs,
        updated_at: user.createdAtMs,
      })
      .execute();
  },

  async get(db: Executor, tenantId: string, id: string): Promise<StoredPortalUser | undefined> {
    const row = await db
      .selectFrom('portal_users')
      .select(COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toUser(row);
  },

  async findByEmail(db: Executor, tenantId: string, email: string): Promise<StoredPortalUser | undefined> {
    const row = await db
      .selectFrom('portal_users')
      .select(COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('email', '=', email)
      .executeTakeFirst();
    return row && toUser(row);
  },

  /** The tenant's users, by email. */
  async list(db: Executor, tenantId: string): Promise<StoredPortalUser[]> {
    const rows = await db
      .selectFrom('portal_users')
      .select(COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('email')
      .execute();
    return rows.map(toUser);
  },

  async setPendingTotpSecret(
    db: Executor,
    tenantId: string,
    id: string,
    sealed: string,
    now: number,
  ): Promise<void> {
    await db
      .updateTable('portal_users')
      .set({ totp_pending_secret: sealed, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  /** Sets the count of wrong second-factor codes in a row and the lock they led to (null: none). */
  async setMfaFailures(
    trx: Executor,
    tenantId: string,
    id: string,
    state: { failures: number; lockedUntil: number | null; now: number },
  ): Promise<void> {
    await trx
      .updateTable('portal_users')
      .set({ mfa_failures: state.failures, mfa_locked_until: state.lockedUntil, updated_at: state.now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  /**
   * Accepts a TOTP step if it is later than the last one accepted (the conditional update is what
   * makes a code count once, even across instances); `enroll` makes the pending secret the
   * enrolled one. An accepted code clears the user's count of wrong ones. True when this call
   * accepted it.
   */
  async acceptTotpStep(
    trx: Executor,
    tenantId: string,
    id: string,
    accepted: { step: number; now: number; enroll?: string | undefined },
  ): Promise<boolean> {
    const claimed = await trx
      .updateTable('portal_users')
      .set({
        last_totp_step: accepted.step,
        mfa_failures: 0,
        mfa_locked_until: null,
        updated_at: accepted.now,
        ...(accepted.enroll !== undefined ? { totp_secret: accepted.enroll, totp_pending_secret: null } : {}),
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_totp_step', 'is', null), eb('last_totp_step', '<', accepted.step)]))
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  },
};
