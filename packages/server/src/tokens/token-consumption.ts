import {
  type AuthorityTokenVerification,
  type JWK,
  type KeySource,
  type NonceStore,
  verifyAuthorityToken,
} from '@authority-runtime/sdk';
import { type AuditEvent, principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Principal } from '../identity/principal.js';
import type { Executor, Storage } from '../storage/database.js';
import { AuthorityWithdrawn, authorityWithdrawn } from '../tenancy/tenant-controls.js';
import type { SigningKeyService } from './signing-keys.js';
import { tokenNonceRepository } from './token-nonce-repository.js';

export interface ConsumeRequest {
  token: string;
  adapterId: string;
  targetSystem: string;
}

export type ConsumeResult =
  | { valid: true; claims: Extract<AuthorityTokenVerification, { valid: true }>['claims'] }
  | { valid: false; reason: string };

/** Who consumes a token, as its `token.consumed` audit entry names it. */
export interface TokenConsumer {
  actorId: string;
  actorType: string;
  correlationId: string | null;
}

/**
 * Builds the `token.consumed` entry from its payload, the token's intent and that intent's
 * correlation id (undefined when the intent is not found).
 */
type ConsumedBy = (
  payload: { nonce: string; adapterId: string; targetSystem: string },
  intentId: string | null,
  intentCorrelationId: string | undefined,
) => AuditEvent;

function claimsOf(token: string): { intentId?: unknown; tenantId?: unknown } {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      intentId?: unknown;
    };
  } catch {
    return {};
  }
}

/**
 * `POST /authority/tokens/consume`: verifies a token exactly like the SDK verifier (it is the SDK
 * verifier, fed the tenant's ACTIVE and PREVIOUS keys) and consumes its nonce against the
 * database's uniqueness constraint, recording `token.consumed` in the same transaction.
 */
export function createTokenConsumption(deps: {
  storage: Storage;
  clock: Clock;
  keys: SigningKeyService;
  killSwitchOn: (tenantId: string) => Promise<boolean>;
  /** The correlation id of an intent of the tenant, read in the consuming transaction. */
  intentCorrelationId: (trx: Executor, tenantId: string, intentId: string) => Promise<string | undefined>;
}) {
  const { storage, clock, keys } = deps;

  function keySource(tenantId: string, failures: unknown[]): KeySource {
    return {
      async getKey(kid) {
        try {
          const set = await keys.jwks(tenantId);
          return set.keys.find((k) => k.kid === kid) as JWK | undefined;
        } catch (error) {
          failures.push(error);
          throw error;
        }
      },
    };
  }

  function nonceStore(tenantId: string, consumedBy: ConsumedBy, failures: unknown[]): NonceStore {
    return {
      async consume(nonce, expiresAtMs, context) {
        const now = clock();
        const claimed = claimsOf(context.token).intentId;
        const intentId = typeof claimed === 'string' ? claimed : null;
        try {
          await storage.writeTransaction(async (trx) => {
            await tokenNonceRepository.consume(trx, {
              tenantId,
              nonce,
              intentId,
              adapterId: context.adapterId,
              consumedAtMs: now,
              expiresAtMs,
            });
            // Every later record of an intent carries its correlation id (contract §0).
            const correlationId =
              intentId === null ? undefined : await deps.intentCorrelationId(trx, tenantId, intentId);
            await chainRepository.append(
              trx,
              tenantId,
              [
                consumedBy(
                  { nonce, adapterId: context.adapterId, targetSystem: context.targetSystem },
                  intentId,
                  correlationId,
                ),
              ],
              now,
            );
            // The switch may have gone on since the check before verifying (tenant-controls.ts).
            if (await authorityWithdrawn(trx, tenantId)) throw new AuthorityWithdrawn(tenantId);
          });
          return true;
        } catch (error) {
          if (isUniqueViolation(error)) return false;
          failures.push(error);
          throw error;
        }
      },
    };
  }

  async function verifyAndConsume(
    tenantId: string,
    request: ConsumeRequest,
    consumedBy: ConsumedBy,
  ): Promise<ConsumeResult> {
    if (await deps.killSwitchOn(tenantId)) return { valid: false, reason: 'TENANT_KILL_SWITCH' };
    const failures: unknown[] = [];
    const result = await verifyAuthorityToken(request.token, {
      jwks: keySource(tenantId, failures),
      expected: { tenantId, adapterId: request.adapterId, targetSystem: request.targetSystem },
      nonceStore: nonceStore(tenantId, consumedBy, failures),
      clock,
    });
    if (result.valid) return { valid: true, claims: result.claims };
    // The switch went on after the check above: the consume rolled back, the nonce is unspent.
    if (failures[0] instanceof AuthorityWithdrawn) return { valid: false, reason: 'TENANT_KILL_SWITCH' };
    // The database failing must not read as a verdict on the token: surface the cause (503/500).
    if (result.reason === 'NONCE_STORE_UNAVAILABLE' || result.reason === 'KEY_SOURCE_UNAVAILABLE') {
      throw failures[0] ?? new Error(`token consumption could not complete: ${result.detail}`);
    }
    return { valid: false, reason: result.reason };
  }

  return {
    /**
     * For a principal calling `POST /authority/tokens/consume`: `token.consumed` names the principal
     * and carries the intent's correlation id.
     */
    consume(tenantId: string, principal: Principal, request: ConsumeRequest): Promise<ConsumeResult> {
      return verifyAndConsume(tenantId, request, (payload, intentId, intentCorrelationId) => {
        const event = principalEvent(principal, 'token.consumed', payload, intentId);
        return intentCorrelationId === undefined ? event : { ...event, correlationId: intentCorrelationId };
      });
    },

    /**
     * The same check for the service's own adapters (connectors): `token.consumed` names the
     * adapter as actor and carries the intent's correlation id.
     */
    consumeAs(tenantId: string, actor: TokenConsumer, request: ConsumeRequest): Promise<ConsumeResult> {
      return verifyAndConsume(tenantId, request, (payload, intentId) => ({
        correlationId: actor.correlationId,
        intentId,
        actorId: actor.actorId,
        actorType: actor.actorType,
        eventType: 'token.consumed',
        payload,
      }));
    },
  };
}

export type TokenConsumption = ReturnType<typeof createTokenConsumption>;
