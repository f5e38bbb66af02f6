import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { allowlistAllows, type CidrBlock } from '../foundation/ip-allowlist.js';
import type { PortalUserPrincipal, Principal } from '../identity/principal.js';
import { mfaBlocks } from '../portal/session-policy.js';
import { secretsEqual } from '../tenancy/api-key-secret.js';
import type { Authenticator } from '../tenancy/authenticator.js';
import { TENANT_ID_PATTERN } from '../tenancy/tenant.js';
import type { TenantAccessService } from '../tenancy/tenant-access.js';
import type { Access } from './access.js';
import { requestAddress } from './client-address.js';
import { planLimit } from './rate-limit/limits.js';
import { isUnlimitedRoute, type RateLimiter } from './rate-limit/rate-limiter.js';

/**
 * A credential header sent at most once. Node's parser hides a repeated header: it keeps the first
 * `Authorization` and drops the others, and joins repeated custom headers with ", ", so the
 * repetition is counted in the raw headers.
 */
function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || sentMoreThanOnce(request.raw.rawHeaders, name)) {
    throw new AppError('UNAUTHORIZED', `The ${name} header was sent more than once`, {
      reason: 'conflicting_credentials',
    });
  }
  return value;
}

function sentMoreThanOnce(rawHeaders: readonly string[], name: string): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const header = rawHeaders[i] as string;
    if (header.length === name.length && header.toLowerCase() === name && ++seen > 1) return true;
  }
  return false;
}

type PresentedCredential = { kind: 'api_key'; key: string } | { kind: 'portal_session'; sessionId: string };

/**
 * The one credential a request presents: an API key (`Authorization: Bearer` or `x-api-key`, both
 * only when equal) or a portal session (`x-portal-session-id`), never both.
 */
function presentedCredential(request: FastifyRequest): PresentedCredential {
  const authorization = singleHeader(request, 'authorization');
  const headerKey = singleHeader(request, 'x-api-key')?.trim();
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match?.[1]) {
      throw new AppError('UNAUTHORIZED', 'The Authorization header must be "Bearer <API key>"', {
        reason: 'malformed_authorization',
      });
    }
    bearer = match[1];
  }
  if (bearer !== undefined && headerKey !== undefined && bearer !== headerKey) {
    throw new AppError('UNAUTHORIZED', 'Two different credentials were sent', {
      reason: 'conflicting_credentials',
    });
  }
  const key = bearer ?? headerKey;
  const session = singleHeader(request, 'x-portal-session-id')?.trim();
  if (key !== undefined && key !== '' && session !== undefined) {
    throw new AppError('UNAUTHORIZED', 'Two different credentials were sent', {
      reason: 'conflicting_credentials',
    });
  }
  if (key !== undefined && key !== '') return { kind: 'api_key', key };
  if (session !== undefined) return { kind: 'portal_session', sessionId: session };
  throw new AppError('UNAUTHORIZED', 'An API key or a portal session is required', {
    reason: 'missing_credential',
  });
}

function checkTenantHeader(request: FastifyRequest, principal: Principal): void {
  const tenantHeader = request.headers['x-tenant-id'];
  if (tenantHeader === undefined) {
    throw new AppError('UNAUTHORIZED', 'The x-tenant-id header is required', {
      reason: 'tenant_header_missing',
    });
  }
  if (typeof tenantHeader !== 'string' || !TENANT_ID_PATTERN.test(tenantHeader)) {
    throw new AppError('VALIDATION_ERROR', 'The x-tenant-id header is malformed', {
      issues: [{ path: 'headers/x-tenant-id', message: 'must match ^[a-z0-9][a-z0-9-]{1,62}$' }],
    });
  }
  if (tenantHeader !== principal.tenantId) {
    throw new AppError('TENANT_MISMATCH', 'The x-tenant-id header names another tenant than the credential');
  }
}

/** What the access checks need; built once per server. */
export interface AccessControl {
  authenticator: Authenticator;
  portal: { authenticate(sessionId: string): Promise<PortalUserPrincipal> };
  tenantAccess: TenantAccessService;
  limiter: RateLimiter;
  trustProxy: readonly CidrBlock[];
  /** AUTHORITY_ADMIN_TOKEN; the admin routes exist only when it is set. */
  adminToken: string | undefined;
}

