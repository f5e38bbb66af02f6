import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { activatePolicy } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';

const body = (action: string, extra: Record<string, unknown> = {}) => ({
  actor: { id: 'agent-7', type: 'agent' },
  targetSystem: 'acme/payments',
  proposedAction: action,
  riskContext: { baseRiskScore: 10 },
  ...extra,
});

for (const engine of ENGINES) {
  describe(`POST /authority/evaluate and permission tokens (${engine})`, () => {
    let t: TestApp;
    let owner: Record<string, string>;
    let agent: Record<string, string>;
    let globexAgent: Record<string, string>;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      await t.ownerHeaders('globex');
      agent = await t.roleHeaders('acme', 'agent');
      globexAgent = await t.roleHeaders('globex', 'agent');
    });
    after(async () => {
      await t.close();
    });

    const evaluate = (payload: unknown, headers = agent) =>
      t.app.inject({ method: 'POST', url: '/authority/evaluate', headers, payload: payload as object });
    const verify = (token: unknown, headers = agent) =>
      t.app.inject({
        method: 'POST',
        url: '/authority/permission-tokens/verify',
        headers,
        payload: { token },
      });

    it('answers 200 with ALLOW, an explanation and an allow permission token, and records authority.evaluated only', async () => {
      const before = await t.storage.db.selectFrom('intents').select('id').execute();
      const response = await evaluate(body('list open pull requests'));
      assert.equal(response.statusCode, 200, response.body);
      const result = response.json();
      assert.equal(result.decision, 'ALLOW');
      assert.equal(result.decidingRule.id, 'starter/allow-reads');
      assert.ok(Array.isArray(result.explanation));
      assert.equal(result.authorityDecisionToken, undefined);
      const token = result.permissionToken;
      assert.deepEqual(
        [token.decision, token.policyPack, token.ruleId, token.intentId, token.tenantId],
        ['allow', 'starter', 'starter/allow-reads', result.evaluationId, 'acme'],
      );
      assert.equal(Date.parse(token.expiresAt) - Date.parse(token.issuedAt), 300_000);
      assert.deepEqual(Object.keys(token).sort(), [
        'decision',
        'expiresAt',
        'intentId',
        'issuedAt',
        'policyPack',
        'riskScore',
        'ruleId',
        'secretId',
        'signature',
        'tenantId',
        'tokenId',
      ]);
      assert.equal(
        (await t.storage.db.selectFrom('intents').select('id').execute()).length,
        before.length,
        'no intent, no decision',
      );
      const last = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'canonical'])
        .where('tenant_id', '=', 'acme')
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(last.event_type, 'authority.evaluated');
      assert.equal(JSON.parse(last.canonical).payload.evaluationId, result.evaluationId);
      assert.deepEqual((await verify(token)).json(), { valid: true });
    });

    it('uses the four-valued vocabulary and review tokens live an hour', async () => {
      const escalate = (await evaluate(body('merge pull request 4'))).json();
      assert.equal(escalate.decision, 'ESCALATE');
      assert.equal(escalate.permissionToken.decision, 'review');
      assert.equal(
        Date.parse(escalate.permissionToken.expiresAt) - Date.parse(escalate.permissionToken.issuedAt),
        3_600_000,
      );
      const deny = (await evaluate(body('list branches', { riskContext: { baseRiskScore: 70 } }))).json();
      assert.equal(deny.decision, 'DENY');
      assert.deepEqual(
        [deny.permissionToken.decision, deny.permissionToken.policyPack, deny.permissionToken.ruleId],
        ['deny', 'custom', 'signal:default'],
      );

      const saved = await activatePolicy(t.app, owner, [
        { id: 'sign-off-releases', effect: 'REQUIRE_APPROVAL', bindings: { oiCodes: ['OI-104'] } },
        { id: 'no-schema-changes', effect: 'DENY', bindings: { oiCodes: ['OI-305'] } },
      ]);
      assert.equal(saved.statusCode, 201, saved.body);
      const approval = (await evaluate(body('deploy the release'))).json();
      assert.equal(approval.decision, 'REQUIRE_APPROVAL');
      assert.equal(approval.permissionToken.decision, 'review');
    });

    it('evaluates a supplied oiCode as a second pass that can only raise severity', async () => {
      const raised = (await evaluate(body('list tables', { oiCode: 'OI-305' }))).json();
      assert.equal(raised.decision, 'DENY');
      assert.equal(raised.decidingRule.id, 'no-schema-changes');
      const notLowered = (await evaluate(body('drop the cache entries', { oiCode: 'OI-101' }))).json();
      assert.notEqual(notLowered.decision, 'ALLOW');
      const bad = await evaluate(body('list', { oiCode: 'read-only' }));
      assert.equal(bad.statusCode, 400);

      // A code the verb table never reads is a write in the second pass: a rule for reads no longer
      // approves "list pull requests" as OI-105 (change control); OI-101 stays the read it was.
      const reads = await activatePolicy(t.app, owner, [
        {
          id: 'allow-reads',
          effect: 'ALLOW',
          conditions: { all: [{ path: 'risk.operation_type', op: 'EQ', value: 'read' }] },
        },
      ]);
      assert.equal(reads.statusCode, 201, reads.body);
      assert.equal((await evaluate(body('list pull requests'))).json().decision, 'ALLOW');
      const asChange = (await evaluate(body('list pull requests', { oiCode: 'OI-105' }))).json();
      assert.notEqual(asChange.decision, 'ALLOW', JSON.stringify(asChange.rationale));
      assert.ok(
        asChange.rationale.includes('interpreted as OI-105 (write, confidence 0.9)'),
        asChange.rationale,
      );
      const asCode = (await evaluate(body('list pull requests', { oiCode: 'OI-101' }))).json();
      assert.equal(asCode.decision, 'ALLOW');
    });

    it('rejects tampered, foreign, expired and malformed permission tokens, and keeps old secrets verifiable', async () => {
      const token = (await evaluate(body('list open pull requests'))).json().permissionToken;
      assert.deepEqual((await verify({ ...token, riskScore: 0 })).json(), {
        valid: false,
        reason: 'SIGNATURE_VERIFICATION_FAILED',
      });
      assert.deepEqual((await verify({ ...token, decision: 'deny' })).json(), {
        valid: false,
        reason: 'SIGNATURE_VERIFICATION_FAILED',
      });
      assert.deepEqual((await verify(token, globexAgent)).json(), {
        valid: false,
        reason: 'TOKEN_TENANT_MISMATCH',
      });
      assert.deepEqual((await verify({ ...token, extra: 1 })).json(), {
        valid: false,
        reason: 'TOKEN_MALFORMED',
      });
      assert.deepEqual((await verify('a.b.c')).json(), { valid: false, reason: 'TOKEN_MALFORMED' });
      await t.app.inject({ method: 'POST', url: '/authority/secrets/permission/rotate', headers: owner });
      assert.deepEqual(
        (await verify(token)).json(),
        { valid: true },
        'a rotation does not void issued tokens',
      );
      t.clock.advance(300_001);
      assert.deepEqual((await verify(token)).json(), { valid: false, reason: 'TOKEN_EXPIRED' });
    });

    it('requires authority:evaluate and validates like POST /intent', async () => {
      const approver = await t.services.apiKeys.create('acme', { name: 'ap', role: 'approver' }, null);
      const forbidden = await evaluate(body('list'), {
        authorization: `Bearer ${approver.key}`,
        'x-tenant-id': 'acme',
      });
      assert.equal(forbidden.json().error.details.permission, 'authority:evaluate');
      assert.equal(
        (await evaluate({ ...body('list'), tenantId: 'acme' })).statusCode,
        400,
        'no tenantId in this body',
      );
      assert.equal((await evaluate(body('???'))).json().error.code, 'INVALID_INTENT');
    });

    it('explains the other request shape as POST /intent does, and refuses unknown query parameters', async () => {
      const other = { action: 'x', actor: 'bot1', system: 'z/z', metadata: {} };
      for (const url of ['/intent', '/authority/evaluate']) {
        const res = await t.app.inject({ method: 'POST', url, headers: agent, payload: other });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        const { error } = res.json() as { error: { message: string; details: { issues: unknown[] } } };
        assert.match(error.message, /actor/, url);
        assert.match(error.message, /targetSystem/, url);
        assert.match(error.message, /proposedAction/, url);
        assert.equal(error.details.issues.length, 1, `${url}: one issue naming the fields`);
        if (url === '/authority/evaluate')
          assert.doesNotMatch(error.message, /tenantId,/, 'not a field here');
        else assert.match(error.message, /tenantId,/);
      }
      const at = (query: string) =>
        t.app.inject({
          method: 'POST',
          url: `/authority/evaluate${query}`,
          headers: agent,
          payload: body('list'),
        });
      assert.equal((await at('?explain=true')).statusCode, 200, 'the console sends it');
      assert.equal((await at('?explain=false')).statusCode, 200);
      for (const query of ['?foo=bar', '?explain=yes']) {
        const res = await at(query);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.equal(res.json().error.code, 'VALIDATION_ERROR');
      }
    });
  });
}
