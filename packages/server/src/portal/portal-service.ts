import { createHash, randomBytes } from 'node:crypto';
import { principalEvent } from '../audit/audit-entry.js';
import { appendAudit } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { AppError } from '../errors/app-error.js';
import type { Storage } from '../storage/database.js';
import { allowlistAllows } from '../tenancy/ip-allowlist.js';
import { effectivePermissions, isRole, type Role } from '../tenancy/permissions.js';
import type { PortalUserPrincipal } from '../tenancy/principal.js';
import type { TenantAccessService } from '../tenancy/tenant-access.js';
import { dummyPasswordHash, verifyPassword } from './password-hash.js';
import { normalizeEmail } from './portal-users.js';
import { ABSOLUTE_TIMEOUT_MS, MAX_MFA_FAILURES, mfaRequired, sessionState } from './session-policy.js';
import { base32Encode, generateTotpSecret, matchTotp, otpauthUri } from './totp.js';

const SESSION_PREFIX = 'ps_';
/** `ps_` and 32 random bytes in base64url. */
const SESSION_ID_PATTERN = /^ps_[A-Za-z0-9_-]{43}$/;
const TOTP_ISSUER = 'Authority Runtime';

export interface LoginRequest {
  tenantId: string;
  email: string;
  password: string;
}

export interface LoginResult {
  sessionId: string;
  mfaRequired: boolean;
  mfaEnrolled: boolean;
  expiresAt: string;
  user: { id: string; email: string; role: Role };
}

/** How stale a session's recorded activity may get before a request writes it again. */
const SEEN_WRITE_INTERVAL_MS = 60_000;
const hashSessionId = (sessionId: string): string => createHash('sha256').update(sessionId).digest('hex');
const newSessionId = (): string => SESSION_PREFIX + randomBytes(32).toString('base64url');
const totpContext = (tenantId: string, userId: string): string => `portal-totp:${tenantId}:${userId}`;

function invalidSession(reason: string): AppError {
  return new AppError('INVALID_PORTAL_SESSION', undefined, { reason });
}

/**
 * Console sign-in (contract section 2): password login, sessions with idle and absolute expiry,
 * TOTP enrollment and verification with one acceptance per time step, logout. Login failures are
 * audited as `portal.login.failed`.
 */
