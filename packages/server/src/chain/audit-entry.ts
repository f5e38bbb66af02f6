import { v7 as uuidv7 } from 'uuid';
import { canonicalJson, sha256Hex } from '../crypto/canonical-json.js';

/** previousHash of entry 0. */
export const GENESIS_HASH = '0'.repeat(64);

/** One entry of a tenant's hash chain, exactly as contract section 6 defines it. */
export interface AuditEntry {
  index: number;
  tenantId: string;
  correlationId: string | null;
  intentId: string | null;
  actorId: string;
  actorType: string;
  eventType: string;
  payload: unknown;
  previousHash: string;
  entryHash: string;
  createdAt: string;
}

/** What a module records; the chain adds index, tenant, linkage, hash and time. */
export interface AuditEvent {
  correlationId: string | null;
  intentId: string | null;
  actorId: string;
  actorType: string;
  eventType: string;
  payload: unknown;
}

export interface SealedEntry {
  entry: AuditEntry;
  /** The canonical text of the entry without entryHash: what was hashed and what is stored. */
  canonical: string;
}

/** The full entry of a stored one: its canonical text (what was hashed) parsed, with the stored hash. */
export function parseStoredEntry(stored: { canonical: string; entryHash: string }): AuditEntry {
  const parsed = JSON.parse(stored.canonical) as Omit<AuditEntry, 'entryHash'>;
  return { ...parsed, entryHash: stored.entryHash };
}

/** `YYYY-MM-DDTHH:mm:ss.sssZ`, the only timestamp form the chain uses. */
export function chainTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** Builds the next entry: entryHash = sha256_hex(JCS(entry without entryHash)). Pure. */
export function sealEntry(
  tenantId: string,
  index: number,
  previousHash: string,
  event: AuditEvent,
  createdAtMs: number,
): SealedEntry {
  const unsealed = {
    index,
    tenantId,
    correlationId: event.correlationId,
    intentId: event.intentId,
    actorId: event.actorId,
    actorType: event.actorType,
    eventType: event.eventType,
    payload: event.payload ?? null,
    previousHash,
    createdAt: chainTimestamp(createdAtMs),
  };
  const canonical = canonicalJson(unsealed);
  return { entry: { ...unsealed, entryHash: sha256Hex(canonical) }, canonical };
}

/**
 * An event of the operator's command line (`authority keys …`), which acts without a tenant's
 * credential: actor `authority-cli`, type `operator`, as `portal.user.created` records it.
 */
export function operatorEvent(eventType: string, payload: unknown): AuditEvent {
  return {
    correlationId: uuidv7(),
    intentId: null,
    actorId: 'authority-cli',
    actorType: 'operator',
    eventType,
    payload,
  };
}

/**
 * An event about configuration or a credential's act (contract §6): no intent, the principal as
 * actor, and a fresh UUIDv7 correlation id per request.
 */
export function principalEvent(
  principal: { id: string; type: 'api_key' | 'portal_user' },
  eventType: string,
  payload: unknown,
  intentId: string | null = null,
): AuditEvent {
  return {
    correlationId: uuidv7(),
    intentId,
    actorId: principal.id,
    actorType: principal.type === 'api_key' ? 'principal:api-key' : 'principal:user',
    eventType,
    payload,
  };
}
