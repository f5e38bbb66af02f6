import type { Permission } from '../identity/permissions.js';
import type { Principal } from '../identity/principal.js';

/**
 * What a route requires, declared on every route as `config.access`:
 * - `public`: no credential and no tenant header (health, JWKS, docs).
 * - `admin`: the `x-admin-token` header and no tenant header.
 * - `tenant`: a credential (API key or portal session), the `x-tenant-id` header, and the named
 *   permission (`any` for routes open to every valid credential, such as `GET /tenant`).
 * - `portal`: a portal session and the `x-tenant-id` header, before its second factor is verified
 *   (`/portal/mfa`, `/portal/mfa/enroll`, `/portal/logout`).
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'admin' }
  | { kind: 'tenant'; permission: Permission | 'any' }
  | { kind: 'portal' };

export const PUBLIC: Access = { kind: 'public' };
export const ADMIN: Access = { kind: 'admin' };
export const PORTAL_SESSION: Access = { kind: 'portal' };
export function needs(permission: Permission | 'any'): { access: Access } {
  return { access: { kind: 'tenant', permission } };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** Set by authentication on `tenant` and `portal` routes; null on public and admin routes. */
    principal: Principal | null;
  }
}
