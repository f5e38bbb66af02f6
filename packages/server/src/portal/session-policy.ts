import { PRIVILEGED_ROLES, type Role } from '../identity/permissions.js';

/** Contract section 2: a portal session ends after 30 minutes without a request, or 12 hours after login. */
export const IDLE_TIMEOUT_MS = 30 * 60_000;
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60_000;
/** Wrong second-factor codes a session may send before it is ended (6 digits must not be guessable). */
export const MAX_MFA_FAILURES = 5;
/**
 * Wrong codes a user may send in a row, over all of its sessions, before its second factor is
 * locked for {@link MFA_LOCK_MS}: ending a session alone would let a holder of the password log in
 * again for five more guesses, without end.
 */
export const MAX_ACCOUNT_MFA_FAILURES = 20;
export const MFA_LOCK_MS = 15 * 60_000;

/**
 * The user's counters after one more wrong code: the count grows, and reaching the limit locks the
 * second factor until `now + MFA_LOCK_MS` and starts the count again. Pure.
 */
export function afterMfaFailure(
  failures: number,
  now: number,
): { failures: number; lockedUntil: number | null } {
  const count = failures + 1;
  return count >= MAX_ACCOUNT_MFA_FAILURES
    ? { failures: 0, lockedUntil: now + MFA_LOCK_MS }
    : { failures: count, lockedUntil: null };
}

export type SessionState = 'active' | 'idle_timeout' | 'absolute_timeout';

/** Whether a session is still usable at `now`. Pure. */
export function sessionState(session: { createdAt: number; lastSeenAt: number }, now: number): SessionState {
  if (now - session.createdAt >= ABSOLUTE_TIMEOUT_MS) return 'absolute_timeout';
  if (now - session.lastSeenAt >= IDLE_TIMEOUT_MS) return 'idle_timeout';
  return 'active';
}

/** When the session must pass POST /portal/mfa: a privileged role, or a user who enrolled a second factor. */
export function mfaRequired(role: Role, totpEnrolled: boolean): boolean {
  return totpEnrolled || PRIVILEGED_ROLES.includes(role);
}

/** When the session may not use routes outside /portal/* yet (contract section 2: 403 MFA_REQUIRED). */
export function mfaBlocks(session: { mfaRequired: boolean; mfaVerified: boolean }): boolean {
  return session.mfaRequired && !session.mfaVerified;
}
