import { v7 as uuidv7 } from 'uuid';
import { operatorEvent, principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { AppError, validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import {
  effectivePermissions,
  isPermission,
  isRole,
  type Permission,
  ROLE_PERMISSIONS,
  type Role,
} from '../identity/permissions.js';
import type { Principal } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import type { ApiKeyRecord } from './api-key-repository.js';
import { apiKeyRepository } from './api-key-repository.js';
import { generateApiKey } from './api-key-secret.js';

/** The response to a key creation: the only time the secret is ever shown. */
export interface IssuedKey {
  id: string;
  name: string;
  key: string;
  displayPrefix: string;
  role: Role;
  scopes: Permission[] | null;
  expiresAt: string | null;
  createdAt: string;
}

/** A key as listed: never the secret nor its hash. */
export interface KeySummary {
  id: string;
  name: string;
  displayPrefix: string;
  role: Role;
  scopes: Permission[] | null;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface KeyRequest {
  name: string;
  role: string;
  scopes?: string[] | undefined;
  expiresAt?: string | undefined;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function summarizeKey(key: ApiKeyRecord): KeySummary {
  return {
    id: key.id,
    name: key.name,
    displayPrefix: key.displayPrefix,
    role: key.role,
    scopes: key.scopes,
    expiresAt: iso(key.expiresAt),
    createdAt: new Date(key.createdAt).toISOString(),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
  };
}

/**
 * Checks a key request and turns it into a record plus the secret to show once. Pure apart from the
 * random key; `creator` is null for bootstrap paths (CLI, admin API) that act as the operator.
 */
export function prepareKey(
  tenantId: string,
  request: KeyRequest,
  creator: Principal | null,
  now: number,
): { record: ApiKeyRecord; issued: IssuedKey } {
  const name = request.name.trim();
  if (name === '' || name.length > 200) {
    throw validationError([{ path: '/name', message: 'name must be 1 to 200 characters' }]);
  }
  if (!isRole(request.role)) {
    throw validationError([
      { path: '/role', message: `role must be one of ${Object.keys(ROLE_PERMISSIONS).join(', ')}` },
    ]);
  }
  const role = request.role;
  let scopes: Permission[] | null = null;
  if (request.scopes !== undefined) {
    const unknown = request.scopes.filter((s) => !isPermission(s));
    if (unknown.length > 0) {
      throw validationError([{ path: '/scopes', message: `unknown permission: ${unknown.join(', ')}` }]);
    }
    const outside = request.scopes.filter((s) => !(ROLE_PERMISSIONS[role] as readonly string[]).includes(s));
    if (outside.length > 0) {
      throw validationError([
        {
          path: '/scopes',
          message: `scopes must be a subset of the ${role} role's permissions: ${outside.join(', ')}`,
        },
      ]);
    }
    scopes = [...new Set(request.scopes as Permission[])];
  }
  let expiresAt: number | null = null;
  if (request.expiresAt !== undefined) {
    expiresAt = Date.parse(request.expiresAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(request.expiresAt) || Number.isNaN(expiresAt)) {
      throw validationError([{ path: '/expiresAt', message: 'expiresAt must be an ISO 8601 date-time' }]);
    }
    if (expiresAt <= now) {
      throw validationError([{ path: '/expiresAt', message: 'expiresAt must be in the future' }]);
    }
  }
  if (creator !== null) {
    if (role === 'owner' && creator.role !== 'owner') {
      throw new AppError('FORBIDDEN', 'Only an owner can create owner keys', { permission: 'tenant:admin' });
    }
    const missing = [...effectivePermissions(role, scopes)].find((p) => !creator.permissions.has(p));
    if (missing !== undefined) {
      throw new AppError('FORBIDDEN', "A new key's permissions must be a subset of its creator's", {
        permission: missing,
      });
    }
  }
  const secret = generateApiKey();
  const record: ApiKeyRecord = {
    tenantId,
    id: uuidv7(),
    name,
    keyHash: secret.hash,
    displayPrefix: secret.displayPrefix,
    role,
    scopes,
    expiresAt,
    createdAt: now,
    createdBy: creator?.id ?? null,
    revokedAt: null,
    lastUsedAt: null,
  };
  return {
    record,
    issued: {
      id: record.id,
      name,
      key: secret.key,
      displayPrefix: secret.displayPrefix,
      role,
      scopes,
      expiresAt: iso(expiresAt),
      createdAt: new Date(now).toISOString(),
    },
  };
}

export interface KeyService {
  create(tenantId: string, request: KeyRequest, creator: Principal | null): Promise<IssuedKey>;
  list(tenantId: string): Promise<KeySummary[]>;
  /**
   * Throws NOT_FOUND for a key the tenant does not have (including other tenants' keys), and
   * FORBIDDEN when `revoker` (null: the operator's command line) lacks a permission of the key: a
   * key revokes only what it could have created, so only an owner revokes owner keys.
   */
  revoke(tenantId: string, id: string, revoker: Principal | null): Promise<{ alreadyRevoked: boolean }>;
}

/** The chain event of a key's creation or revocation, by a principal or by the command line (null). */
function keyEvent(principal: Principal | null, eventType: string, payload: unknown) {
  return principal === null
    ? operatorEvent(eventType, payload)
    : principalEvent(principal, eventType, payload);
}

export function createKeyService(
  storage: Storage,
  clock: Clock,
  onRevoke: (keyHash: string) => void,
): KeyService {
  return {
    async create(tenantId, request, creator) {
      const now = clock();
      const { record, issued } = prepareKey(tenantId, request, creator, now);
      const payload = {
        keyId: record.id,
        name: record.name,
        role: record.role,
        scopes: record.scopes,
        expiresAt: issued.expiresAt,
      };
      await storage.writeTransaction(async (trx) => {
        await apiKeyRepository.insert(trx, record);
        await chainRepository.append(trx, tenantId, [keyEvent(creator, 'apikey.created', payload)], now);
      });
      return issued;
    },
    async list(tenantId) {
      return (await apiKeyRepository.list(storage.db, tenantId)).map(summarizeKey);
    },
    async revoke(tenantId, id, revoker) {
      const key = await apiKeyRepository.get(storage.db, tenantId, id);
      if (!key) throw new AppError('NOT_FOUND', 'No such API key');
      if (revoker !== null) {
        if (key.role === 'owner' && revoker.role !== 'owner') {
          throw new AppError('FORBIDDEN', 'Only an owner can revoke owner keys', {
            permission: 'tenant:admin',
          });
        }
        const missing = [...effectivePermissions(key.role, key.scopes)].find(
          (p) => !revoker.permissions.has(p),
        );
        if (missing !== undefined) {
          throw new AppError('FORBIDDEN', 'Only a key holding every permission of a key can revoke it', {
            permission: missing,
          });
        }
      }
      const now = clock();
      const alreadyRevoked = await storage.writeTransaction(async (trx) => {
        // Revoking a revoked key changes nothing and records nothing.
        if ((await apiKeyRepository.revoke(trx, tenantId, id, now)) !== 'revoked') return true;
        const payload = { keyId: key.id, name: key.name, role: key.role };
        await chainRepository.append(trx, tenantId, [keyEvent(revoker, 'apikey.revoked', payload)], now);
        return false;
      });
      onRevoke(key.keyHash);
      return { alreadyRevoked };
    },
  };
}
