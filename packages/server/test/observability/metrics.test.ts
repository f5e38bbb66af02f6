import assert from 'node:assert/strict';
import { PerformanceObserver } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Registry } from 'prom-client';
import { observePendingApprovals } from '../../src/app/decision-metrics.js';
import { observeCheckpointLag } from '../../src/audit/checkpoint-metrics.js';
import { observeWebhookOutbox } from '../../src/webhooks/webhook-metrics.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { intentPayload } from '../helpers/intents.js';
import { createTestStorage, ENGINES } from '../helpers/storage.js';
import { clearState, issue, moveGoal, registerActors, tokenBody } from '../physical-api/fixtures.js';
import { createEndpoint, testWorker } from '../webhooks/fixtures.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { parseExposition, scrape } from './scrape.js';

/**
 * Runs a full garbage collection and waits until the runtime reported it, so that the GC duration
 * histogram has a sample whatever the process did before (it has none until a collection ran).
 */
async function collectGarbage(): Promise<void> {
  const reported = new Promise<void>((resolve) => {
    const observer = new PerformanceObserver(() => {
      observer.disconnect();
      resolve();
    });
    observer.observe({ entryTypes: ['gc'] });
  });
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  await reported;
  // prom-client's own observer is called back in the same batch; let it run.
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Series a stock Node.js dashboard (prom-client's default metrics) reads, by their usual names. */
const NODE_SERIES = [
  'process_cpu_user_seconds_total',
  'process_cpu_system_seconds_total',
  'process_resident_memory_bytes',
  'process_start_time_seconds',
  'process_open_fds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_heap_size_used_bytes',
  'nodejs_heap_size_total_bytes',
  'nodejs_gc_duration_seconds_count',
  'nodejs_version_info',
];

for (const engine of ENGINES) {
  describe(`GET /metrics (${engine})`, () => {
    let t: TestApp;
    let agent: Headers;
    let owner: Headers;
    let receiver: Receiver;

    before(async () => {
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      receiver = await startReceiver(() => 500);
      owner = await t.ownerHeaders('acme');
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    it('every outcome of the labelled counters is there from the start, at 0, before the first of its kind', async () => {
      const metrics = await scrape(t.app);
      const zero: Array<[string, Record<string, string>]> = [
        ...['APPROVED', 'ESCALATED', 'DENIED'].map((decision): [string, Record<string, string>] => [
          'authority_decisions_total',
          { decision },
        ]),
        ...['ALLOW', 'ESCALATE', 'DENY'].map((decision): [string, Record<string, string>] => [
          'authority_physical_decisions_total',
          { decision },
        ]),
        ...['succeeded', 'retrying', 'dead'].map((status): [string, Record<string, string>] => [
          'authority_webhook_deliveries_total',
          { status },
        ]),
        ...['key', 'address', 'login_address', 'login_account'].map(
          (limit): [string, Record<string, string>] => ['authority_rate_limited_total', { limit }],
        ),
        ['authority_connector_executions_total', { type: 'http', status: 'executed' }],
        ['authority_connector_executions_total', { type: 'noop', status: 'rejected' }],
      ];
      for (const [name, labels] of zero)
        assert.equal(metrics.value(name, labels), 0, `${name} ${JSON.stringify(labels)}`);
    });

    it('Node’s process and runtime series under their usual names, and no other series in their namespaces', async () => {
      await collectGarbage();
      const metrics = await scrape(t.app);
      for (const name of NODE_SERIES)
        assert.ok(
          metrics.samples.some((s) => s.name === name),
          name,
        );
      const families = [...metrics.types.keys()];
      assert.deepEqual(
        families.filter(
          (name) => name.startsWith('authority_process_') || name.startsWith('authority_nodejs_'),
        ),
        [],
        'no prefixed copies',
      );
      const ours = families.filter((name) => !name.startsWith('process_') && !name.startsWith('nodejs_'));
      assert.deepEqual(
        ours.filter((name) => !name.startsWith('authority_')),
        [],
        'every series of the service is authority_*',
      );
    });

    it('decisions are counted under the label `decision`; latency buckets resolve a millisecond', async () => {
      const before = await scrape(t.app);
      const approved = before.value('authority_decisions_total', { decision: 'APPROVED' }) ?? 0;
      const response = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list open pull requests'),
      });
      assert.equal(response.statusCode, 200, response.body);
      const metrics = await scrape(t.app);
      assert.equal(metrics.value('authority_decisions_total', { decision: 'APPROVED' }), approved + 1);
      assert.ok(
        metrics.samples.every((s) => !s.name.includes('decisions_total') || !('outcome' in s.labels)),
        'one label name for the decision on both surfaces',
      );
      const route = { method: 'POST', route: '/intent', status: '200' };
      const buckets = metrics.samples
        .filter((s) => s.name === 'authority_http_request_duration_seconds_bucket')
        .filter((s) => s.labels.route === '/intent' && s.labels.status === '200')
        .map((s) => s.labels.le);
      for (const le of ['0.00025', '0.0005', '0.001', '0.002', '0.003', '0.005', '0.0075', '0.01']) {
        assert.ok(buckets.includes(le), `bucket le=${le}`);
      }
      assert.equal(metrics.value('authority_http_request_duration_seconds_count', route), 1);
      assert.ok((metrics.value('authority_audit_append_seconds_count') ?? 0) >= 1);
    });

    it('pending approvals and checkpoint lag follow the database', async () => {
      const escalated = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('merge pull request 7'),
      });
      assert.equal(escalated.statusCode, 202, escalated.body);
      let metrics = await scrape(t.app);
      assert.equal(metrics.value('authority_pending_approvals', { queue: 'standard' }), 1);
      assert.equal(metrics.value('authority_pending_approvals', { queue: 'catastrophic-review' }), 0);
      const lagging = metrics.value('authority_checkpoint_lag_entries') ?? 0;
      assert.ok(lagging > 0, `entries past the last checkpoint: ${lagging}`);
      t.clock.advance(3_600_000);
      assert.ok((metrics.value('authority_checkpoint_lag_seconds') ?? -1) >= 0);
      metrics = await scrape(t.app);
      assert.ok(
        (metrics.value('authority_checkpoint_lag_seconds') ?? 0) >= 3_600,
        'the oldest waits an hour',
      );
      assert.equal(metrics.value('authority_pending_approvals', { queue: 'standard' }), 0, 'expired');
      await t.services.checkpointer.sweep();
      metrics = await scrape(t.app);
      assert.equal(metrics.value('authority_checkpoint_lag_entries'), 0);
      assert.equal(metrics.value('authority_checkpoint_lag_seconds'), 0);
    });

    it('webhook backlog and dead letters follow the outbox', async () => {
      const start = await scrape(t.app);
      assert.equal(start.value('authority_webhook_dead_letters'), 0);
      await createEndpoint(t, owner, `${receiver.base}/hooks`, ['decision.denied']);
      const denied = await t.app.inject({
        method: 'POST',
        url: '/intent',
        headers: agent,
        payload: intentPayload('list branches', {
          riskContext: { baseRiskScore: 10, touchesProduction: true },
        }),
      });
      assert.equal(denied.statusCode, 403, denied.body);
      let metrics = await scrape(t.app);
      assert.equal(metrics.value('authority_webhook_backlog', { status: 'pending' }), 1);
      assert.equal(metrics.value('authority_webhook_backlog', { status: 'retrying' }), 0);
      const worker = testWorker(t);
      assert.equal(await worker.runOnce(), 1, 'the receiver answers 500');
      metrics = await scrape(t.app);
      assert.equal(metrics.value('authority_webhook_backlog', { status: 'pending' }), 0);
      assert.equal(metrics.value('authority_webhook_backlog', { status: 'retrying' }), 1);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        t.clock.advance(3_600_000);
        await worker.runOnce();
      }
      metrics = await scrape(t.app);
      assert.equal(metrics.value('authority_webhook_backlog', { status: 'retrying' }), 0);
      assert.equal(metrics.value('authority_webhook_dead_letters'), 1, 'the schedule is exhausted');
    });

    it('physical decisions count in the commit histograms, and pending tickets under queue physical', async () => {
      await registerActors(t, owner);
      const before = await scrape(t.app);
      const commits = before.value('authority_decision_commit_batch_size_count') ?? 0;
      const appends = before.value('authority_audit_append_seconds_count') ?? 0;
      assert.equal(before.value('authority_pending_approvals', { queue: 'physical' }), 0);
      const allowed = await issue(t, agent, tokenBody({ physicalState: clearState(t.clock()) }));
      assert.equal(allowed.statusCode, 200, allowed.body);
      assert.equal(allowed.json().decision, 'ALLOW');
      const escalated = await issue(
        t,
        agent,
        tokenBody({ goal: moveGoal(), physicalState: clearState(t.clock()) }),
      );
      assert.equal(escalated.statusCode, 200, escalated.body);
      assert.equal(escalated.json().decision, 'ESCALATE');
      const after = await scrape(t.app);
      assert.equal(after.value('authority_decision_commit_batch_size_count'), commits + 2, 'one commit each');
      assert.equal(after.value('authority_audit_append_seconds_count'), appends + 2);
      assert.equal(after.value('authority_pending_approvals', { queue: 'physical' }), 1);
      t.clock.advance(3_600_000);
      const later = await scrape(t.app);
      assert.equal(later.value('authority_pending_approvals', { queue: 'physical' }), 0, 'expired');
    });

    it(
      engine === 'postgres'
        ? 'the PostgreSQL pool: connections by state, size, waiters, acquisitions and wait'
        : 'SQLite has no pool: no pool series',
      async () => {
        const metrics = await scrape(t.app);
        if (engine === 'sqlite') {
          assert.deepEqual(
            [...metrics.types.keys()].filter((name) => name.startsWith('authority_db_pool')),
            [],
          );
          return;
        }
        const idle = metrics.value('authority_db_pool_connections', { state: 'idle' }) ?? -1;
        const used = metrics.value('authority_db_pool_connections', { state: 'used' }) ?? -1;
        assert.ok(idle >= 0 && used >= 0 && idle + used >= 1, `idle ${idle}, used ${used}`);
        const max = metrics.value('authority_db_pool_max_connections') ?? 0;
        assert.ok(max >= idle + used, `size ${max}`);
        assert.equal(metrics.value('authority_db_pool_waiting'), 0);
        const acquired = metrics.value('authority_db_pool_acquires_total') ?? 0;
        assert.ok(acquired > 0);
        assert.ok((metrics.value('authority_db_pool_wait_seconds_total') ?? -1) >= 0);
        await t.app.inject({ method: 'GET', url: '/tenant', headers: owner });
        const later = await scrape(t.app);
        assert.ok((later.value('authority_db_pool_acquires_total') ?? 0) > acquired, 'acquisitions move');
      },
    );
  });
}

