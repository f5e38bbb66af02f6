/**
 * The portal session (contract §2, §14), kept in sessionStorage: it lives as long as the tab, is
 * never sent automatically (no cookie, so no CSRF surface), and goes with the header
 * `x-portal-session-id` on each API request.
 */
export interface PortalUser {
  id: string;
  email: string;
  role: string;
}

export interface Session {
  sessionId: string;
  tenantId: string;
  user: PortalUser;
  /** The server asks for a TOTP code before any route outside /portal/*. */
  mfaRequired: boolean;
  mfaEnrolled: boolean;
  /** A code was accepted in this session. */
  mfaVerified: boolean;
  /** Absolute end of the session (12 h after sign-in). */
  expiresAt: string;
}

const KEY = 'authority-console.session';
const NOTICE_KEY = 'authority-console.notice';

function isSession(value: unknown): value is Session {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return typeof s.sessionId === 'string' && typeof s.tenantId === 'string' && typeof s.user === 'object';
}

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(KEY);
  if (raw === null) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isSession(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** A message for the sign-in page (why the last session ended), read once. */
export function setNotice(message: string): void {
  sessionStorage.setItem(NOTICE_KEY, message);
}

export function takeNotice(): string | null {
  const message = sessionStorage.getItem(NOTICE_KEY);
  sessionStorage.removeItem(NOTICE_KEY);
  return message;
}

/** Why a session ended, from the server's `details.reason`, in words. */
export function endedBecause(reason: string | undefined): string {
  switch (reason) {
    case 'idle_timeout':
      return 'Your session ended after 30 minutes without activity. Sign in again.';
    case 'absolute_timeout':
      return 'Your session reached its 12-hour limit. Sign in again.';
    case 'local_idle':
      return 'You were signed out after 30 minutes without activity. Sign in again.';
    case 'invalid_mfa_code':
      return 'Too many wrong second-factor codes: the session has ended. Sign in again.';
    default:
      return 'Your session is no longer valid (it was ended or has expired). Sign in again.';
  }
}
