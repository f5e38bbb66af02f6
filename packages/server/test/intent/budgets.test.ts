import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildServer } from '../../src/app/build-server.js';
import { loadConfig } from '../../src/config/config.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { createTenantService } from '../../src/tenancy/tenant-service.js';
import {
  bearer,
  createTestApp,
  type Headers,
  manualClock,
  TEST_MASTER_KEY,
  type TestApp,
} from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { createTestStorage, ENGINES, type TestStorage } from '../helpers/storage.js';

const READ = 'list open pull requests';

function budgetBody(
  maxApproved: number,
  onExceeded: 'DENY' | 'ESCALATE',
  extra: Record<string, unknown> = {},
) {
  return {
    budgets: [{ id: 'reads', actorIds: ['agent-*'], window: 'hour', maxApproved, onExceeded, ...extra }],
  };
}

for (const engine of ENGINES) {
  describe(`budgets per actor (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let agent: Headers;
    const put = (body: unknown) =>
      t.app.inject({
        method: 'PUT',
        url: '/authority/budgets/acme',
        headers: owner,
        payload: body as object,
      });
    const submit = (headers: Headers = agent, extra: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: { ...headers, ...extra },
        payload: intentPayload(READ),
      });
    const usage = async (actorId = 'agent-7') => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/authority/budgets/acme/usage?actorId=${actorId}`,
        headers: owner,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await t.close();
    });

    it('refuses a bad budget list with 400 naming the path, and changes nothing', async () => {
      for (const [body, path] of [
        [{ budgets: [{ id: 'x', window: 'week', maxApproved: 1, onExceeded: 'DENY' }] }, '/budgets/0/window'],
        [
          { budgets: [{ id: 'x', window: 'day', maxApproved: -1, onExceeded: 'DENY' }] },
          '/budgets/0/maxApproved',
        ],
        [
          { budgets: [{ id: 'x', window: 'day', maxApproved: 1, onExceeded: 'ALLOW' }] },
          '/budgets/0/onExceeded',
        ],
        [
          { budgets: [{ id: 'x', window: 'day', maxApproved: 1, onExceeded: 'DENY', actorIds: [] }] },
          '/budgets/0/actorIds',
        ],
        [
          { budgets: [{ id: 'x', window: 'day', maxApproved: 1, onExceeded: 'DENY', extra: 1 }] },
          '/budgets/0/extra',
        ],
        [{ budgets: 'all' }, '/budgets'],
        [{}, '/budgets'],
      ] as const) {
        const res = await put(body);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error.code, 'VALIDATION_ERROR');
        assert.equal(res.json().error.details.issues[0].path, path, res.body);
      }
      const dup = await put({
        budgets: [
          { id: 'x', window: 'day', maxApproved: 1, onExceeded: 'DENY' },
          { id: 'x', window: 'hour', maxApproved: 1, onExceeded: 'DENY' },
        ],
      });
      assert.equal(dup.json().error.details.issues[0].path, '/budgets/1/id');
      const current = await t.app.inject({ method: 'GET', url: '/authority/budgets/acme', headers: owner });
      assert.deepEqual(current.json(), { tenantId: 'acme', budgets: [], updatedAt: null, updatedBy: null });
    });

    it('an agent may not read or change budgets; a policy admin may', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/authority/budgets/acme', headers: agent });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error.details.permission, 'authority:policy:read');
      const admin = await t.roleHeaders('acme', 'policy_admin');
      const ok = await t.app.inject({
        method: 'PUT',
        url: '/authority/budgets/acme',
        headers: admin,
        payload: { budgets: [] },
      });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    it('approves up to maxApproved, then answers the budget’s effect with a rationale naming budget, window and count; an idempotent replay counts once', async () => {
      const set = await put(budgetBody(2, 'DENY'));
      assert.equal(set.statusCode, 200, set.body);
      const first = await submit(agent, { 'idempotency-key': 'budget-once' });
      assert.equal(first.statusCode, 200, first.body);
      const replay = await submit(agent, { 'idempotency-key': 'budget-once' });
      assert.equal(replay.statusCode, 200);
      assert.equal(replay.json().intentId, first.json().intentId);
      assert.equal((await usage()).usage[0].approved, 1);
      assert.equal((await submit()).statusCode, 200);
      const refused = await submit();
      assert.equal(refused.statusCode, 403, refused.body);
      const decision = refused.json().authorityDecision;
      assert.deepEqual(decision.decidingRule, { id: 'signal:budget-exceeded', effect: 'DENY', priority: 0 });
      assert.equal(refused.json().authorityDecisionToken, undefined);
      const line = decision.rationale.find((l: string) => l.startsWith('budget reads exceeded'));
      assert.match(
        line,
        /actor agent-7 has 2 of 2 APPROVED decisions in the current hour \(UTC window from 2026-01-01T00:00:00.000Z\): DENY/,
      );
      const u = await usage();
      assert.deepEqual(u.usage, [
        {
          budgetId: 'reads',
          window: 'hour',
          windowStart: '2026-01-01T00:00:00.000Z',
          windowEnd: '2026-01-01T01:00:00.000Z',
          approved: 2,
          maxApproved: 2,
          remaining: 0,
          onExceeded: 'DENY',
        },
      ]);
      // Another actor has its own count; budgets of other actors do not apply to it.
      assert.deepEqual((await usage('human-1')).usage, []);
      // The next fixed window starts from zero.
      t.clock.advance(3_600_000);
      assert.equal((await submit()).statusCode, 200);
      assert.equal((await usage()).usage[0].approved, 1);
    });

    it('sweeps the counters of past windows only, and a swept window does not come back into the usage', async () => {
      assert.equal((await put(budgetBody(5, 'DENY'))).statusCode, 200);
      const counters = async () =>
        (
          await t.storage.db
            .selectFrom('budget_counters')
            .select('window_start')
            .where('tenant_id', '=', 'acme')
            .execute()
        ).map((row) => Number(row.window_start));
      assert.equal((await submit()).statusCode, 200);
      const old = await counters();
      assert.ok(old.length > 0);
      // The same day: nothing is past yet.
      assert.equal(await t.services.budgets.sweepPast(), 0);
      t.clock.advance(2 * 86_400_000);
      assert.equal((await submit()).statusCode, 200);
      const beforeSweep = await counters();
      const swept = await t.services.budgets.sweepPast();
      assert.equal(swept, old.length);
      const remaining = await counters();
      assert.deepEqual(remaining.sort(), beforeSweep.filter((start) => !old.includes(start)).sort());
      assert.ok(remaining.every((start) => start >= t.clock() - 86_400_000));
      assert.equal((await usage()).usage[0].approved, 1);
    });

    it('ESCALATE budgets escalate; approving the escalation does not count against the budget', async () => {
      t.clock.advance(3_600_000);
      await put(budgetBody(0, 'ESCALATE'));
      const escalated = await submit();
      assert.equal(escalated.statusCode, 202, escalated.body);
      assert.equal(escalated.json().authorityDecision.decidingRule.id, 'signal:budget-exceeded');
      const approver = await t.roleHeaders('acme', 'approver');
      const approved = await t.app.inject({
        method: 'POST',
        url: '/authority/approval',
        headers: approver,
        payload: {
          intentId: escalated.json().intentId,
          decision: 'approve',
          rationale: 'within the change window',
        },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal((await usage()).usage[0].approved, 0);
    });

    it('concurrent decisions take exactly maxApproved units; the others lose their signed token in the transaction', async () => {
      t.clock.advance(3_600_000);
      await put(budgetBody(3, 'DENY'));
      const responses = await Promise.all(Array.from({ length: 12 }, () => submit()));
      const approved = responses.filter((r) => r.statusCode === 200);
      assert.equal(approved.length, 3, responses.map((r) => r.statusCode).join(','));
      for (const r of responses.filter((x) => x.statusCode !== 200)) {
        assert.equal(r.statusCode, 403);
        assert.equal(r.json().authorityDecisionToken, undefined);
        assert.equal(r.json().authorityDecision.decidingRule.id, 'signal:budget-exceeded');
        const stored = await t.app.inject({
          method: 'GET',
          url: `/intent/${r.json().intentId}`,
          headers: agent,
        });
        assert.equal(stored.json().tokenIssued, false);
      }
      assert.equal((await usage()).usage[0].approved, 3);
    });

    it('audits budget changes with the old and new lists', async () => {
      await put({ budgets: [] });
      const rows = await t.storage.db
        .selectFrom('audit_entries')
        .select(['canonical'])
        .where('tenant_id', '=', 'acme')
        .where('event_type', '=', 'budgets.updated')
        .execute();
      assert.ok(rows.length >= 4);
      const last = JSON.parse(String(rows.at(-1)?.canonical)).payload;
      assert.deepEqual(last.new, []);
      assert.equal(last.old[0].id, 'reads');
    });

    it('matching a heavy budget list is charged to the evaluation budget: DENIED by signal:evaluation-budget, never slow', async () => {
      // 20 budgets of 20 globs, each 100 code points of `?` wide: (actor id length + 1) × 100 steps
      // per glob, so about 440,000 steps for a 10-character actor and 8 million for 200 characters.
      const heavy = Array.from({ length: 20 }, (_, i) => ({
        id: `heavy-${i}`,
        actorIds: Array.from({ length: 20 }, (_, j) => `*${'?'.repeat(99)}x${j}*`),
        window: 'hour',
        maxApproved: 1_000,
        onExceeded: 'DENY',
      }));
      assert.equal((await put({ budgets: heavy })).statusCode, 200);
      const decide = (actorId: string) =>
        t.app.inject({
          method: 'POST',
          url: '/intent',
          headers: agent,
          payload: intentPayload(READ, { actor: { id: actorId, type: 'agent' } }),
        });
      const short = await decide('agent-1234');
      assert.equal(short.statusCode, 200, short.body);
      const long = await decide(`agent-${'a'.repeat(194)}`);
      assert.equal(long.statusCode, 403, long.body);
      const decision = long.json().authorityDecision;
      assert.equal(decision.decidingRule.id, 'signal:evaluation-budget');
      assert.ok(
        decision.rationale.some((line: string) => line.startsWith("matching the tenant's budgets needs")),
        decision.rationale.join('\n'),
      );
      const evaluated = await t.app.inject({
        method: 'POST',
        url: '/authority/evaluate',
        headers: agent,
        payload: {
          ...intentPayload(READ, { actor: { id: `agent-${'a'.repeat(194)}`, type: 'agent' } }),
          tenantId: undefined,
        },
      });
      assert.equal(evaluated.statusCode, 200, evaluated.body);
      assert.deepEqual(
        [evaluated.json().decision, evaluated.json().decidingRule.id],
        ['DENY', 'signal:evaluation-budget'],
      );
      await put({ budgets: [] });
    });
  });

  describe(`budgets across two instances on one database (${engine})`, () => {
    let testStorage: TestStorage;
    let second: Storage;
    const apps: App[] = [];
    let headers: Headers;

    before(async () => {
      testStorage = await createTestStorage(engine);
      second =
        engine === 'sqlite'
          ? openStorage({ sqliteFile: testStorage.location.sqliteFile })
          : openStorage({
              databaseUrl: process.env.DATABASE_URL,
              pgSchema: testStorage.location.pgSchema,
              poolSize: 4,
            });
      const clock = manualClock();
      for (const storage of [testStorage.storage, second]) {
        apps.push(
          await buildServer({
            config: loadConfig({}),
            storage,
            clock,
            masterKey: TEST_MASTER_KEY,
            backgroundJobs: false,
          }),
        );
      }
      for (const app of apps) await app.ready();
      const created = await createTenantService(testStorage.storage, clock).create({
        id: 'acme',
        plan: 'pro',
      });
      headers = bearer(created.ownerKey.key, 'acme');
    });
    after(async () => {
      for (const app of apps) await app.close();
      await second.close();
      await testStorage.dispose();
    });

    it('decisions racing for the last units from two instances approve exactly maxApproved', async () => {
      const set = await apps[0]?.inject({
        method: 'PUT',
        url: '/authority/budgets/acme',
        headers,
        payload: budgetBody(5, 'DENY'),
      });
      assert.equal(set?.statusCode, 200, set?.body);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (apps[i % 2] as App).inject({
            method: 'POST',
            url: '/intent',
            headers,
            payload: intentPayload(READ),
          }),
        ),
      );
      const codes = responses.map((r) => r.statusCode);
      assert.equal(codes.filter((c) => c === 200).length, 5, codes.join(','));
      assert.equal(codes.filter((c) => c === 403).length, 15, codes.join(','));
      for (const r of responses.filter((x) => x.statusCode === 403)) {
        assert.equal(r.json().authorityDecisionToken, undefined);
      }
      const usage = await apps[1]?.inject({
        method: 'GET',
        url: '/authority/budgets/acme/usage?actorId=agent-7',
        headers,
      });
      assert.equal(usage?.json().usage[0].approved, 5);
    });
  });
}