describe('GET /metrics while the database is down', () => {
  it('the gauges read from the database leave their samples out instead of reporting 0', async () => {
    const { storage, dispose } = await createTestStorage('sqlite');
    const registry = new Registry();
    observePendingApprovals(registry, storage, () => Date.now());
    observeWebhookOutbox(registry, storage);
    observeCheckpointLag(registry, storage, () => Date.now());
    const up = parseExposition(await registry.metrics());
    assert.equal(up.value('authority_webhook_dead_letters'), 0);
    assert.equal(up.value('authority_checkpoint_lag_entries'), 0);
    assert.equal(up.value('authority_checkpoint_lag_seconds'), 0);
    assert.equal(up.value('authority_pending_approvals', { queue: 'physical' }), 0);
    await storage.close();
    try {
      const down = parseExposition(await registry.metrics());
      for (const name of [
        'authority_pending_approvals',
        'authority_webhook_backlog',
        'authority_webhook_dead_letters',
        'authority_checkpoint_lag_entries',
        'authority_checkpoint_lag_seconds',
      ]) {
        assert.equal(down.types.get(name), 'gauge', `${name} is still declared`);
        assert.deepEqual(
          down.samples.filter((sample) => sample.name === name),
          [],
          `${name} has no sample`,
        );
      }
    } finally {
      await dispose();
    }
  });
});
