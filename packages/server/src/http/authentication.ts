import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { secretsEqual } from '../tenancy/api-key-secret.js';
import type { Authenticator } from '../tenancy/authenticator.js';
import type { Permission } from '../tenancy/permissions.js';
import type { Principal } from '../tenancy/principal.js';
import { TENANT_ID_PATTERN } from '../tenancy/tenant.js';

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) {
    throw new AppError('UNAUTHORIZED', `The ${name} header was sent more than once`, {
      reason: 'conflicting_credentials',
    });
  }
  return value;
}

/** The API key a request presents, from `Authorization: Bearer` or `x-api-key` (never both, unless equal). */
function presentedKey(request: FastifyRequest): string {
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
  const session = singleHeader(request, 'x-portal-session-id');
  if (key !== undefined && key !== '' && session !== undefined) {
    throw new AppError('UNAUTHORIZED', 'Two different credentials were sent', {
      reason: 'conflicting_credentials',
    });
  }
  if (key === undefined || key === '') {
    if (session !== undefined)
      throw new AppError('INVALID_PORTAL_SESSION', undefined, { reason: 'invalid_portal_session' });
    throw new AppError('UNAUTHORIZED', 'An API key is required', { reason: 'missing_credential' });
  }
  return key;
}

/**
 * Credential then tenant header then permission, in the order of contract section 1. Runs before
 * the body is read.
 */
export async function authenticateTenantRequest(
  request: FastifyRequest,
  authenticator: Authenticator,
  permission: Permission | 'any',
): Promise<Principal> {
  const principal = await authenticator.authenticate(presentedKey(request));
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
  if (permission !== 'any' && !principal.permissions.has(permission)) {
    throw new AppError('FORBIDDEN', `This route requires the permission ${permission}`, { permission });
  }
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
