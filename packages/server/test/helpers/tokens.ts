import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/app/build-server.js';
import { buildServer } from '../../src/app/build-server.js';
import { createServices, type Services } from '../../src/app/services.js';
import type { Storage } from '../../src/storage/database.js';
import type { IssuedKey } from '../../src/tenancy/key-service.js';
import {
  type DecisionTokenRequest,
  type MintedToken,
  mintDecisionToken,
} from '../../src/tokens/decision-token.js';
import { TEST_MASTER_KEY, type TestApp } from './app.js';

/** Shared pieces of the token and key tests (signing keys, decision tokens, consumption, external signers). */

import { bearer } from './app.js';

export { bearer };

export interface Envelope {
  code: string;
  message: string;
  requestId: string;
  details?: Record<string, unknown>;
}

/** Asserts status and the contract's error envelope, and returns `error`. */
export function assertError(res: LightMyRequestResponse, status: number, code: string): Envelope {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`);
  const body = res.json() as { error: Envelope };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code, res.body);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(body.error.requestId, res.headers['x-request-id']);
  return body.error;
}

/** Issues an API key of `role` through `POST /keys` with the tenant's owner key. */
export async function issueKey(
  t: TestApp,
  tenantId: string,
  ownerKey: string,
  role: string,
  name = `${role}-${randomUUID().slice(0, 8)}`,
): Promise<IssuedKey> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/keys',
    headers: bearer(ownerKey, tenantId),
    payload: { name, role },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as IssuedKey;
}

export const ADAPTER_ID = 'github-main';
export const TARGET_SYSTEM = 'acme/api';

/** A decision token request for the tenant with a fresh intent id. */
export function tokenRequest(
  tenantId: string,
  overrides: Partial<DecisionTokenRequest> = {},
): DecisionTokenRequest {
  return {
    intentId: randomUUID(),
    tenantId,
    adapterId: ADAPTER_ID,
    adapterTarget: TARGET_SYSTEM,
    targetSystem: TARGET_SYSTEM,
    proposedAction: 'merge pull request 42',
    ...overrides,
  };
}

/** Mints a token with the tenant's ACTIVE key, at the test clock's time. */
export async function mintFor(
  t: TestApp,
  tenantId: string,
  overrides: Partial<DecisionTokenRequest> = {},
): Promise<MintedToken> {
  const signer = await t.services.signingKeys.signer(tenantId);
  return mintDecisionToken(signer, tokenRequest(tenantId, overrides), t.clock());
}

/** The tenant's audit entries of one event type, in chain order, with their payloads parsed. */
export async function auditEntries(
  storage: Storage,
  tenantId: string,
  eventType: string,
): Promise<
  Array<{
    actorId: string;
    actorType: string;
    intentId: string | null;
    correlationId: string | null;
    payload: Record<string, unknown>;
  }>
> {
  const rows = await storage.db
    .selectFrom('audit_entries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('event_type', '=', eventType)
    .orderBy('idx', 'asc')
    .execute();
  return rows.map((row) => ({
    actorId: row.actor_id,
    actorType: row.actor_type,
    intentId: row.intent_id,
    correlationId: row.correlation_id,
    payload: (JSON.parse(row.canonical) as { payload: Record<string, unknown> }).payload,
  }));
}

/**
 * A second, independently built server over the same storage, clock and configuration: its own
 * services and in-memory caches, as another instance behind a load balancer would have.
 */
export async function buildSecondApp(t: TestApp): Promise<{ app: App; services: Services }> {
  const services = createServices({
    config: t.config,
    storage: t.storage,
    clock: t.clock,
    masterKey: TEST_MASTER_KEY,
    onBackgroundError: () => {},
  });
  const app = await buildServer({
    config: t.config,
    storage: t.storage,
    clock: t.clock,
    masterKey: TEST_MASTER_KEY,
    services,
    backgroundJobs: false,
  });
  await app.ready();
  return { app, services };
}

/** Member names of private key material in a JWK, and other secrets a key listing must never carry. */
export const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Every object key anywhere in a JSON value. */
export function allKeys(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) allKeys(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      out.push(key);
      allKeys(inner, out);
    }
  }
  return out;
}
