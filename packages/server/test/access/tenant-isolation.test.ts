import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cosigner, generateSignerKey } from '@authority-runtime/sdk';
import type { LightMyRequestResponse } from 'fastify';
import type { Resolver } from '../../src/egress/egress-client.js';
import type { RegisteredRoute } from '../../src/http/route-table.js';
import { CONSOLE_CSP } from '../../src/http/routes/console.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { issueToken, recordRefusal } from '../physical-infra/fixtures.js';
import { enqueueDecision } from '../webhooks/fixtures.js';
import { createUser, login, PASSWORD, type PortalLogin, portalLogin } from './portal-helpers.js';

/**
 * Tenant isolation (contract section 2), route by route: a credential of tenant B against tenant A's
 * resources answers 403 TENANT_MISMATCH or 404 and never returns A's data. The suite enumerates the
 * registered routes, so a route added without a case here fails it.
 */

const A = 'tenant-alpha';
const B = 'tenant-bravo';
const resolver: Resolver = async () => ['93.184.216.34'];

interface Alpha {
  owner: Headers;
  session: PortalLogin;
  intentId: string;
  escalatedId: string;
  escalationId: string;
  decisionToken: string;
  permissionToken: Record<string, unknown>;
  keyId: string;
  keyPrefix: string;
  endpointId: string;
  deliveryId: string;
  connectorId: string;
  onlyVersion: number;
  activeVersion: number;
  kid: string;
  /** A's issued physical token, its revoked one, and its escalation ticket. */
  physicalJti: string;
  revokedJti: string;
  ticketId: string;
}

interface Context {
  t: TestApp;
  a: Alpha;
  /** B's owner API key with B's tenant header. */
  b: Headers;
  /** B's owner portal session (second factor verified) with B's tenant header. */
  bSession: PortalLogin;
  /** A request as B: asserts the answer carries none of A's data that B did not send itself. */
  asB(
    method: string,
    url: string,
    options?: { payload?: unknown; headers?: Headers },
  ): Promise<LightMyRequestResponse>;
  /** A request as A (to check that B changed nothing). */
  asA(method: string, url: string, payload?: unknown): Promise<LightMyRequestResponse>;
}

type Case = (ctx: Context) => Promise<void>;

function expectStatus(res: LightMyRequestResponse, status: number, code?: string): void {
  assert.equal(res.statusCode, status, res.body);
  if (code !== undefined) assert.equal(res.json().error.code, code, res.body);
}

const notFound = (res: LightMyRequestResponse) => expectStatus(res, 404, 'NOT_FOUND');
const mismatch = (res: LightMyRequestResponse) => expectStatus(res, 403, 'TENANT_MISMATCH');
/** The physical surface answers lower-snake codes. */
const physicalNotFound = (res: LightMyRequestResponse) => expectStatus(res, 404, 'not_found');
const mismatchCodeOf = (url: string) =>
  url.startsWith('/physical/') ? 'tenant_mismatch' : 'TENANT_MISMATCH';

