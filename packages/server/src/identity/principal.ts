import type { Permission, Role } from './permissions.js';

/** How a console session id begins (`ps_` and 43 base64url characters). */
export const PORTAL_SESSION_PREFIX = 'ps_';

interface PrincipalBase {
  id: string;
  tenantId: string;
  role: Role;
  /** The key's narrowing of its role; always null for portal users. */
  scopes: readonly Permission[] | null;
  permissions: ReadonlySet<Permission>;
}

/** A request made with an API key. */
export interface ApiKeyPrincipal extends PrincipalBase {
  type: 'api_key';
}

/** A request made by a console user through a portal session (`x-portal-session-id`). */
export interface PortalUserPrincipal extends PrincipalBase {
  type: 'portal_user';
  session: {
    /** SHA-256 of the session id: the stored key of the session row. */
    key: string;
    /** Privileged role or an enrolled second factor: the session must pass POST /portal/mfa. */
    mfaRequired: boolean;
    mfaVerified: boolean;
  };
}

/** Who makes a request: an API key or a portal user, of exactly one tenant. */
export type Principal = ApiKeyPrincipal | PortalUserPrincipal;
