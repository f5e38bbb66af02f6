import { v7 as uuidv7 } from 'uuid';
import type { AuditEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { AppError, type ValidationIssue, validationError } from '../errors/app-error.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import { isRole, ROLES, type Role } from '../identity/permissions.js';
import type { Storage } from '../storage/database.js';
import { tenantRepository } from '../tenancy/tenant-repository.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password-hash.js';
import { portalUserRepository } from './portal-user-repository.js';

export const MAX_EMAIL_LENGTH = 254;

/** A console user as the CLI shows it; never the password hash or the TOTP secret. */
export interface PortalUserView {
  id: string;
  tenantId: string;
  email: string;
  role: Role;
  mfaEnrolled: boolean;
  createdAt: string;
}

export interface NewPortalUser {
  email: string;
  role: string;
  password: string;
}

/** Emails compare case-insensitively: stored and looked up trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isEmail(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && /^[^\s@]+@[^\s@]+$/.test(email);
}

function checkNewUser(request: NewPortalUser): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!isEmail(normalizeEmail(request.email))) {
    issues.push({ path: '/email', message: 'email must be an address like name@example.com' });
  }
  if (!isRole(request.role))
    issues.push({ path: '/role', message: `role must be one of ${ROLES.join(', ')}` });
  const length = [...request.password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    issues.push({
      path: '/password',
      message: `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
    });
  }
  return issues;
}

/**
 * Creates a console user (the `authority users create` command acts as the operator); audited as
 * `portal.user.created`. 409 when the tenant already has the email, 404 when there is no tenant.
 */
export async function createPortalUser(
  storage: Storage,
  clock: Clock,
  tenantId: string,
  request: NewPortalUser,
  actor: { id: string; type: string },
): Promise<PortalUserView> {
  const issues = checkNewUser(request);
  if (issues.length > 0) throw validationError(issues);
  if (!(await tenantRepository.get(storage.db, tenantId))) {
    throw new AppError('NOT_FOUND', `No tenant ${tenantId}`);
  }
  const email = normalizeEmail(request.email);
  const role = request.role as Role;
  const passwordHash = await hashPassword(request.password);
  const now = clock();
  const id = uuidv7();
  const event: AuditEvent = {
    correlationId: uuidv7(),
    intentId: null,
    actorId: actor.id,
    actorType: actor.type,
    eventType: 'portal.user.created',
    payload: { userId: id, email, role },
  };
  try {
    await storage.writeTransaction(async (trx) => {
      await portalUserRepository.insert(trx, { tenantId, id, email, passwordHash, role, createdAtMs: now });
      await chainRepository.append(trx, tenantId, [event], now);
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('CONFLICT', `Tenant ${tenantId} already has a user ${email}`);
    throw error;
  }
  return { id, tenantId, email, role, mfaEnrolled: false, createdAt: new Date(now).toISOString() };
}

export async function listPortalUsers(storage: Storage, tenantId: string): Promise<PortalUserView[]> {
  const users = await portalUserRepository.list(storage.db, tenantId);
  return users.map((user) => ({
    id: user.id,
    tenantId: user.tenantId,
    email: user.email,
    role: user.role as Role,
    mfaEnrolled: user.totpSecret !== null,
    createdAt: new Date(user.createdAtMs).toISOString(),
  }));
}
