import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import type { AuditEntry, AuthorityTokenClaims, Checkpoint, Receipt, WebhookPayload } from '../src/index.js';
import {
  DecisionTokenClaims,
  IDEMPOTENCY_KEY_HEADER,
  IntentRequest,
  PolicyRule,
  PolicyVersionList,
  TENANT_HEADER,
  WIRE_COMPONENTS,
  WIRE_ROUTE_LIST,
  WIRE_ROUTES,
  type AuditEntry as WireAuditEntry,
  type Checkpoint as WireCheckpoint,
  type DecisionTokenClaims as WireClaims,
  type Receipt as WireReceipt,
  type WebhookPayload as WireWebhookPayload,
} from '../src/wire/index.js';

/** Compile-time: the verifiers' types are the wire contract's, in both directions. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameTypes: [
  Same<AuthorityTokenClaims, WireClaims>,
  Same<AuditEntry, WireAuditEntry>,
  Same<Checkpoint, WireCheckpoint>,
  Same<Receipt, WireReceipt>,
  Same<WebhookPayload, WireWebhookPayload>,
] = [true, true, true, true, true];

const headerNames = (schema: unknown): string[] =>
  Object.keys((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

describe('the wire contract', () => {
  it('gives the verifiers their types', () => {
    assert.deepEqual(sameTypes, [true, true, true, true, true]);
  });

  it('keys every route by its operationId, one route per method and path', () => {
    const seen = new Set<string>();
    for (const [key, route] of Object.entries(WIRE_ROUTES)) {
      assert.equal(route.operationId, key);
      const id = `${route.method} ${route.path}`;
      assert.ok(!seen.has(id), `${id} twice`);
      seen.add(id);
    }
    assert.equal(WIRE_ROUTE_LIST.length, Object.keys(WIRE_ROUTES).length);
  });

  it('gives every route a success answer and the tenant header to every tenant and console-session route', () => {
    for (const route of WIRE_ROUTE_LIST) {
      const statuses = Object.keys(route.schema.response).map(Number);
      assert.ok(
        statuses.some((s) => s >= 200 && s < 300),
        `${route.operationId} has no 2xx answer`,
      );
      const headers = headerNames(route.schema.headers);
      assert.equal(
        headers.includes(TENANT_HEADER),
        route.security === 'tenant' || route.security === 'portal',
        route.operationId,
      );
      assert.equal(headers.includes(IDEMPOTENCY_KEY_HEADER), route.idempotent, route.operationId);
      if (route.security === 'tenant') {
        for (const status of [400, 401, 403, 404, 429, 500, 503]) {
          assert.ok(statuses.includes(status), `${route.operationId} does not describe ${status}`);
        }
      }
    }
  });

  it('names the idempotent routes of the contract', () => {
    const idempotent = WIRE_ROUTE_LIST.filter((r) => r.idempotent).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(idempotent.sort(), [
      'POST /intent',
      'POST /intent/:id/token',
      'POST /physical/authority-tokens',
      'POST /physical/snapshots',
    ]);
  });

  it('compiles every named schema and every route schema', () => {
    for (const [name, schema] of Object.entries(WIRE_COMPONENTS)) {
      assert.doesNotThrow(() => Compile(schema), name);
    }
    for (const route of WIRE_ROUTE_LIST) {
      const { response, ...parts } = route.schema;
      for (const schema of [...Object.values(parts), ...Object.values(response)]) {
        if (schema !== undefined) assert.doesNotThrow(() => Compile(schema), route.operationId);
      }
    }
  });

  it('refuses unknown fields in requests and checks nested rules through the recursive group', () => {
    const request = Compile(IntentRequest);
    const valid = {
      tenantId: 'acme',
      actor: { id: 'agent-7', type: 'agent' },
      targetSystem: 'acme/payments',
      proposedAction: 'list open pull requests',
      riskContext: { baseRiskScore: 10 },
    };
    assert.equal(request.Check(valid), true);
    assert.equal(request.Check({ ...valid, extra: 1 }), false);
    assert.equal(request.Check({ ...valid, targetSystem: 'not a repo' }), false);

    const rule = Compile(PolicyRule);
    const nested = {
      id: 'r1',
      effect: 'ALLOW',
      conditions: { all: [{ path: 'risk.score', op: 'LT', value: 10 }, { not: { any: [] } }] },
    };
    assert.equal(rule.Check(nested), true);
    assert.equal(rule.Check({ ...nested, conditions: { all: [{ not: { path: 'x', op: 'NOPE' } }] } }), false);
    const list = Compile(PolicyVersionList);
    const version = {
      id: 'acme/v1',
      version: 1,
      active: true,
      rules: [nested, nested],
      packs: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      createdBy: 'key-1',
      activatedAt: null,
      status: 'active',
      author: 'key-1',
      reviews: [],
      requiredApprovals: null,
    };
    const review = { required: false, approvals: 1 };
    assert.equal(list.Check({ versions: [version, version], review }), true);
    assert.equal(list.Check({ versions: [{ ...version, status: 'pending' }], review }), false);
  });

  it('describes the decision token claims with the issuer as a literal', () => {
    const claims = Compile(DecisionTokenClaims);
    const valid = {
      intentId: 'i',
      tenantId: 'acme',
      adapterId: 'external',
      adapterTarget: 'acme/payments',
      targetSystem: 'acme/payments',
      proposedAction: 'merge',
      decision: 'APPROVED',
      issuedAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T00:05:00.000Z',
      nonce: 'n',
      iss: 'service-authority',
      aud: 'external',
      iat: 1,
      exp: 301,
    };
    assert.equal(claims.Check(valid), true);
    assert.equal(claims.Check({ ...valid, iss: 'someone-else' }), false);
    assert.equal(claims.Check({ ...valid, decision: 'DENIED' }), false);
  });
});