async function physicalEntry(ctx: Context, jti: string) {
  const res = await ctx.asA('GET', `/v1/physical/audit/${jti}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { verifications: unknown[]; revocation: unknown };
}

async function signingKids(ctx: Context, tenant: 'a' | 'b'): Promise<string[]> {
  const res =
    tenant === 'a' ? await ctx.asA('GET', '/authority/keys') : await ctx.asB('GET', '/authority/keys');
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().keys as Array<{ kid: string; status: string }>).map((key) => `${key.kid}:${key.status}`);
}

/** Public routes: what they show is public by design, or no tenant's data at all. */
const PUBLIC_CASES: Record<string, Case> = {
  'GET /health': async ({ asB }) => expectStatus(await asB('GET', '/health', { headers: {} }), 200),
  'GET /ready': async ({ asB }) => expectStatus(await asB('GET', '/ready', { headers: {} }), 200),
  'GET /openapi.json': async ({ asB }) =>
    expectStatus(await asB('GET', '/openapi.json', { headers: {} }), 200),
  'GET /docs': async ({ asB }) => {
    const res = await asB('GET', '/docs', { headers: {} });
    assert.ok(res.statusCode < 400, res.body);
  },
  'GET /metrics': async ({ asB }) => {
    const res = await asB('GET', '/metrics', { headers: {} });
    expectStatus(res, 200);
    assert.doesNotMatch(res.body, /tenant-(alpha|bravo)/, 'metrics never label by tenant');
  },
  // Verification keys are public (contract section 5); each tenant's set holds only its own keys.
  'GET /.well-known/authority/:tenantId/jwks.json': async ({ asB, a }) => {
    const res = await asB('GET', `/.well-known/authority/${B}/jwks.json`, { headers: {} });
    expectStatus(res, 200);
    assert.ok(!res.body.includes(a.kid));
  },
  // The physical signer is shared by every tenant (contract section 9); its key set names none.
  'GET /.well-known/jwks.json': async ({ asB }) =>
    expectStatus(await asB('GET', '/.well-known/jwks.json', { headers: {} }), 200),
  'GET /.well-known/authority/:tenantId/log-key': async ({ asB, asA }) => {
    const mine = await asB('GET', `/.well-known/authority/${B}/log-key`, { headers: {} });
    expectStatus(mine, 200);
    const theirs = await asA('GET', `/.well-known/authority/${A}/log-key`);
    assert.match(mine.body, new RegExp(`^[^+]*/audit/${B}\\+[0-9a-f]{8}\\+`));
    assert.notEqual(mine.body.split('+')[2], theirs.body.split('+')[2], 'each tenant has its own log key');
  },
  'GET /.well-known/authority/:tenantId/jwks-archive.json': async ({ asB, a }) => {
    const res = await asB('GET', `/.well-known/authority/${B}/jwks-archive.json`, { headers: {} });
    expectStatus(res, 200);
    assert.ok(!res.body.includes(a.kid));
  },
  // The console is the same static application for everyone; it holds no tenant's data.
  'GET /console': async ({ asB }) => {
    const res = await asB('GET', '/console', { headers: {} });
    expectStatus(res, 308);
    assert.equal(res.headers.location, '/console/');
  },
  'GET /console/*': async ({ asB, a }) => {
    const res = await asB('GET', `/console/approvals/${a.escalationId}`, { headers: {} });
    assert.ok([200, 404].includes(res.statusCode), res.body);
    assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
  },
  // Users belong to one tenant: B's user cannot sign in to A.
  'POST /portal/login': async ({ asB, bSession }) => {
    const res = await asB('POST', '/portal/login', {
      headers: {},
      payload: { tenantId: A, email: bSession.email, password: PASSWORD },
    });
    expectStatus(res, 401, 'UNAUTHORIZED');
  },
};

/** Operator routes: a tenant credential is no admin token. */
const ADMIN_CASES: Record<string, Case> = {
  'POST /admin/tenants': async ({ asB }) => {
    expectStatus(await asB('POST', '/admin/tenants', { payload: { id: 'sneaky', plan: 'free' } }), 401);
  },
  'PATCH /admin/tenants/:id': async ({ asB, asA }) => {
    expectStatus(await asB('PATCH', `/admin/tenants/${A}`, { payload: { plan: 'free' } }), 401);
    assert.equal((await asA('GET', '/tenant')).json().plan, 'enterprise');
  },
};

/** Tenant routes, with B's own tenant header, against A's resources. */
const TENANT_CASES: Record<string, Case> = {
  'GET /tenant': async ({ asB }) => assert.equal((await asB('GET', '/tenant')).json().id, B),
  'PUT /tenant/ip-allowlist': async ({ asB, asA }) => {
    expectStatus(await asB('PUT', '/tenant/ip-allowlist', { payload: { cidrs: ['127.0.0.1'] } }), 200);
    assert.deepEqual((await asA('GET', '/tenant')).json().ipAllowlist, []);
    expectStatus(await asB('PUT', '/tenant/ip-allowlist', { payload: { cidrs: [] } }), 200);
  },
  'GET /keys': async ({ asB }) => expectStatus(await asB('GET', '/keys'), 200),
  'POST /keys': async ({ asB }) => {
    const res = await asB('POST', '/keys', { payload: { name: 'bravo-key', role: 'agent' } });
    expectStatus(res, 201);
  },
  'DELETE /keys/:id': async ({ asB, asA, a }) => {
    notFound(await asB('DELETE', `/keys/${a.keyId}`));
    const keys = (await asA('GET', '/keys')).json().keys as Array<{ id: string; revokedAt: string | null }>;
    assert.equal(keys.find((key) => key.id === a.keyId)?.revokedAt, null, "A's key is not revoked");
  },
  'POST /intent': async ({ asB }) => {
    const res = await asB('POST', '/intent', {
      payload: {
        tenantId: B,
        actor: { id: 'bravo-agent', type: 'agent' },
        targetSystem: 'bravo/repo',
        proposedAction: 'list open pull requests',
        riskContext: { baseRiskScore: 5 },
      },
    });
    assert.ok([200, 202, 403].includes(res.statusCode), res.body);
  },
  'GET /intent/:id': async ({ asB, a }) => {
    notFound(await asB('GET', `/intent/${a.intentId}`));
    notFound(await asB('GET', `/intent/${a.escalatedId}`));
  },
  'GET /intent/:id/evidence-bundle': async ({ asB, a }) =>
    notFound(await asB('GET', `/intent/${a.intentId}/evidence-bundle`)),
  'GET /intent/:id/receipt': async ({ asB, a }) =>
    notFound(await asB('GET', `/intent/${a.intentId}/receipt`)),
  'POST /intent/:id/token': async ({ asB, a }) =>
    notFound(await asB('POST', `/intent/${a.escalatedId}/token`)),
  'GET /intents': async ({ asB }) => expectStatus(await asB('GET', '/intents'), 200),
  'POST /authority/tokens/consume': async ({ asB, asA, a }) => {
    const request = { token: a.decisionToken, adapterId: 'external', targetSystem: 'alpha/payments' };
    const res = await asB('POST', '/authority/tokens/consume', { payload: request });
    expectStatus(res, 200);
    assert.deepEqual(Object.keys(res.json()).sort(), ['reason', 'valid']);
    assert.equal(res.json().valid, false);
    // B's attempt did not burn A's nonce.
    assert.equal((await asA('POST', '/authority/tokens/consume', request)).json().valid, true);
  },
  'POST /authority/approval': async ({ asB, asA, a }) => {
    const res = await asB('POST', '/authority/approval', {
      payload: { intentId: a.escalatedId, decision: 'approve', rationale: 'approving from the other tenant' },
    });
    notFound(res);
    assert.equal((await asA('GET', `/intent/${a.escalatedId}`)).json().status, 'ESCALATED');
  },
  'GET /authority/approvals': async ({ asB }) => {
    for (const status of ['pending', 'approved', 'denied', 'expired']) {
      expectStatus(await asB('GET', `/authority/approvals?status=${status}`), 200);
    }
  },
  'GET /authority/approvals/:escalationId': async ({ asB, a }) => {
    notFound(await asB('GET', `/authority/approvals/${a.escalationId}`));
    notFound(await asB('GET', `/authority/approvals/${a.escalatedId}`));
  },
  'POST /authority/evaluate': async ({ asB }) => {
    const res = await asB('POST', '/authority/evaluate', {
      payload: {
        actor: { id: 'bravo-agent', type: 'agent' },
        targetSystem: 'bravo/repo',
        proposedAction: 'list open pull requests',
        riskContext: { baseRiskScore: 5 },
      },
    });
    expectStatus(res, 200);
  },
  'POST /authority/permission-tokens/verify': async ({ asB, a }) => {
    const res = await asB('POST', '/authority/permission-tokens/verify', {
      payload: { token: a.permissionToken },
    });
    expectStatus(res, 200);
    assert.equal(res.json().valid, false, res.body);
    assert.deepEqual(Object.keys(res.json()).sort(), ['reason', 'valid']);
  },
  'GET /authority/thresholds/:tenantId': async ({ asB }) => {
    mismatch(await asB('GET', `/authority/thresholds/${A}`));
    expectStatus(await asB('GET', `/authority/thresholds/${B}`), 200);
  },
  'PUT /authority/thresholds/:tenantId': async ({ asB }) =>
    mismatch(await asB('PUT', `/authority/thresholds/${A}`, { payload: { autoApproveBelow: 1 } })),
  'GET /authority/budgets/:tenantId': async ({ asB, asA }) => {
    expectStatus(
      await asA('PUT', `/authority/budgets/${A}`, {
        budgets: [{ id: 'a-only', window: 'day', maxApproved: 5, onExceeded: 'DENY' }],
      }),
      200,
    );
    mismatch(await asB('GET', `/authority/budgets/${A}`));
    const own = await asB('GET', `/authority/budgets/${B}`);
    expectStatus(own, 200);
    assert.deepEqual(own.json().budgets, []);
  },
  'PUT /authority/budgets/:tenantId': async ({ asB }) =>
    mismatch(await asB('PUT', `/authority/budgets/${A}`, { payload: { budgets: [] } })),
  'GET /authority/budgets/:tenantId/usage': async ({ asB }) => {
    mismatch(await asB('GET', `/authority/budgets/${A}/usage?actorId=agent-7`));
    const own = await asB('GET', `/authority/budgets/${B}/usage?actorId=agent-7`);
    expectStatus(own, 200);
    assert.deepEqual(own.json().usage, []);
  },
  'GET /authority/policy': async ({ asB }) => expectStatus(await asB('GET', '/authority/policy'), 200),
  'GET /authority/policy/versions': async ({ asB }) =>
    expectStatus(await asB('GET', '/authority/policy/versions'), 200),
  'POST /authority/policy': async ({ asB, asA, a }) => {
    expectStatus(await asB('POST', '/authority/policy', { payload: { rules: [] } }), 201);
    assert.equal((await asA('GET', '/authority/policy')).json().version, a.activeVersion);
  },
  'POST /authority/policy/versions/:version/activate': async ({ asB, asA, a }) => {
    notFound(await asB('POST', `/authority/policy/versions/${a.onlyVersion}/activate`));
    assert.equal((await asA('GET', '/authority/policy')).json().version, a.activeVersion);
  },
  'POST /authority/policy/simulate': async ({ asB }) => {
    const res = await asB('POST', '/authority/policy/simulate', { payload: { rules: [] } });
    expectStatus(res, 200);
    const own = (await asB('GET', '/intents')).json().intents.length;
    assert.equal(res.json().evaluated, own, "B's sample holds its own intents only");
  },
  'PUT /authority/policy-review/:tenantId': async ({ asB, asA }) => {
    mismatch(await asB('PUT', `/authority/policy-review/${A}`, { payload: { required: true } }));
    assert.equal((await asA('GET', '/authority/policy/versions')).json().review.required, false);
  },
  'POST /authority/policy/versions/:version/reviews': async ({ asB, asA, a }) => {
    notFound(
      await asB('POST', `/authority/policy/versions/${a.onlyVersion}/reviews`, {
        payload: { decision: 'approve', comment: '' },
      }),
    );
    const versions = (await asA('GET', '/authority/policy/versions')).json().versions;
    assert.ok(versions.every((v: { reviews: unknown[] }) => v.reviews.length === 0));
  },
  'GET /policy-packs': async ({ asB }) => expectStatus(await asB('GET', '/policy-packs'), 200),
  'GET /policy-packs/installed': async ({ asB }) =>
    expectStatus(await asB('GET', '/policy-packs/installed'), 200),
  'POST /policy-packs/install': async ({ asB, asA }) => {
    const before = (await asA('GET', '/policy-packs/installed')).body;
    const packs = (await asB('GET', '/policy-packs')).json().packs as Array<{ id: string }>;
    const res = await asB('POST', '/policy-packs/install', { payload: { packId: packs[0]?.id } });
    assert.ok([201, 400, 409].includes(res.statusCode), res.body);
    assert.equal((await asA('GET', '/policy-packs/installed')).body, before);
  },
  'GET /authority/actors': async ({ asB }) => expectStatus(await asB('GET', '/authority/actors'), 200),
  'PUT /authority/actors/:actorId': async ({ asB, asA }) => {
    expectStatus(
      await asB('PUT', '/authority/actors/shared-actor-id', { payload: { status: 'active' } }),
      200,
    );
    const actors = (await asA('GET', '/authority/actors')).json().actors as Array<{
      actorId: string;
      status: string;
    }>;
    assert.equal(actors.find((actor) => actor.actorId === 'shared-actor-id')?.status, 'blocked');
  },
  'PUT /authority/floor/:tenantId': async ({ asB }) =>
    mismatch(await asB('PUT', `/authority/floor/${A}`, { payload: { enabled: true } })),
  'PUT /authority/kill-switch/:tenantId': async ({ asB, asA }) => {
    mismatch(
      await asB('PUT', `/authority/kill-switch/${A}`, { payload: { enabled: true, reason: 'stop alpha' } }),
    );
    assert.equal((await asA('GET', '/tenant')).json().killSwitch.enabled, false);
  },
  'GET /authority/keys': async ({ asB }) => expectStatus(await asB('GET', '/authority/keys'), 200),
  'POST /authority/keys/rotate': async (ctx) => {
    const before = await signingKids(ctx, 'a');
    expectStatus(await ctx.asB('POST', '/authority/keys/rotate'), 201);
    assert.deepEqual(await signingKids(ctx, 'a'), before);
  },
  'PUT /authority/keys/algorithm': async (ctx) => {
    const before = await signingKids(ctx, 'a');
    const res = await ctx.asB('PUT', '/authority/keys/algorithm', { payload: { alg: 'ES256' } });
    assert.ok(res.statusCode < 500, res.body);
    assert.deepEqual(await signingKids(ctx, 'a'), before);
  },
  'POST /authority/keys/external': async (ctx) => {
    const before = await signingKids(ctx, 'a');
    const res = await ctx.asB('POST', '/authority/keys/external', {
      payload: {
        publicJwk: { kty: 'OKP', crv: 'Ed25519', x: 'AA' },
        signUrl: 'https://signer.example.test/sign',
      },
    });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, res.body);
    assert.deepEqual(await signingKids(ctx, 'a'), before);
  },
  'POST /authority/secrets/evidence/rotate': async ({ asB, t }) => {
    const before = await secretIds(t);
    expectStatus(await asB('POST', '/authority/secrets/evidence/rotate'), 201);
    assert.deepEqual(await secretIds(t), before);
  },
  'POST /authority/secrets/permission/rotate': async ({ asB, t }) => {
    const before = await secretIds(t);
    expectStatus(await asB('POST', '/authority/secrets/permission/rotate'), 201);
    assert.deepEqual(await secretIds(t), before);
  },
  'GET /audit/:tenantId/timeline': async ({ asB }) => {
    mismatch(await asB('GET', `/audit/${A}/timeline`));
    expectStatus(await asB('GET', `/audit/${B}/timeline`), 200);
  },
  'GET /audit/:tenantId/export': async ({ asB }) => {
    mismatch(await asB('GET', `/audit/${A}/export`));
    expectStatus(await asB('GET', `/audit/${B}/export`), 200);
  },
  'GET /audit/:tenantId/checkpoints': async ({ asB }) => {
    mismatch(await asB('GET', `/audit/${A}/checkpoints`));
    expectStatus(await asB('GET', `/audit/${B}/checkpoints`), 200);
  },
  // B's log holds only B's chain: its note names B's origin, its proofs cover B's entries only.
  'GET /audit/:tenantId/checkpoint': async ({ asB }) => {
    mismatch(await asB('GET', `/audit/${A}/checkpoint`));
    const res = await asB('GET', `/audit/${B}/checkpoint`);
    expectStatus(res, 200);
    assert.match(res.body, new RegExp(`^[^\\n]*/audit/${B}\\n`));
  },
  'GET /audit/:tenantId/proof/inclusion': async ({ asB, asA }) => {
    mismatch(await asB('GET', `/audit/${A}/proof/inclusion?index=0&treeSize=1`));
    const mine = await asB('GET', `/audit/${B}/proof/inclusion?index=0&treeSize=1`);
    expectStatus(mine, 200);
    const theirs = await asA('GET', `/audit/${A}/proof/inclusion?index=0&treeSize=1`);
    assert.notEqual(mine.json().leafHash, theirs.json().leafHash);
    const length = (await asA('GET', `/audit/${A}/checkpoint`)).body.split('\n')[1];
    // An index of A's longer chain is refused on B's, never answered from A's tree.
    expectStatus(await asB('GET', `/audit/${B}/proof/inclusion?index=0&treeSize=${length}`), 400);
  },
  'GET /audit/:tenantId/proof/consistency': async ({ asB }) => {
    mismatch(await asB('GET', `/audit/${A}/proof/consistency?from=1&to=1`));
    expectStatus(await asB('GET', `/audit/${B}/proof/consistency?from=1&to=1`), 200);
  },
  'POST /audit/verify-chain': async ({ asB }) => {
    const res = await asB('POST', '/audit/verify-chain');
    expectStatus(res, 200);
    assert.equal(res.json().valid, true);
  },
  'POST /audit/acknowledge-break': async ({ asB }) => {
    const res = await asB('POST', '/audit/acknowledge-break', { payload: { brokenAt: 0, note: 'not ours' } });
    assert.ok([404, 409].includes(res.statusCode), res.body);
  },
  'PUT /audit/witnesses': async ({ asB, asA }) => {
    const w = cosigner(generateSignerKey('witness.example/b'), Date.now);
    const config = {
      witnesses: [{ name: w.name, url: 'https://hooks.example.test/witness', verifierKey: w.verifierKey }],
      quorum: 1,
    };
    const set = await asB('PUT', '/audit/witnesses', { payload: config });
    expectStatus(set, 200);
    assert.equal(set.json().witnesses.length, 1);
    const other = await asA('PUT', '/audit/witnesses', { witnesses: [], quorum: 0 });
    expectStatus(other, 200);
    assert.deepEqual(other.json().witnesses, [], "A never sees B's witnesses");
    const again = await asB('PUT', '/audit/witnesses', { payload: config });
    assert.equal(again.json().witnesses[0].name, w.name, "A's change left B's set alone");
  },
  'GET /audit/witnesses': async ({ asB, asA }) => {
    const w = cosigner(generateSignerKey('witness.example/b2'), Date.now);
    const config = {
      witnesses: [{ name: w.name, url: 'https://hooks.example.test/witness', verifierKey: w.verifierKey }],
      quorum: 1,
    };
    expectStatus(await asB('PUT', '/audit/witnesses', { payload: config }), 200);
    const own = await asB('GET', '/audit/witnesses');
    expectStatus(own, 200);
    assert.deepEqual(
      own.json().witnesses.map((x: { name: string }) => x.name),
      [w.name],
    );
    const other = await asA('GET', '/audit/witnesses');
    expectStatus(other, 200);
    assert.ok(!other.body.includes(w.name), "A never reads B's witnesses");
  },
  'POST /webhooks': async ({ asB }) => {
    const res = await asB('POST', '/webhooks', {
      payload: { url: 'https://hooks.example.test/b', events: ['*'] },
    });
    expectStatus(res, 201);
  },
  'GET /webhooks': async ({ asB }) => expectStatus(await asB('GET', '/webhooks'), 200),
  'GET /webhooks/:id': async ({ asB, a }) => notFound(await asB('GET', `/webhooks/${a.endpointId}`)),
  'PATCH /webhooks/:id': async ({ asB, asA, a }) => {
    notFound(await asB('PATCH', `/webhooks/${a.endpointId}`, { payload: { description: 'hijacked' } }));
    assert.notEqual((await asA('GET', `/webhooks/${a.endpointId}`)).json().description, 'hijacked');
  },
  'DELETE /webhooks/:id': async ({ asB, asA, a }) => {
    notFound(await asB('DELETE', `/webhooks/${a.endpointId}`));
    expectStatus(await asA('GET', `/webhooks/${a.endpointId}`), 200);
  },
  'GET /webhooks/:id/deliveries': async ({ asB, a }) =>
    notFound(await asB('GET', `/webhooks/${a.endpointId}/deliveries`)),
  'POST /webhooks/:id/deliveries/:deliveryId/redeliver': async ({ asB, a }) =>
    notFound(await asB('POST', `/webhooks/${a.endpointId}/deliveries/${a.deliveryId}/redeliver`)),
  'POST /webhooks/:id/rotate-secret': async ({ asB, a }) =>
    notFound(await asB('POST', `/webhooks/${a.endpointId}/rotate-secret`)),
  'GET /connectors': async ({ asB }) => expectStatus(await asB('GET', '/connectors'), 200),
  'POST /connectors': async ({ asB }) => {
    const res = await asB('POST', '/connectors', {
      payload: { type: 'noop', name: 'bravo-connector', targetSystem: 'bravo/deploys', config: {} },
    });
    expectStatus(res, 201);
  },
  'DELETE /connectors/:id': async ({ asB, asA, a }) => {
    notFound(await asB('DELETE', `/connectors/${a.connectorId}`));
    const listed = (await asA('GET', '/connectors')).json().connectors as Array<{ id: string }>;
    assert.ok(
      listed.some((connector) => connector.id === a.connectorId),
      "A's connector is still there",
    );
  },
  'POST /connectors/:id/test': async ({ asB, a }) =>
    notFound(await asB('POST', `/connectors/${a.connectorId}/test`)),
  'POST /physical/actors': async ({ asB, asA }) => {
    const res = await asB('POST', '/v1/physical/actors', {
      payload: { actorIdentity: 'shared-robot', actorKind: 'drone' },
    });
    expectStatus(res, 200);
    assert.equal(res.json().tenantId, B);
    const actors = (await asA('GET', '/v1/physical/actors')).json().actors as Array<{
      actorIdentity: string;
      actorKind: string;
    }>;
    assert.equal(actors.find((actor) => actor.actorIdentity === 'shared-robot')?.actorKind, 'robot');
  },
  'GET /physical/actors': async ({ asB }) => expectStatus(await asB('GET', '/v1/physical/actors'), 200),
  'GET /physical/approvals': async ({ asB }) => {
    for (const status of ['pending', 'approved', 'rejected', 'expired', 'consumed']) {
      expectStatus(await asB('GET', `/v1/physical/approvals?status=${status}`), 200);
    }
  },
  'GET /physical/approvals/:ticketId': async ({ asB, a }) =>
    physicalNotFound(await asB('GET', `/v1/physical/approvals/${a.ticketId}`)),
  'POST /physical/approvals/:ticketId/decide': async ({ asB, asA, a }) => {
    physicalNotFound(
      await asB('POST', `/v1/physical/approvals/${a.ticketId}/decide`, {
        payload: { decision: 'approved', operator: 'bravo operator' },
      }),
    );
    assert.equal((await asA('GET', `/v1/physical/approvals/${a.ticketId}`)).json().status, 'pending');
  },
  'GET /physical/audit': async ({ asB }) => expectStatus(await asB('GET', '/v1/physical/audit'), 200),
  'GET /physical/audit/:jti': async ({ asB, a }) =>
    physicalNotFound(await asB('GET', `/v1/physical/audit/${a.physicalJti}`)),
  'POST /physical/audit/:jti/verifications': async (ctx) => {
    physicalNotFound(
      await ctx.asB('POST', `/v1/physical/audit/${ctx.a.physicalJti}/verifications`, {
        payload: { edgeNodeId: 'bravo-edge', result: 'accepted', atMs: 1 },
      }),
    );
    assert.deepEqual((await physicalEntry(ctx, ctx.a.physicalJti)).verifications, []);
  },
  'POST /physical/verifications': async (ctx) => {
    const res = await ctx.asB('POST', '/v1/physical/verifications', {
      payload: {
        reports: [{ jti: ctx.a.physicalJti, edgeNodeId: 'bravo-edge', result: 'accepted', atMs: 1 }],
      },
    });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), { accepted: 0, rejected: [{ index: 0, code: 'not_found' }] });
    assert.deepEqual((await physicalEntry(ctx, ctx.a.physicalJti)).verifications, []);
  },
  'POST /physical/authority-tokens/:jti/revoke': async (ctx) => {
    physicalNotFound(
      await ctx.asB('POST', `/v1/physical/authority-tokens/${ctx.a.physicalJti}/revoke`, {
        payload: { reason: 'revoked by the other tenant' },
      }),
    );
    assert.equal((await physicalEntry(ctx, ctx.a.physicalJti)).revocation, null);
  },
  // A revoked a token; B's feed must not name it (the marker check sees to that).
  'GET /physical/revocations': async ({ asB }) =>
    expectStatus(await asB('GET', '/v1/physical/revocations?since=0'), 200),
  'POST /physical/snapshots': async ({ asB }) =>
    expectStatus(await asB('POST', '/v1/physical/snapshots', { payload: { physicalState: {} } }), 200),
  'POST /physical/classify': async ({ asB }) =>
    expectStatus(await asB('POST', '/v1/physical/classify', { payload: { goal: PHYSICAL_GOAL } }), 200),
  // A's actor is not on B's roster, and a key A used is B's own: B never gets A's stored answer.
  'POST /physical/authority-tokens': async ({ t, a, b, asB }) => {
    const body = physicalTokenBody(PHYSICAL_GOAL);
    const headers = { 'idempotency-key': 'alpha-shared-key' };
    const mine = await t.app.inject({
      method: 'POST',
      url: '/v1/physical/authority-tokens',
      headers: { ...a.owner, ...headers },
      payload: body,
    });
    expectStatus(mine, 422, 'policy_denied');
    const res = await asB('POST', '/v1/physical/authority-tokens', {
      payload: body,
      headers: { ...b, ...headers },
    });
    expectStatus(res, 403, 'actor_not_registered');
  },
  'GET /physical/policy': async ({ asA, asB }) => {
    const policy = {
      description: 'alpha-marker-policy',
      clauses: [{ id: 'alpha-marker-clause', effect: 'allow', safeDefault: 'stop' }],
    };
    expectStatus(await asA('POST', '/v1/physical/policy', { policy, activate: true }), 200);
    const res = await asB('GET', '/v1/physical/policy');
    expectStatus(res, 200);
    assert.equal(res.json().version, 0);
  },
  'POST /physical/policy': async ({ asA, asB }) => {
    const before = (await asA('GET', '/v1/physical/policy')).json();
    const policy = { clauses: [{ id: 'bravo-clause', effect: 'allow', safeDefault: 'stop' }] };
    expectStatus(await asB('POST', '/v1/physical/policy', { payload: { policy, activate: true } }), 200);
    assert.deepEqual((await asA('GET', '/v1/physical/policy')).json(), before);
  },
};

/** A goal of A's registered robot (`alpha-marker-robot`), and an issuance request for it. */
const PHYSICAL_GOAL = {
  schema: 'robot.manipulation',
  verb: 'pick',
  object: 'tote',
  actor: { kind: 'robot', identifier: 'alpha-marker-robot' },
};
const physicalTokenBody = (goal: typeof PHYSICAL_GOAL) => ({
  intent: { structuredGoal: goal },
  dagNode: { nodeId: 'node-1', oiCode: 'OI-1502', deadlineMs: 1_000, safeDefault: 'stop' },
  claims: { actorIdentity: goal.actor.identifier, deadlineMs: 1_000, safeDefault: 'stop' },
});

/** Portal routes act on the caller's own session only. */
const PORTAL_CASES: Record<string, Case> = {
  'POST /portal/mfa/enroll': async ({ t, a }) => {
    // A's session id presented for tenant B.
    mismatch(
      await t.app.inject({
        method: 'POST',
        url: '/portal/mfa/enroll',
        headers: { ...a.session.headers, 'x-tenant-id': B },
      }),
    );
  },
  'POST /portal/mfa': async ({ t, a }) => {
    mismatch(
      await t.app.inject({
        method: 'POST',
        url: '/portal/mfa',
        headers: { ...a.session.headers, 'x-tenant-id': B },
        payload: { code: '123456' },
      }),
    );
  },
  'POST /portal/logout': async ({ t, asA }) => {
    // B's logout ends B's session only.
    const other = await portalLogin(t, B, 'auditor');
    expectStatus(await t.app.inject({ method: 'POST', url: '/portal/logout', headers: other.headers }), 204);
    expectStatus(await asA('GET', '/tenant'), 200);
  },
};

async function secretIds(t: TestApp): Promise<string[]> {
  const rows = await t.storage.db
    .selectFrom('tenant_secrets')
    .select(['id', 'status'])
    .where('tenant_id', '=', A)
    .orderBy('id')
    .execute();
  return rows.map((row) => `${row.id}:${row.status}`);
}

/** Fills a route's path parameters with A's identifiers. */
function alphaUrl(url: string, a: Alpha): string {
  return url
    .replace(':jti', a.physicalJti)
    .replace(':ticketId', a.ticketId)
    .replace(':tenantId', A)
    .replace(':deliveryId', a.deliveryId)
    .replace(':version', String(a.onlyVersion))
    .replace(':actorId', 'shared-actor-id')
    .replace(':id', idFor(url, a));
}

function idFor(url: string, a: Alpha): string {
  if (url.startsWith('/webhooks')) return a.endpointId;
  if (url.startsWith('/keys')) return a.keyId;
  if (url.startsWith('/connectors')) return a.connectorId;
  return a.intentId;
}

const routeKey = (route: RegisteredRoute) => `${route.method} ${route.url}`;

for (const engine of ENGINES) {
  describe(`tenant isolation matrix over every route (${engine})`, () => {
    let t: TestApp;
    let ctx: Context;
    let routes: RegisteredRoute[];

    before(async () => {
      t = await createTestApp(engine, { RATE_LIMIT_PER_IP: '0' }, undefined, { resolver });
      routes = t.app.registeredRoutes.filter((route) => !route.url.startsWith('/docs/'));
      await t.createTenant(A, 'enterprise');
      await t.createTenant(B, 'enterprise');
      const alphaKey = await t.services.apiKeys.create(A, { name: 'owner-2', role: 'owner' }, null);
      const bravoKey = await t.services.apiKeys.create(B, { name: 'owner-2', role: 'owner' }, null);
      const aOwner = { authorization: `Bearer ${alphaKey.key}`, 'x-tenant-id': A };
      const b = { authorization: `Bearer ${bravoKey.key}`, 'x-tenant-id': B };
      const inject = (headers: Headers) => (method: string, url: string, payload?: unknown) =>
        t.app.inject({
          method: method as 'GET',
          url,
          headers,
          ...(payload === undefined ? {} : { payload: payload as object }),
        });
      const asA = inject(aOwner);

      // Tenant A's resources, each carrying a marker B must never see.
      const intent = (proposedAction: string) =>
        asA('POST', '/intent', {
          tenantId: A,
          actor: { id: 'alpha-marker-agent', type: 'agent' },
          targetSystem: 'alpha/payments',
          proposedAction,
          riskContext: { baseRiskScore: 10 },
        });
      const approved = await intent('list open pull requests');
      assert.equal(approved.statusCode, 200, approved.body);
      const escalated = await intent('merge pull request 42');
      assert.equal(escalated.statusCode, 202, escalated.body);
      const evaluated = await asA('POST', '/authority/evaluate', {
        actor: { id: 'alpha-marker-agent', type: 'agent' },
        targetSystem: 'alpha/payments',
        proposedAction: 'list open pull requests',
        riskContext: { baseRiskScore: 10 },
      });
      assert.equal(evaluated.statusCode, 200, evaluated.body);
      const key = await asA('POST', '/keys', { name: 'alpha-marker-key', role: 'agent' });
      assert.equal(key.statusCode, 201, key.body);
      const rule = {
        id: 'alpha-marker-rule',
        effect: 'DENY',
        conditions: { all: [{ path: 'risk.production', op: 'EQ', value: true }] },
      };
      assert.equal(
        (await asA('POST', '/authority/policy', { rules: [rule], activate: true })).statusCode,
        201,
      );
      const onlyInA = await asA('POST', '/authority/policy', { rules: [rule] });
      assert.equal(onlyInA.statusCode, 201, onlyInA.body);
      const blocked = await asA('PUT', '/authority/actors/shared-actor-id', {
        status: 'blocked',
        reason: 'alpha-marker-reason',
      });
      assert.equal(blocked.statusCode, 200, blocked.body);
      const endpoint = await asA('POST', '/webhooks', {
        url: 'https://hooks.example.test/alpha-marker',
        events: ['*'],
        description: 'alpha-marker-endpoint',
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      const enqueued = await enqueueDecision(t, A, { intentId: approved.json().intentId });
      const deliveryId = enqueued.deliveryIds[0];
      assert.ok(deliveryId, 'a delivery was queued for A');
      const connector = await asA('POST', '/connectors', {
        type: 'noop',
        name: 'alpha-marker-connector',
        targetSystem: 'alpha/deploys',
        config: {},
      });
      assert.equal(connector.statusCode, 201, connector.body);
      const kids = (await asA('GET', '/authority/keys')).json().keys as Array<{ kid: string }>;
      for (const actorIdentity of ['alpha-marker-robot', 'shared-robot']) {
        const actor = await asA('POST', '/v1/physical/actors', { actorIdentity, actorKind: 'robot' });
        assert.equal(actor.statusCode, 200, actor.body);
      }
      const physical = await issueToken(t, A, { actorIdentity: 'alpha-marker-robot' });
      const revoked = await issueToken(t, A, { actorIdentity: 'alpha-marker-robot' });
      const revocation = await asA('POST', `/v1/physical/authority-tokens/${revoked.jti}/revoke`, {
        reason: 'alpha-marker-revocation',
      });
      assert.equal(revocation.statusCode, 200, revocation.body);
      const escalation = await recordRefusal(t, A, 'ESCALATE', { actorIdentity: 'alpha-marker-robot' });
      assert.ok(escalation.ticketId);
      const session = await portalLogin(t, A, 'owner', {
        mfa: true,
        email: 'alpha-marker@tenant-alpha.test',
      });
      const bSession = await portalLogin(t, B, 'owner', { mfa: true });

      const a: Alpha = {
        owner: aOwner,
        session,
        intentId: approved.json().intentId,
        escalatedId: escalated.json().intentId,
        escalationId: escalated.json().escalationId,
        decisionToken: approved.json().authorityDecisionToken,
        permissionToken: evaluated.json().permissionToken,
        keyId: key.json().id,
        keyPrefix: key.json().displayPrefix,
        endpointId: endpoint.json().id,
        deliveryId,
        connectorId: connector.json().id,
        onlyVersion: onlyInA.json().version,
        activeVersion: onlyInA.json().version - 1,
        kid: kids[0]?.kid ?? 'no-kid',
        physicalJti: physical.jti,
        revokedJti: revoked.jti,
        ticketId: escalation.ticketId,
      };
      const markers = [
        A,
        'alpha-marker',
        a.intentId,
        a.escalatedId,
        a.escalationId,
        a.keyId,
        a.keyPrefix,
        a.endpointId,
        a.deliveryId,
        a.connectorId,
        a.kid,
        a.physicalJti,
        a.revokedJti,
        a.ticketId,
        session.userId,
        approved.json().correlationId,
      ].filter((marker): marker is string => typeof marker === 'string' && marker.length > 0);

      ctx = {
        t,
        a,
        b,
        bSession,
        asA,
        async asB(method, url, options = {}) {
          const payload = options.payload;
          const res = await t.app.inject({
            method: method as 'GET',
            url,
            headers: options.headers ?? b,
            ...(payload === undefined ? {} : { payload: payload as object }),
          });
          // What B sent may come back (an id in a 404 message); nothing else of A's may.
          const sent = `${url} ${payload === undefined ? '' : JSON.stringify(payload)}`;
          for (const marker of markers) {
            if (!sent.includes(marker)) {
              assert.ok(
                !res.body.includes(marker),
                `${method} ${url} answered with A's ${marker}: ${res.body.slice(0, 300)}`,
              );
            }
          }
          return res;
        },
      };
    });
    after(async () => {
      await t.close();
    });

    it('every registered route has an isolation case (a new route needs one here)', () => {
      const cases = new Set([
        ...Object.keys(PUBLIC_CASES),
        ...Object.keys(ADMIN_CASES),
        ...Object.keys(TENANT_CASES),
        ...Object.keys(PORTAL_CASES),
      ]);
      const missing = routes.map(routeKey).filter((key) => !cases.has(key));
      assert.deepEqual(missing, [], `routes without a tenant-isolation case: ${missing.join(', ')}`);
      const registered = new Set(routes.map(routeKey));
      const stale = [...cases].filter((key) => !registered.has(key));
      assert.deepEqual(stale, [], `isolation cases for routes that do not exist: ${stale.join(', ')}`);
      const kinds: Record<string, Record<string, Case>> = {
        public: PUBLIC_CASES,
        admin: ADMIN_CASES,
        tenant: TENANT_CASES,
        portal: PORTAL_CASES,
      };
      for (const route of routes) {
        assert.ok(
          kinds[route.access.kind]?.[routeKey(route)],
          `${routeKey(route)} is a ${route.access.kind} route`,
        );
      }
    });

    it("B's credential with A's tenant header: 403 TENANT_MISMATCH on every tenant and portal route", async () => {
      for (const route of routes.filter((r) => r.access.kind === 'tenant' || r.access.kind === 'portal')) {
        const credential = route.access.kind === 'portal' ? ctx.bSession.headers : ctx.b;
        const res = await ctx.asB(route.method, alphaUrl(route.url, ctx.a), {
          headers: { ...credential, 'x-tenant-id': A },
          ...(['POST', 'PUT', 'PATCH'].includes(route.method) ? { payload: {} } : {}),
        });
        assert.equal(res.statusCode, 403, `${routeKey(route)}: ${res.body}`);
        assert.equal(res.json().error.code, mismatchCodeOf(route.url), routeKey(route));
      }
    });

    it("B's credential naming A in the body or a :tenantId segment: 403 TENANT_MISMATCH", async () => {
      for (const route of routes.filter((r) => r.access.kind === 'tenant' || r.access.kind === 'portal')) {
        const credential = route.access.kind === 'portal' ? ctx.bSession.headers : ctx.b;
        const withBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
        if (!withBody && !route.url.includes(':tenantId')) continue;
        const url = route.url.includes(':tenantId')
          ? alphaUrl(route.url, ctx.a)
          : alphaUrl(route.url, ctx.a).replace(A, B);
        const res = await ctx.asB(route.method, url, {
          headers: credential,
          ...(withBody ? { payload: { tenantId: A } } : {}),
        });
        assert.equal(res.statusCode, 403, `${routeKey(route)}: ${res.body}`);
        assert.equal(res.json().error.code, mismatchCodeOf(route.url), routeKey(route));
      }
    });

    for (const [key, check] of Object.entries({
      ...PUBLIC_CASES,
      ...ADMIN_CASES,
      ...TENANT_CASES,
      ...PORTAL_CASES,
    })) {
      it(`${key}: B against A's resources gets 403 or 404 and none of A's data`, async () => {
        await check(ctx);
      });
    }

    it("B's portal session works for B and is refused for A", async () => {
      expectStatus(await ctx.asB('GET', '/tenant', { headers: ctx.bSession.headers }), 200);
      mismatch(await ctx.asB('GET', '/keys', { headers: { ...ctx.bSession.headers, 'x-tenant-id': A } }));
      // And A's session is A's alone.
      const user = await createUser(t, A, 'auditor');
      expectStatus(await login(t, B, user.email), 401, 'UNAUTHORIZED');
    });
  });
}