export function createPortalService(deps: {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  tenantAccess: TenantAccessService;
}) {
  const { storage, clock, secretBox, tenantAccess } = deps;

  async function auditLoginFailure(
    tenantId: string,
    userId: string | undefined,
    payload: { email: string; reason: string; clientAddress: string },
  ): Promise<void> {
    await storage.writeTransaction((trx) =>
      appendAudit(
        trx,
        storage.dialect,
        tenantId,
        [principalEvent({ id: userId ?? 'unknown', type: 'portal_user' }, 'portal.login.failed', payload)],
        clock(),
      ),
    );
  }

  async function userRow(principal: PortalUserPrincipal) {
    const row = await storage.db
      .selectFrom('portal_users')
      .select(['email', 'totp_secret', 'totp_pending_secret', 'last_totp_step'])
      .where('tenant_id', '=', principal.tenantId)
      .where('id', '=', principal.id)
      .executeTakeFirst();
    if (!row) throw invalidSession('unknown_user');
    return row;
  }

  return {
    async login(request: LoginRequest, clientAddress: string): Promise<LoginResult> {
      const email = normalizeEmail(request.email);
      const access = await tenantAccess.get(request.tenantId);
      const user =
        access === undefined
          ? undefined
          : await storage.db
              .selectFrom('portal_users')
              .select(['id', 'password_hash', 'role', 'totp_secret'])
              .where('tenant_id', '=', request.tenantId)
              .where('email', '=', email)
              .executeTakeFirst();
      // Unknown tenants and users cost a full verification too, so timing tells nothing.
      const passwordOk = await verifyPassword(
        request.password,
        user?.password_hash ?? (await dummyPasswordHash()),
      );
      if (access === undefined || user === undefined || !passwordOk || !isRole(user.role)) {
        if (access !== undefined) {
          const reason = user === undefined ? 'unknown_user' : 'wrong_password';
          await auditLoginFailure(request.tenantId, user?.id, { email, reason, clientAddress });
        }
        throw new AppError('UNAUTHORIZED', 'Wrong tenant, email or password', { reason: 'invalid_login' });
      }
      if (!allowlistAllows(access.allowlist, clientAddress)) {
        await auditLoginFailure(request.tenantId, user.id, {
          email,
          reason: 'ip_not_allowed',
          clientAddress,
        });
        throw new AppError('IP_NOT_ALLOWED');
      }

      const sessionId = newSessionId();
      const now = clock();
      const enrolled = user.totp_secret !== null;
      const required = mfaRequired(user.role, enrolled);
      await storage.writeTransaction(async (trx) => {
        await trx
          .insertInto('portal_sessions')
          .values({
            tenant_id: request.tenantId,
            session_hash: hashSessionId(sessionId),
            user_id: user.id,
            created_at: now,
            last_seen_at: now,
            mfa_verified: 0,
            mfa_failures: 0,
          })
          .execute();
        await appendAudit(
          trx,
          storage.dialect,
          request.tenantId,
          [
            principalEvent({ id: user.id, type: 'portal_user' }, 'portal.login.succeeded', {
              email,
              clientAddress,
              mfaRequired: required,
            }),
          ],
          now,
        );
      });
      return {
        sessionId,
        mfaRequired: required,
        mfaEnrolled: enrolled,
        expiresAt: new Date(now + ABSOLUTE_TIMEOUT_MS).toISOString(),
        user: { id: user.id, email, role: user.role },
      };
    },

    /** Resolves `x-portal-session-id` to its principal, or 401 INVALID_PORTAL_SESSION. */
    async authenticate(sessionId: string): Promise<PortalUserPrincipal> {
      if (!SESSION_ID_PATTERN.test(sessionId)) throw invalidSession('unknown_session');
      const key = hashSessionId(sessionId);
      const row = await storage.db
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
        .where('s.session_hash', '=', key)
        .executeTakeFirst();
      if (!row || !isRole(row.role)) throw invalidSession('unknown_session');
      const now = clock();
      const state = sessionState({ createdAt: row.created_at, lastSeenAt: row.last_seen_at }, now);
      if (state !== 'active') {
        await storage.db
          .deleteFrom('portal_sessions')
          .where('tenant_id', '=', row.tenant_id)
          .where('session_hash', '=', key)
          .execute();
        throw invalidSession(state);
      }
      // Activity is written at most once a minute, as API keys' lastUsedAt: a busy console does
      // not write on every request, and the idle timeout can only end up to a minute early.
      if (now - row.last_seen_at >= SEEN_WRITE_INTERVAL_MS) {
        await storage.db
          .updateTable('portal_sessions')
          .set({ last_seen_at: now })
          .where('tenant_id', '=', row.tenant_id)
          .where('session_hash', '=', key)
          .where('last_seen_at', '<', now)
          .execute();
      }
      return {
        type: 'portal_user',
        id: row.user_id,
        tenantId: row.tenant_id,
        role: row.role,
        scopes: null,
        permissions: effectivePermissions(row.role, null),
        session: {
          key,
          mfaRequired: mfaRequired(row.role, row.totp_secret !== null),
          mfaVerified: row.mfa_verified === 1,
        },
      };
    },

    /**
     * Hands out a new TOTP secret, active once POST /portal/mfa confirms a code from it. Replacing
     * an enrolled factor needs a session that has passed it (else 403 MFA_REQUIRED).
     */
    async enroll(principal: PortalUserPrincipal): Promise<{ otpauthUri: string; secret: string }> {
      const user = await userRow(principal);
      if (user.totp_secret !== null && !principal.session.mfaVerified) {
        throw new AppError('MFA_REQUIRED', 'Confirm the enrolled second factor before replacing it');
      }
      const secret = generateTotpSecret();
      await storage.db
        .updateTable('portal_users')
        .set({
          totp_pending_secret: secretBox.seal(secret, totpContext(principal.tenantId, principal.id)),
          updated_at: clock(),
        })
        .where('tenant_id', '=', principal.tenantId)
        .where('id', '=', principal.id)
        .execute();
      return {
        otpauthUri: otpauthUri(secret, `${user.email} (${principal.tenantId})`, TOTP_ISSUER),
        secret: base32Encode(secret),
      };
    },

    /**
     * Verifies a TOTP code for the session: against a pending secret (which it then enrolls) or the
     * enrolled one. A code is accepted once per step: the user's last accepted step only grows, in
     * a conditional update, so two instances cannot both accept it. Wrong codes count against the
     * session, which ends after MAX_MFA_FAILURES of them. An accepted code gives the session a new
     * id (returned once) and ends the old one, so an id learnt before the second factor (session
     * fixation) never carries the verified session.
     */
    async verifyMfa(
      principal: PortalUserPrincipal,
      code: string,
    ): Promise<{ mfaVerified: true; enrolled: boolean; sessionId: string }> {
      const now = clock();
      const outcome = await storage.writeTransaction(async (trx) => {
        const user = await trx
          .selectFrom('portal_users')
          .select(['totp_secret', 'totp_pending_secret', 'last_totp_step'])
          .where('tenant_id', '=', principal.tenantId)
          .where('id', '=', principal.id)
          .executeTakeFirst();
        if (!user) throw invalidSession('unknown_user');
        const usePending =
          user.totp_pending_secret !== null && (user.totp_secret === null || principal.session.mfaVerified);
        const sealed = usePending ? user.totp_pending_secret : user.totp_secret;
        if (sealed === null) {
          throw new AppError('CONFLICT', 'No second factor is enrolled: POST /portal/mfa/enroll first');
        }
        const secret = secretBox.open(sealed, totpContext(principal.tenantId, principal.id));
        const step = matchTotp(secret, code, now, user.last_totp_step);
        let accepted = false;
        if (step !== undefined) {
          const claimed = await trx
            .updateTable('portal_users')
            .set({
              last_totp_step: step,
              updated_at: now,
              ...(usePending ? { totp_secret: sealed, totp_pending_secret: null } : {}),
            })
            .where('tenant_id', '=', principal.tenantId)
            .where('id', '=', principal.id)
            .where((eb) => eb.or([eb('last_totp_step', 'is', null), eb('last_totp_step', '<', step)]))
            .executeTakeFirst();
          accepted = Number(claimed.numUpdatedRows) === 1;
        }
        const session = trx
          .updateTable('portal_sessions')
          .where('tenant_id', '=', principal.tenantId)
          .where('session_hash', '=', principal.session.key);
        if (accepted) {
          const sessionId = newSessionId();
          await session
            .set({ session_hash: hashSessionId(sessionId), mfa_verified: 1, mfa_failures: 0 })
            .execute();
          await appendAudit(
            trx,
            storage.dialect,
            principal.tenantId,
            [principalEvent(principal, usePending ? 'portal.mfa.enrolled' : 'portal.mfa.verified', {})],
            now,
          );
          return { accepted: true as const, enrolled: usePending, sessionId };
        }
        const failures = await trx
          .selectFrom('portal_sessions')
          .select('mfa_failures')
          .where('tenant_id', '=', principal.tenantId)
          .where('session_hash', '=', principal.session.key)
          .executeTakeFirst();
        const count = (failures?.mfa_failures ?? MAX_MFA_FAILURES) + 1;
        const ended = count >= MAX_MFA_FAILURES;
        if (ended) {
          await trx
            .deleteFrom('portal_sessions')
            .where('tenant_id', '=', principal.tenantId)
            .where('session_hash', '=', principal.session.key)
            .execute();
        } else {
          await session.set({ mfa_failures: count }).execute();
        }
        // A right code of a step already used (by this request's race or an earlier one) is a replay.
        const replayed = step !== undefined || matchTotp(secret, code, now, null) !== undefined;
        const reason = replayed ? 'mfa_code_already_used' : 'invalid_mfa_code';
        await appendAudit(
          trx,
          storage.dialect,
          principal.tenantId,
          [principalEvent(principal, 'portal.mfa.failed', { reason, sessionEnded: ended })],
          now,
        );
        return { accepted: false as const, reason, ended };
      });
      if (!outcome.accepted) {
        throw new AppError(
          'UNAUTHORIZED',
          outcome.ended
            ? 'Wrong second-factor code; too many failures, the session has ended'
            : 'Wrong or already used second-factor code',
          { reason: outcome.reason },
        );
      }
      return { mfaVerified: true, enrolled: outcome.enrolled, sessionId: outcome.sessionId };
    },

    async logout(principal: PortalUserPrincipal): Promise<void> {
      await storage.db
        .deleteFrom('portal_sessions')
        .where('tenant_id', '=', principal.tenantId)
        .where('session_hash', '=', principal.session.key)
        .execute();
    },
  };
}

export type PortalService = ReturnType<typeof createPortalService>;
