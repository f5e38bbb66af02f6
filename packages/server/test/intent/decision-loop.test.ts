import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { staticJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
import { canonicalJson, sha256Hex } from '../../src/crypto/canonical-json.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { ENGINES } from '../helpers/storage.js';
import { buildSecondApp } from '../helpers/tokens.js';

type Headers = Record<string, string>;

for (const engine of ENGINES) {
  describe(`POST /intent decision loop (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    let globex: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      globex = await t.ownerHeaders('globex');
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await t.close();
    });

    const submit = (payload: unknown, headers: Headers = agent, url = '/intent') =>
      t.app.inject({ method: 'POST', url, headers, payload: payload as object });

    it('APPROVED (200): a low-risk confirmed read, with a token the SDK verifies and entries in the chain', async () => {
      const response = await submit(intentPayload('list open pull requests'));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.authorityDecision.decision, 'APPROVED');
      assert.deepEqual(body.authorityDecision.gateTrace, [
        'kill_switch',
        'rbac',
        'structural',
        'authority_rules',
      ]);
      assert.equal(body.authorityDecision.decidingRule.id, 'starter/allow-reads');
      assert.deepEqual(body.authorityDecision.intent, {
        oiCode: 'OI-101',
        operationType: 'read',
        confidence: 0.9,
      });
      assert.equal(body.authorityDecision.riskScore, 10);
      assert.equal(body.authorityDecision.policyCompliant, true);
      assert.deepEqual(body.execution, { attempted: false, status: 'not_configured' });
      assert.equal(body.escalationId, undefined);
      assert.match(body.intentId, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const jwks = (
        await t.app.inject({ method: 'GET', url: '/.well-known/authority/acme/jwks.json' })
      ).json();
      const verified = await verifyAuthorityToken(body.authorityDecisionToken, {
        jwks: staticJwks(jwks),
        expected: { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/payments' },
        clock: t.clock,
      });
      assert.equal(verified.valid, true, JSON.stringify(verified));
      if (verified.valid) assert.equal(verified.claims.intentId, body.intentId);

      const entries = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'entry_hash', 'canonical'])
        .where('tenant_id', '=', 'acme')
        .where('intent_id', '=', body.intentId)
        .orderBy('idx')
        .execute();
      assert.deepEqual(
        entries.map((e) => e.event_type),
        ['intent.received', 'intent.decided', 'token.issued'],
      );
      assert.equal(body.audit.entriesWritten, 3);
      assert.equal(body.audit.latestHash, entries[2]?.entry_hash);
      const verify = await t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers: owner });
      assert.equal(verify.json().valid, true);
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /authority_decisions_total\{decision="APPROVED"\} 1/);
      assert.match(metrics.body, /authority_audit_append_seconds_count 1\n/);
      assert.match(metrics.body, /authority_decision_commit_batch_size_bucket\{le="1"\} 1\n/);
      assert.doesNotMatch(metrics.body, /acme/, 'metrics never name tenants');
    });

    it('ESCALATED (202): every write under the starter policy, with an escalation id and no token', async () => {
      const response = await submit(intentPayload('merge pull request 42'));
      assert.equal(response.statusCode, 202, response.body);
      const body = response.json();
      assert.equal(body.authorityDecision.decision, 'ESCALATED');
      assert.equal(body.authorityDecision.decidingRule.id, 'starter/escalate-writes');
      assert.equal(body.authorityDecisionToken, undefined);
      assert.ok(body.escalationId);
      assert.equal(body.approval.queue, 'standard');
      assert.equal(body.approval.requiredApprovals, 1);
      assert.equal(body.approval.status, 'pending');
      assert.deepEqual(body.execution, { attempted: false, status: 'skipped' });
      assert.equal(body.audit.entriesWritten, 2);
    });

    it('DENIED (403) by default when no rule matches, whatever the score', async () => {
      const response = await submit(
        intentPayload('list branches', { riskContext: { baseRiskScore: 10, touchesProduction: true } }),
      );
      assert.equal(response.statusCode, 403, response.body);
      const body = response.json();
      assert.equal(body.authorityDecision.decision, 'DENIED');
      assert.deepEqual(body.authorityDecision.gateTrace, [
        'kill_switch',
        'rbac',
        'structural',
        'authority_rules',
        'default',
      ]);
      assert.equal(body.authorityDecision.decidingRule.id, 'signal:default');
      assert.equal(body.authorityDecisionToken, undefined);
      assert.deepEqual(body.execution, { attempted: false, status: 'skipped' });
    });

    it('modifier flags move the same action from APPROVED to DENIED or ESCALATED', async () => {
      const plain = await submit(intentPayload('get the readme'));
      assert.equal(plain.statusCode, 200);
      const privileged = await submit(
        intentPayload('get the readme', {
          riskContext: { baseRiskScore: 10, requiresPrivilegedAccess: true },
        }),
      );
      assert.equal(privileged.statusCode, 403, 'the allow rule needs non-privileged');
      assert.equal(privileged.json().authorityDecision.riskScore, 30);
      const risky = await submit(
        intentPayload('push the fix', { riskContext: { baseRiskScore: 80, touchesProduction: true } }),
      );
      assert.equal(risky.statusCode, 403, 'score 100 ≥ denyAt 90 wins over the escalate rule');
      assert.equal(risky.json().authorityDecision.decidingRule.id, 'signal:deny-threshold');
      assert.ok(risky.json().authorityDecision.rationale.includes('risk 100 ≥ denyAt 90: DENY'));
    });

    it('escalates low-confidence interpretations and explains failing conditions on request', async () => {
      const response = await submit(intentPayload('frobnicate the widget'), agent, '/intent?explain=true');
      assert.equal(response.statusCode, 202);
      const decision = response.json().authorityDecision;
      assert.deepEqual(decision.intent, { oiCode: 'OI-100', operationType: 'write', confidence: 0.3 });
      assert.ok(decision.matchedRules.some((r: { id: string }) => r.id === 'signal:low-confidence'));
      assert.ok(Array.isArray(decision.explanation));
      const allowReads = decision.explanation.find(
        (e: { ruleId: string }) => e.ruleId === 'starter/allow-reads',
      );
      assert.equal(allowReads.failed.path, 'risk.operation_type');
      const plain = await submit(intentPayload('frobnicate the widget'));
      assert.equal(plain.json().authorityDecision.explanation, undefined);
    });

    it('sends catastrophic arguments to two-person review, and only the owner setting disables the floor', async () => {
      const args = { steps: [{ sql: 'select 1' }, { sql: 'DROP TABLE users' }] };
      const payload = intentPayload('run the migration', { args });
      const response = await submit(payload);
      assert.equal(response.statusCode, 202, response.body);
      const body = response.json();
      assert.equal(body.approval.queue, 'catastrophic-review');
      assert.equal(body.approval.requiredApprovals, 2);
      assert.ok(
        body.authorityDecision.matchedRules.some(
          (r: { id: string; priority: number }) => r.id === 'catastrophic-floor' && r.priority === 1,
        ),
      );
      assert.ok(
        body.authorityDecision.rationale.some((line: string) =>
          line.startsWith('catastrophic floor matched'),
        ),
      );
      const record = await t.app.inject({ method: 'GET', url: `/intent/${body.intentId}`, headers: owner });
      const received = record.json().auditEntries[0];
      assert.equal(received.eventType, 'intent.received');
      const row = await t.storage.db
        .selectFrom('audit_entries')
        .select('canonical')
        .where('tenant_id', '=', 'acme')
        .where('entry_hash', '=', received.entryHash)
        .executeTakeFirstOrThrow();
      const receivedPayload = JSON.parse(row.canonical).payload;
      assert.equal(receivedPayload.args, undefined, 'audit payloads never hold the raw args');
      assert.equal(receivedPayload.argsHash, sha256Hex(canonicalJson(args)));
      assert.ok(receivedPayload.argsPreview.length <= 256);

      const secret = await submit(
        intentPayload('merge pull request 3', { args: { apiToken: 'hunter2', nested: { password: 'pw' } } }),
      );
      const secretEntry = await t.storage.db
        .selectFrom('audit_entries')
        .select('canonical')
        .where('tenant_id', '=', 'acme')
        .where('intent_id', '=', secret.json().intentId)
        .orderBy('idx')
        .executeTakeFirstOrThrow();
      assert.ok(
        !secretEntry.canonical.includes('hunter2') && !secretEntry.canonical.includes('"pw"'),
        'secret-looking keys are redacted',
      );

      // Args whose preview cut falls inside an emoji are decided (the preview never ends in half
      // of a surrogate pair, which has no canonical JSON form), and the floor still matches among emoji.
      for (const emojiArgs of [{ t: `${'a'.repeat(248)}😀` }, { t: '😀'.repeat(130) }]) {
        const decided = await submit(intentPayload('merge pull request 4', { args: emojiArgs }));
        assert.ok([200, 202, 403].includes(decided.statusCode), decided.body);
      }
      const floorEmoji = await submit(
        intentPayload('merge pull request 5', { args: { cmd: `rm -rf / ${'😀'.repeat(200)}` } }),
      );
      assert.equal(floorEmoji.statusCode, 202, floorEmoji.body);

      // Request input cannot switch it off: a field saying so is refused outright.
      const sneaky = await submit({ ...payload, floor: { enabled: false } });
      assert.equal(sneaky.statusCode, 400);

      await t.app.inject({
        method: 'PUT',
        url: '/authority/floor/acme',
        headers: owner,
        payload: { enabled: false, agreementVersion: '2026-01' },
      });
      const withoutFloor = await submit(payload);
      assert.equal(withoutFloor.json().approval.queue, 'standard');
      await t.app.inject({
        method: 'PUT',
        url: '/authority/floor/acme',
        headers: owner,
        payload: { enabled: true },
      });
    });

    it('denies at the first gates: kill switch, then a blocked actor', async () => {
      await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-7',
        headers: owner,
        payload: { status: 'blocked', reason: 'test' },
      });
      const blocked = await submit(intentPayload('list open pull requests'));
      assert.equal(blocked.statusCode, 403);
      assert.deepEqual(blocked.json().authorityDecision.gateTrace, ['kill_switch', 'rbac']);
      assert.equal(blocked.json().authorityDecision.decidingRule.id, 'signal:actor-blocked');
      await t.app.inject({
        method: 'PUT',
        url: '/authority/actors/agent-7',
        headers: owner,
        payload: { status: 'active' },
      });

      await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: owner,
        payload: { enabled: true, reason: 'drill' },
      });
      const killed = await submit(intentPayload('list open pull requests'));
      assert.equal(killed.statusCode, 403);
      assert.deepEqual(killed.json().authorityDecision.gateTrace, ['kill_switch']);
      assert.equal(killed.json().authorityDecisionToken, undefined);
      await t.app.inject({
        method: 'PUT',
        url: '/authority/kill-switch/acme',
        headers: owner,
        payload: { enabled: false },
      });
      assert.equal((await submit(intentPayload('list open pull requests'))).statusCode, 200);
    });

    it('applies a tenant DENY rule over the starter allow (most severe wins), for that tenant only', async () => {
      const saved = await t.app.inject({
        method: 'POST',
        url: '/authority/policy',
        headers: globex,
        payload: {
          activate: true,
          rules: [
            { id: 'no-payments', effect: 'DENY', priority: 50, bindings: { targetSystems: ['acme/pay*'] } },
          ],
        },
      });
      assert.equal(saved.statusCode, 201, saved.body);
      assert.equal(saved.json().active, true);
      assert.ok(
        saved.json().rules.some((r: { id: string }) => r.id === 'starter/allow-reads'),
        'pack rules are kept',
      );
      const denied = await submit(intentPayload('list open pull requests', {}, 'globex'), globex);
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.json().authorityDecision.decidingRule.id, 'no-payments');
      assert.equal(
        (await submit(intentPayload('list open pull requests'))).statusCode,
        200,
        "acme's policy is untouched",
      );
    });

    it('validates strictly: unknown fields, the alternative shape, github mismatch, uninterpretable actions, tenant', async () => {
      const unknown = await submit({ ...intentPayload('list'), extra: 1 });
      assert.equal(unknown.statusCode, 400);
      const alternative = await submit({
        action: 'list',
        actor: 'bot',
        system: 'acme/payments',
        metadata: {},
      });
      assert.equal(alternative.statusCode, 400);
      assert.equal(alternative.json().error.code, 'VALIDATION_ERROR');
      assert.match(
        alternative.json().error.message,
        /tenantId.*actor.*targetSystem.*proposedAction.*riskContext/s,
      );
      const github = await submit(
        intentPayload('list', {
          riskContext: { baseRiskScore: 1, github: { owner: 'acme', repo: 'other' } },
        }),
      );
      assert.equal(github.statusCode, 400);
      const bad = await submit(intentPayload('  !!! ... '));
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.code, 'INVALID_INTENT');
      const mismatch = await submit(intentPayload('list', {}, 'globex'));
      assert.equal(mismatch.statusCode, 403);
      assert.equal(mismatch.json().error.code, 'TENANT_MISMATCH');
      const target = await submit({ ...intentPayload('list'), targetSystem: 'not a repo' });
      assert.equal(target.statusCode, 400);
      const noPermission = await submit(intentPayload('list'), owner);
      assert.notEqual(noPermission.statusCode, 403, 'owners may submit too');
    });

    it('replays an Idempotency-Key with the same body, refuses another body, and decides once under concurrency', async () => {
      const headers = { ...agent, 'idempotency-key': 'dag-node-7:1' };
      const first = await submit(intentPayload('list open pull requests'), headers);
      const again = await submit(intentPayload('list open pull requests'), headers);
      assert.equal(again.statusCode, first.statusCode);
      assert.deepEqual(again.json(), first.json());
      const other = await submit(intentPayload('list closed pull requests'), headers);
      assert.equal(other.statusCode, 409);
      const badKey = await submit(intentPayload('list'), { ...agent, 'idempotency-key': 'bad key\u0007' });
      assert.equal(badKey.statusCode, 400);
      // Another key of the tenant sending the same key and body is another request: 409, never
      // the first caller's answer and its token.
      const otherAgent = await t.roleHeaders('acme', 'agent');
      const borrowed = await submit(intentPayload('list open pull requests'), {
        ...otherAgent,
        'idempotency-key': 'dag-node-7:1',
      });
      assert.equal(borrowed.statusCode, 409, borrowed.body);
      assert.equal(borrowed.json().authorityDecisionToken, undefined);

      const concurrentHeaders = { ...agent, 'idempotency-key': 'burst-1' };
      const results = await Promise.all(
        Array.from({ length: 20 }, () => submit(intentPayload('merge pull request 7'), concurrentHeaders)),
      );
      assert.ok(
        results.every((r) => r.statusCode === 202),
        results.map((r) => r.statusCode).join(','),
      );
      assert.equal(new Set(results.map((r) => r.json().intentId)).size, 1);
      const rows = await t.storage.db
        .selectFrom('intents')
        .select('id')
        .where('tenant_id', '=', 'acme')
        .where('id', '=', results[0]?.json().intentId)
        .execute();
      assert.equal(rows.length, 1);
      const sameKeyOtherTenant = await submit(intentPayload('merge pull request 7', {}, 'globex'), {
        ...globex,
        'idempotency-key': 'burst-1',
      });
      assert.notEqual(
        sameKeyOtherTenant.json().intentId,
        results[0]?.json().intentId,
        'keys are scoped per tenant',
      );
    });

    it('stores a refused request (400) under its Idempotency-Key like a decision: replayed, never decided later', async () => {
      const refusals: Array<[string, Record<string, unknown>, string]> = [
        ['refused-invalid-intent', intentPayload('!!!'), 'INVALID_INTENT'],
        ['refused-schema', { ...intentPayload('list open pull requests'), extra: true }, 'VALIDATION_ERROR'],
        ['refused-shape', { action: 'list', agentId: 'a1' }, 'VALIDATION_ERROR'],
      ];
      for (const [key, body, code] of refusals) {
        const headers = { ...agent, 'idempotency-key': key };
        const first = await submit(body, headers);
        assert.equal(first.statusCode, 400, first.body);
        assert.equal(first.json().error.code, code);
        const again = await submit(body, headers);
        assert.equal(again.statusCode, 400);
        assert.deepEqual(again.json(), first.json(), 'the stored answer, request id included');
        // The key is spent on the refused body: a valid body under it is another request.
        const valid = await submit(intentPayload('list open pull requests'), headers);
        assert.equal(valid.statusCode, 409, valid.body);
        assert.equal(valid.json().error.code, 'CONFLICT');
      }
      // Without a key nothing is stored: the same refusal again, with a request id of its own.
      const first = await submit(intentPayload('!!!'));
      const again = await submit(intentPayload('!!!'));
      assert.equal(again.json().error.code, 'INVALID_INTENT');
      assert.notEqual(again.json().error.requestId, first.json().error.requestId);
    });

    it('reads intents back by id and lists them newest first with filters; other tenants get 404', async () => {
      const created = (await submit(intentPayload('merge pull request 9'))).json();
      const read = await t.app.inject({
        method: 'GET',
        url: `/v1/intent/${created.intentId}`,
        headers: agent,
      });
      assert.equal(read.statusCode, 200, read.body);
      const view = read.json();
      assert.deepEqual(Object.keys(view).sort(), [
        'approval',
        'auditEntries',
        'authorityDecision',
        'correlationId',
        'createdAt',
        'execution',
        'hypotheses',
        'intentId',
        'request',
        'status',
        'tenantId',
        'tokenIssued',
      ]);
      assert.equal(view.status, 'ESCALATED');
      assert.equal(view.tokenIssued, false);
      assert.equal(view.request.proposedAction, 'merge pull request 9');
      const foreign = await t.app.inject({
        method: 'GET',
        url: `/intent/${created.intentId}`,
        headers: globex,
      });
      assert.equal(foreign.statusCode, 404);

      const page = (await t.app.inject({ method: 'GET', url: '/intents?limit=2', headers: agent })).json();
      assert.equal(page.intents.length, 2);
      assert.equal(page.intents[0].intentId, created.intentId);
      const next = (
        await t.app.inject({
          method: 'GET',
          url: `/intents?limit=2&cursor=${page.nextCursor}`,
          headers: agent,
        })
      ).json();
      assert.ok(next.intents.every((i: { intentId: string }) => i.intentId < page.intents[1].intentId));
      const escalated = (
        await t.app.inject({ method: 'GET', url: '/intents?status=ESCALATED&limit=200', headers: agent })
      ).json();
      assert.ok(
        escalated.intents.length > 0 &&
          escalated.intents.every((i: { status: string }) => i.status === 'ESCALATED'),
      );
    });

    it('fails closed: a signing failure is 500 AUTHORITY_LOOP_FAILED with no token and nothing recorded', async () => {
      const before = await t.storage.db
        .selectFrom('intents')
        .select('id')
        .where('tenant_id', '=', 'acme')
        .execute();
      const key = await t.services.signingKeys.ensureActive('acme');
      const original = await t.storage.db
        .selectFrom('signing_keys')
        .select('private_key')
        .where('kid', '=', key.kid)
        .executeTakeFirstOrThrow();
      // Build fresh services over the same database so no decrypted key is cached, with a damaged key at rest.
      await t.storage.db
        .updateTable('signing_keys')
        .set({ private_key: 'v1:AAAA:AAAA:AAAA' })
        .where('kid', '=', key.kid)
        .execute();
      const { app } = await buildSecondApp(t);
      try {
        const response = await app.inject({
          method: 'POST',
          url: '/intent',
          headers: agent,
          payload: intentPayload('list open pull requests'),
        });
        assert.equal(response.statusCode, 500);
        assert.equal(response.json().error.code, 'AUTHORITY_LOOP_FAILED');
        assert.ok(!response.body.includes('eyJ'), 'no token');
        const escalated = await app.inject({
          method: 'POST',
          url: '/intent',
          headers: agent,
          payload: intentPayload('merge pull request 1'),
        });
        assert.equal(escalated.statusCode, 202, 'no signature needed, no failure');
      } finally {
        await app.close();
        await t.storage.db
          .updateTable('signing_keys')
          .set({ private_key: original.private_key })
          .where('kid', '=', key.kid)
          .execute();
      }
      const afterRows = await t.storage.db
        .selectFrom('intents')
        .select('id')
        .where('tenant_id', '=', 'acme')
        .execute();
      assert.equal(afterRows.length, before.length + 1, 'only the escalation was recorded');
    });
  });
}

describe('POST /intent with the database gone', () => {
  it('answers 503 SERVICE_UNAVAILABLE and never a token', async () => {
    const t = await createTestApp('sqlite');
    try {
      const { ownerKey } = await t.createTenant('acme');
      const headers = { authorization: `Bearer ${ownerKey.key}`, 'x-tenant-id': 'acme' };
      await t.app.inject({ method: 'GET', url: '/tenant', headers });
      await t.storage.close();
      const response = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers,
        payload: intentPayload('list open pull requests'),
      });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.json().error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(response.json().authorityDecisionToken, undefined);
    } finally {
      await t.close();
    }
  });
});