/**
 * Every check before the body is read, in the order of contract section 1: per-address limit 429
 * → credential 401 → tenant header 400/403 → IP allowlist 403 → MFA 403 → permission 403 → per-key
 * limit 429. Requests with a valid API key count against the key's plan budget (the 403s among
 * them too); every other request counts against its client address, once. Returns the principal,
 * or null on public and admin routes.
 */
export async function checkAccess(
  request: FastifyRequest,
  reply: FastifyReply,
  control: AccessControl,
  access: Access,
): Promise<Principal | null> {
  const { limiter } = control;
  const limitAddress = async () => {
    const spec = limiter.addressLimit(requestAddress(request, control.trustProxy));
    if (spec) await limiter.enforce(request, reply, [spec]);
  };

  if (access.kind === 'public' || access.kind === 'admin') {
    if (!isUnlimitedRoute(request.routeOptions.url)) await limitAddress();
    if (access.kind === 'admin') checkAdminToken(request, control.adminToken ?? '');
    return null;
  }

  let credential: PresentedCredential;
  try {
    credential = presentedCredential(request);
  } catch (error) {
    await limitAddress();
    throw error;
  }
  let principal: Principal;
  if (credential.kind === 'portal_session') {
    await limitAddress();
    principal = await control.portal.authenticate(credential.sessionId);
  } else {
    if (access.kind === 'portal') {
      await limitAddress();
      throw new AppError('UNAUTHORIZED', 'This route needs a portal session (x-portal-session-id)', {
        reason: 'portal_session_required',
      });
    }
    try {
      principal = await control.authenticator.authenticate(credential.key);
    } catch (error) {
      if (error instanceof AppError && error.status === 401) await limitAddress();
      throw error;
    }
  }

  const tenant = await control.tenantAccess.get(principal.tenantId);
  if (tenant === undefined) {
    throw new AppError('UNAUTHORIZED', 'The credential names no tenant', { reason: 'unknown_tenant' });
  }
  const keyLimitExceeded =
    principal.type === 'api_key'
      ? await limiter.count(request, reply, [
          {
            scope: 'key',
            key: `key:${principal.id}`,
            limit: planLimit(tenant.plan, tenant.rateLimitPerMinute),
          },
        ])
      : undefined;

  checkTenantHeader(request, principal);
  if (!allowlistAllows(tenant.allowlist, requestAddress(request, control.trustProxy))) {
    throw new AppError('IP_NOT_ALLOWED');
  }
  if (principal.type === 'portal_user' && access.kind === 'tenant' && mfaBlocks(principal.session)) {
    throw new AppError(
      'MFA_REQUIRED',
      'Verify the second factor first (POST /portal/mfa), or enroll one if you have none yet (POST /portal/mfa/enroll)',
    );
  }
  if (
    access.kind === 'tenant' &&
    access.permission !== 'any' &&
    !principal.permissions.has(access.permission)
  ) {
    throw new AppError('FORBIDDEN', `This route requires the permission ${access.permission}`, {
      permission: access.permission,
    });
  }
  if (keyLimitExceeded) limiter.reject(reply, keyLimitExceeded);
  return principal;
}

export function checkAdminToken(request: FastifyRequest, adminToken: string): void {
  const given = request.headers['x-admin-token'];
  if (typeof given !== 'string' || !secretsEqual(given, adminToken)) {
    throw new AppError('UNAUTHORIZED', 'A valid x-admin-token header is required', {
      reason: 'invalid_admin_token',
    });
  }
}

/** Body `tenantId` and `:tenantId` path segments must name the credential's tenant (403 otherwise). */
export function checkTenantReferences(request: FastifyRequest, principal: Principal): void {
  const params = request.params as Record<string, unknown> | undefined;
  if (typeof params?.tenantId === 'string' && params.tenantId !== principal.tenantId) {
    throw new AppError('TENANT_MISMATCH', 'The path names another tenant than the credential');
  }
  const body = request.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const bodyTenant = (body as Record<string, unknown>).tenantId;
    if (typeof bodyTenant === 'string' && bodyTenant !== principal.tenantId) {
      throw new AppError('TENANT_MISMATCH', 'The body names another tenant than the credential');
    }
  }
}
