import { createHash, randomBytes } from 'node:crypto';
import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import { allowlistAllows } from '../foundation/ip-allowlist.js';
import { effectivePermissions, isRole, type Role } from '../identity/permissions.js';
import { PORTAL_SESSION_PREFIX, type PortalUserPrincipal } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import type { TenantAccessService } from '../tenancy/tenant-access.js';
import { dummyPasswordHash, verifyPassword } from './password-hash.js';
import { portalSessionRepository } from './portal-session-repository.js';
import { portalUserRepository } from './portal-user-repository.js';
import { normalizeEmail } from './portal-users.js';
import {
  ABSOLUTE_TIMEOUT_MS,
  afterMfaFailure,
  MAX_ACCOUNT_MFA_FAILURES,
  MAX_MFA_FAILURES,
  mfaRequired,
  sessionState,
} from './session-policy.js';
import { base32Encode, generateTotpSecret, matchTotp, otpauthUri } from './totp.js';

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
const newSessionId = (): string => PORTAL_SESSION_PREFIX + randomBytes(32).toString('base64url');
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
      chainRepository.append(
        trx,
        tenantId,
        [principalEvent({ id: userId ?? 'unknown', type: 'portal_user' }, 'portal.login.failed', payload)],
        clock(),
      ),
    );
  }

  async function userOf(principal: PortalUserPrincipal) {
    const user = await portalUserRepository.get(storage.db, principal.tenantId, principal.id);
    if (!user) throw invalidSession('unknown_user');
    return user;
  }

  return {
    async login(request: LoginRequest, clientAddress: string): Promise<LoginResult> {
      const email = normalizeEmail(request.email);
      const access = await tenantAccess.get(request.tenantId);
      const user =
        access === undefined
          ? undefined
          : await portalUserRepository.findByEmail(storage.db, request.tenantId, email);
      // Unknown tenants and users cost a full verification too, so timing tells nothing.
      const passwordOk = await verifyPassword(
        request.password,
        user?.passwordHash ?? (await dummyPasswordHash()),
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
      const enrolled = user.totpSecret !== null;
      const required = mfaRequired(user.role, enrolled);
      await storage.writeTransaction(async (trx) => {
        await portalSessionRepository.insert(trx, {
          tenantId: request.tenantId,
          sessionHash: hashSessionId(sessionId),
          userId: user.id,
          createdAtMs: now,
        });
        await chainRepository.append(
          trx,
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
      const row = await portalSessionRepository.findWithUser(storage.db, key);
      if (!row || !isRole(row.role)) throw invalidSession('unknown_session');
      const now = clock();
      const state = sessionState({ createdAt: row.createdAtMs, lastSeenAt: row.lastSeenAtMs }, now);
      if (state !== 'active') {
        await portalSessionRepository.delete(storage.db, row.tenantId, key);
        throw invalidSession(state);
      }
      // Activity is written at most once a minute, as API keys' lastUsedAt: a busy console does
      // not write on every request, and the idle timeout can only end up to a minute early.
      if (now - row.lastSeenAtMs >= SEEN_WRITE_INTERVAL_MS) {
        await portalSessionRepository.touch(storage.db, row.tenantId, key, now);
      }
      return {
        type: 'portal_user',
        id: row.userId,
        tenantId: row.tenantId,
        role: row.role,
        scopes: null,
        permissions: effectivePermissions(row.role, null),
        session: {
          key,
          mfaRequired: mfaRequired(row.role, row.totpEnrolled),
          mfaVerified: row.mfaVerified,
        },
      };
    },

    /**
     * Hands out a new TOTP secret, active once POST /portal/mfa confirms a code from it. Replacing
     * an enrolled factor needs a session that has passed it (else 403 MFA_REQUIRED).
     */
    async enroll(principal: PortalUserPrincipal): Promise<{ otpauthUri: string; secret: string }> {
      const user = await userOf(principal);
      if (user.totpSecret !== null && !principal.session.mfaVerified) {
        throw new AppError('MFA_REQUIRED', 'Confirm the enrolled second factor before replacing it');
      }
      const secret = generateTotpSecret();
      await portalUserRepository.setPendingTotpSecret(
        storage.db,
        principal.tenantId,
        principal.id,
        secretBox.seal(secret, totpContext(principal.tenantId, principal.id)),
        clock(),
      );
      return {
        otpauthUri: otpauthUri(secret, `${user.email} (${principal.tenantId})`, TOTP_ISSUER),
        secret: base32Encode(secret),
      };
    },

    /**
     * Verifies a TOTP code for the session: against a pending secret (which it then enrolls) or the
     * enrolled one. A code is accepted once per step: the user's last accepted step only grows, in
     * a conditional update, so two instances cannot both accept it. Wrong codes count against the
     * session, which ends after MAX_MFA_FAILURES of them, and against the user across sessions: after
     * MAX_ACCOUNT_MFA_FAILURES in a row the second factor judges no code for MFA_LOCK_MS (429). An accepted code gives the session a new
     * id (returned once) and ends the old one, so an id learnt before the second factor (session
     * fixation) never carries the verified session.
     */
    async verifyMfa(
      principal: PortalUserPrincipal,
      code: string,
    ): Promise<{ mfaVerified: true; enrolled: boolean; sessionId: string }> {
      const now = clock();
      const outcome = await storage.writeTransaction(async (trx) => {
        // Codes sent at once are judged one at a time under the tenant's head lock, each against
        // the failures its predecessors counted, and none once they have ended the session
        // (PostgreSQL would otherwise read the same count in each and lose increments).
        await chainRepository.lockHead(trx, principal.tenantId, now);
        const failures = await portalSessionRepository.mfaFailures(
          trx,
          principal.tenantId,
          principal.session.key,
        );
        if (failures === undefined) throw invalidSession('unknown_session');
        const user = await portalUserRepository.get(trx, principal.tenantId, principal.id);
        if (!user) throw invalidSession('unknown_user');
        if (user.mfaLockedUntilMs !== null && user.mfaLockedUntilMs > now) {
          // No code is judged while locked, so a guess learns nothing, right or wrong.
          const retryAfterSeconds = Math.ceil((user.mfaLockedUntilMs - now) / 1000);
          return { accepted: false as const, locked: retryAfterSeconds };
        }
        const usePending =
          user.totpPendingSecret !== null && (user.totpSecret === null || principal.session.mfaVerified);
        const sealed = usePending ? user.totpPendingSecret : user.totpSecret;
        if (sealed === null) {
          throw new AppError('CONFLICT', 'No second factor is enrolled: POST /portal/mfa/enroll first');
        }
        const secret = secretBox.open(sealed, totpContext(principal.tenantId, principal.id));
        const step = matchTotp(secret, code, now, user.lastTotpStep);
        let accepted = false;
        if (step !== undefined) {
          accepted = await portalUserRepository.acceptTotpStep(trx, principal.tenantId, principal.id, {
            step,
            now,
            enroll: usePending ? sealed : undefined,
          });
        }
        if (accepted) {
          const sessionId = newSessionId();
          await portalSessionRepository.markMfaVerified(
            trx,
            principal.tenantId,
            principal.session.key,
            hashSessionId(sessionId),
          );
          await chainRepository.append(
            trx,
            principal.tenantId,
            [principalEvent(principal, usePending ? 'portal.mfa.enrolled' : 'portal.mfa.verified', {})],
            now,
          );
          return { accepted: true as const, enrolled: usePending, sessionId };
        }
        const count = failures + 1;
        const ended = count >= MAX_MFA_FAILURES;
        if (ended) {
          await portalSessionRepository.delete(trx, principal.tenantId, principal.session.key);
        } else {
          await portalSessionRepository.setMfaFailures(trx, principal.tenantId, principal.session.key, count);
        }
        const account = afterMfaFailure(user.mfaFailures, now);
        await portalUserRepository.setMfaFailures(trx, principal.tenantId, principal.id, { ...account, now });
        // A right code of a step already used (by this request's race or an earlier one) is a replay.
        const replayed = step !== undefined || matchTotp(secret, code, now, null) !== undefined;
        const reason = replayed ? 'mfa_code_already_used' : 'invalid_mfa_code';
        const events = [principalEvent(principal, 'portal.mfa.failed', { reason, sessionEnded: ended })];
        if (account.lockedUntil !== null) {
          events.push(
            principalEvent(principal, 'portal.mfa.locked', {
              failures: MAX_ACCOUNT_MFA_FAILURES,
              lockedUntil: new Date(account.lockedUntil).toISOString(),
            }),
          );
        }
        await chainRepository.append(trx, principal.tenantId, events, now);
        return { accepted: false as const, reason, ended };
      });
      if (!outcome.accepted && 'locked' in outcome) {
        throw new AppError(
          'RATE_LIMITED',
          `Too many wrong second-factor codes in a row for this user: the second factor accepts no code for ${outcome.locked} s`,
          { limit: 'mfa_account', retryAfterSeconds: outcome.locked },
        );
      }
      if (!outcome.accepted) {
        throw new AppError(
          'UNAUTHORIZED',
          outcome.ended
            ? 'Wrong second-factor code; too many failures, the session has ended'
            : 'Wrong or already used second-factor code',
          { reason: outcome.reason, ...(outcome.ended ? { sessionEnded: true } : {}) },
        );
      }
      return { mfaVerified: true, enrolled: outcome.enrolled, sessionId: outcome.sessionId };
    },

    async logout(principal: PortalUserPrincipal): Promise<void> {
      await portalSessionRepository.delete(storage.db, principal.tenantId, principal.session.key);
    },
  };
}

export type PortalService = ReturnType<typeof createPortalService>;
