import { LRUCache } from 'lru-cache';
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import { effectivePermissions } from '../identity/permissions.js';
import { type ApiKeyPrincipal, PORTAL_SESSION_PREFIX } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import { type ApiKeyRecord, apiKeyRepository } from './api-key-repository.js';
import { API_KEY_PREFIX, hashApiKey, hasKnownPrefix } from './api-key-secret.js';

/** Contract section 2: key look-ups may be cached for at most 5 s. */
const CACHE_TTL_MS = 5_000;
/** lastUsedAt is written at most once a minute per key. */
const LAST_USED_INTERVAL_MS = 60_000;

export interface Authenticator {
  /** Resolves a presented API key to its principal or throws 401 (INVALID_API_KEY or UNAUTHORIZED). */
  authenticate(presentedKey: string): Promise<ApiKeyPrincipal>;
  /** Drops a key from the cache at once (called when this process revokes it). */
  forget(keyHash: string): void;
}

/**
 * Why a credential is not an API key, for the mistakes people make: the `Bearer ` scheme inside
 * `x-api-key`, a console session id sent as a key. Never echoes the credential.
 */
function unknownPrefixMessage(presented: string): string {
  if (/^bearer\s/i.test(presented)) {
    return 'Unrecognized API key prefix: x-api-key takes the key alone, without "Bearer "';
  }
  if (presented.startsWith(PORTAL_SESSION_PREFIX)) {
    return 'Unrecognized API key prefix: this is a console session id; send it as x-portal-session-id';
  }
  return `Unrecognized API key prefix: an API key starts with ${API_KEY_PREFIX}`;
}

export function createAuthenticator(
  storage: Storage,
  clock: Clock,
  onBackgroundError: (error: unknown) => void,
): Authenticator {
  const cache = new LRUCache<string, ApiKeyRecord>({ max: 10_000, ttl: CACHE_TTL_MS, ttlAutopurge: false });
  const lastWritten = new LRUCache<string, number>({ max: 10_000 });

  function recordUse(key: ApiKeyRecord, now: number): void {
    const previous = lastWritten.get(key.id) ?? key.lastUsedAt ?? 0;
    if (now - previous < LAST_USED_INTERVAL_MS) return;
    lastWritten.set(key.id, now);
    // Outside any request transaction and never awaited by the request: a failure is only logged.
    apiKeyRepository.touchLastUsed(storage.db, key.tenantId, key.id, now).catch(onBackgroundError);
  }

  return {
    async authenticate(presentedKey) {
      if (!hasKnownPrefix(presentedKey)) {
        throw new AppError('INVALID_API_KEY', unknownPrefixMessage(presentedKey), {
          reason: 'invalid_api_key',
        });
      }
      const keyHash = hashApiKey(presentedKey);
      let key = cache.get(keyHash);
      if (key === undefined) {
        key = await apiKeyRepository.findByHash(storage.db, keyHash);
        if (key !== undefined) cache.set(keyHash, key);
      }
      const now = clock();
      if (key === undefined)
        throw new AppError('UNAUTHORIZED', 'Unknown API key', { reason: 'unknown_api_key' });
      if (key.revokedAt !== null)
        throw new AppError('UNAUTHORIZED', 'The API key was revoked', { reason: 'revoked_api_key' });
      if (key.expiresAt !== null && key.expiresAt <= now) {
        throw new AppError('UNAUTHORIZED', 'The API key has expired', { reason: 'expired_api_key' });
      }
      recordUse(key, now);
      return {
        type: 'api_key',
        id: key.id,
        tenantId: key.tenantId,
        role: key.role,
        scopes: key.scopes,
        permissions: effectivePermissions(key.role, key.scopes),
      };
    },
    forget(keyHash) {
      cache.delete(keyHash);
    },
  };
}
