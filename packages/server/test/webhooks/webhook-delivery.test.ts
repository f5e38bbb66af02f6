import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhookSignature } from '@authority-runtime/sdk';
import canonicalize from 'canonicalize';
import { enqueueEvent } from '../../src/webhooks/outbox.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { chainEvents } from '../helpers/audit.js';
import { ENGINES } from '../helpers/storage.js';
import { createEndpoint, deliveryRow, enqueueDecision, SCHEDULE, testWorker } from './fixtures.js';
import { type Receiver, startReceiver } from './receiver.js';

const mac = (secret: string, text: string) =>
  `sha256=${createHmac('sha256', secret).update(text, 'utf8').digest('hex')}`;

for (const engine of ENGINES) {
  describe(`webhook delivery to a real receiver (${engine})`, () => {
    let t: TestApp;
    let receiver: Receiver;

    before(async () => {
      // Tests reach a receiver on 127.0.0.1, which the egress guard allows only when configured.
      t = await createTestApp(engine, { ALLOW_PRIVATE_EGRESS: '1' });
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    /** A fresh tenant with an endpoint on the receiver; requests to it are those under `path`. */
    async function tenantWithEndpoint(tenantId: string, events: string[] = ['*']) {
      const headers = await t.ownerHeaders(tenantId);
      const endpoint = await createEndpoint(t, headers, `${receiver.base}/${tenantId}`, events);
      const requests = () => receiver.received.filter((r) => r.path === `/${tenantId}`);
      return { headers, endpoint, requests };
    }

    /** Resolves once `done` holds, asking every 10 ms; fails the test after 10 s. */
    async function until(done: () => Promise<boolean>, what: string) {
      const deadline = Date.now() + 10_000;
      while (!(await done())) {
        if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
        await sleep(10);
      }
    }

    /** `PATCH /webhooks/:id {status: "active"}`: its queued deliveries resume. */
    async function reenable(headers: Headers, endpointId: string) {
      const enabled = await t.app.inject({
        method: 'PATCH',
        url: `/webhooks/${endpointId}`,
        headers,
        payload: { status: 'active' },
      });
      assert.equal(enabled.statusCode, 200, enabled.body);
    }

    async function deliveries(headers: Headers, endpointId: string) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/webhooks/${endpointId}/deliveries`,
        headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().deliveries as Array<Record<string, unknown>>;
    }

    it('a chain break found by verification is delivered once, with both signatures valid under the secret', async () => {
      receiver.respond(() => 204);
      const { headers, endpoint, requests } = await tenantWithEndpoint('chain', ['chain.break']);
      const decisionsOnly = await createEndpoint(t, headers, `${receiver.base}/chain-decisions`, [
        'decision.completed',
      ]);
      const row = await t.storage.db
        .selectFrom('audit_entries')
        .select(['idx', 'canonical'])
        .where('tenant_id', '=', 'chain')
        .where('event_type', '=', 'webhook.created')
        .orderBy('idx')
        .executeTakeFirstOrThrow();
      const tampered = row.canonical.replace('"webhook.created"', '"webhook.kreated"');
      assert.notEqual(tampered, row.canonical);
      await t.storage.db
        .updateTable('audit_entries')
        .set({ canonical: tampered })
        .where('tenant_id', '=', 'chain')
        .where('idx', '=', row.idx)
        .execute();
      const verify = () => t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers, payload: {} });
      const result = (await verify()).json();
      assert.deepEqual(
        [result.valid, result.brokenAt, result.reason],
        [false, row.idx, 'ENTRY_HASH_MISMATCH'],
      );
      await verify();

      const queued = await deliveries(headers, endpoint.id);
      assert.equal(queued.length, 1, 'one event per (tenant, brokenAt), however often verification runs');
      assert.deepEqual(await deliveries(headers, decisionsOnly.id), [], 'not subscribed to chain.break');

      t.clock.advance(1_234);
      const worker = testWorker(t);
      assert.equal(await worker.runOnce(), 1);
      const [received] = requests();
      assert.ok(received);
      const sentAt = t.clock();

      const payload = JSON.parse(received.rawBody);
      const detectedAt = new Date(sentAt - 1_234).toISOString();
      assert.deepEqual(payload, {
        eventId: queued[0]?.eventId,
        event: 'chain.break',
        tenantId: 'chain',
        intentId: null,
        decision: null,
        riskScore: null,
        brokenAt: row.idx,
        reason: 'ENTRY_HASH_MISMATCH',
        timestamp: detectedAt,
        sentAt: new Date(sentAt).toISOString(),
        signature: payload.signature,
      });
      // Both signatures of contract §7, recomputed from the secret independently of the service.
      assert.equal(received.headers['x-service-signature'], mac(endpoint.secret, received.rawBody));
      const { signature, ...unsigned } = payload;
      assert.equal(signature, mac(endpoint.secret, canonicalize(unsigned) as string));
      assert.equal(received.headers['x-service-event-id'], payload.eventId);
      assert.equal(received.headers['x-service-timestamp'], String(Math.floor(sentAt / 1000)));
      assert.equal(received.headers['content-type'], 'application/json');
      assert.match(received.headers['user-agent'] ?? '', /^authority-runtime-webhooks\//);
      // And the SDK's receiver check accepts it.
      assert.deepEqual(
        verifyWebhookSignature({
          rawBody: received.rawBody,
          signature: received.headers['x-service-signature'],
          secret: endpoint.secret,
          clock: t.clock,
        }),
        { valid: true, payload },
      );

      const [delivered] = await deliveries(headers, endpoint.id);
      assert.deepEqual(
        [delivered?.status, delivered?.attempts, delivered?.lastStatusCode, delivered?.nextAttemptAt],
        ['succeeded', 1, 204, null],
      );
      assert.equal(await worker.runOnce(), 0, 'a delivered event is not sent again');
      assert.equal(requests().length, 1);
    });

    it('a receiver that fails the first attempts gets the event once it recovers; every attempt is re-signed', async () => {
      const { headers, endpoint, requests } = await tenantWithEndpoint('flaky');
      receiver.respond(({ path }) => (path === '/flaky' && requests().length < 2 ? 503 : 200));
      const { eventId, deliveryIds } = await enqueueDecision(t, 'flaky', {
        event: 'decision.escalated',
        decision: 'ESCALATED',
        riskScore: 75,
      });
      const worker = testWorker(t);

      assert.equal(await worker.runOnce(), 1);
      let row = await deliveryRow(t, 'flaky', deliveryIds[0] as string);
      assert.deepEqual([row.status, row.attempts, row.last_status_code], ['retrying', 1, 503]);
      // The fixture's random() is 0.5: full jitter draws the wait from [0, step], so half the step.
      assert.equal(row.next_attempt_at, t.clock() + SCHEDULE[0] / 2, 'jitter drawn from [0, 10 s]');
      assert.equal(await worker.runOnce(), 0, 'not due before its next attempt');

      t.clock.advance(SCHEDULE[0] / 2);
      assert.equal(await worker.runOnce(), 1);
      row = await deliveryRow(t, 'flaky', deliveryIds[0] as string);
      assert.deepEqual([row.status, row.attempts], ['retrying', 2]);
      assert.equal(row.next_attempt_at, t.clock() + SCHEDULE[1] / 2);

      t.clock.advance(SCHEDULE[1] / 2);
      assert.equal(await worker.runOnce(), 1);
      row = await deliveryRow(t, 'flaky', deliveryIds[0] as string);
      assert.deepEqual(
        [row.status, row.attempts, row.last_status_code, row.next_attempt_at],
        ['succeeded', 3, 200, null],
      );

      const attempts = requests();
      assert.deepEqual(
        attempts.map((r) => r.answered),
        [503, 503, 200],
      );
      const sentAts = new Set<string>();
      for (const attempt of attempts) {
        const payload = JSON.parse(attempt.rawBody);
        assert.equal(payload.eventId, eventId);
        sentAts.add(payload.sentAt);
        const check = verifyWebhookSignature({
          rawBody: attempt.rawBody,
          signature: attempt.headers['x-service-signature'],
          secret: endpoint.secret,
          clock: () => Date.parse(payload.sentAt),
        });
        assert.equal(check.valid, true);
      }
      assert.equal(sentAts.size, 3, 'each attempt carries its own sentAt');
      const [listed] = await deliveries(headers, endpoint.id);
      assert.equal(listed?.status, 'succeeded');
    });

    it('dead-letters after the schedule; redeliver sends the same event again as a new delivery', async () => {
      const { headers, endpoint, requests } = await tenantWithEndpoint('dead');
      receiver.respond(({ path }) => (path === '/dead' ? 500 : 204));
      const { eventId, deliveryIds } = await enqueueDecision(t, 'dead');
      const worker = testWorker(t);
      for (const step of SCHEDULE) {
        assert.equal(await worker.runOnce(), 1);
        t.clock.advance(step);
      }
      assert.equal(await worker.runOnce(), 1);
      const row = await deliveryRow(t, 'dead', deliveryIds[0] as string);
      assert.deepEqual(
        [row.status, row.attempts, row.last_status_code, row.last_error, row.next_attempt_at],
        ['dead', SCHEDULE.length + 1, 500, 'HTTP 500', null],
      );
      t.clock.advance(86_400_000);
      assert.equal(await worker.runOnce(), 0, 'dead is final');
      assert.equal(requests().length, SCHEDULE.length + 1);

      receiver.respond(() => 204);
      const redeliver = await t.app.inject({
        method: 'POST',
        url: `/webhooks/${endpoint.id}/deliveries/${deliveryIds[0]}/redeliver`,
        headers,
      });
      assert.equal(redeliver.statusCode, 202);
      assert.equal(await worker.runOnce(), 1);
      const last = requests().at(-1);
      assert.equal(last?.answered, 204);
      assert.equal(JSON.parse(last?.rawBody ?? '{}').eventId, eventId);
      const statuses = (await deliveries(headers, endpoint.id)).map((d) => d.status);
      assert.deepEqual(statuses, ['succeeded', 'dead']);
    });

    it('a 410 disables the endpoint (audited); its queued deliveries wait until it is re-enabled', async () => {
      const { headers, endpoint, requests } = await tenantWithEndpoint('gone');
      receiver.respond(({ path }) => (path === '/gone' ? 410 : 204));
      const first = await enqueueDecision(t, 'gone');
      t.clock.advance(1);
      const second = await enqueueDecision(t, 'gone', { event: 'decision.denied', decision: 'DENIED' });
      const worker = testWorker(t, { batchSize: 1 });

      assert.equal(await worker.runOnce(), 1);
      const row = await deliveryRow(t, 'gone', first.deliveryIds[0] as string);
      assert.deepEqual([row.status, row.last_status_code], ['dead', 410]);
      const disabled = (
        await t.app.inject({ method: 'GET', url: `/webhooks/${endpoint.id}`, headers })
      ).json();
      assert.deepEqual(
        [disabled.status, disabled.disabledReason],
        ['disabled', 'the receiver answered 410 Gone'],
      );
      const entry = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'actor_type', 'canonical'])
        .where('tenant_id', '=', 'gone')
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual([entry.event_type, entry.actor_type], ['webhook.disabled', 'system']);
      assert.deepEqual(JSON.parse(entry.canonical).payload, {
        webhookId: endpoint.id,
        url: `${receiver.base}/gone`,
        deliveryId: first.deliveryIds[0],
        eventId: first.eventId,
        statusCode: 410,
      });

      assert.equal(await worker.runOnce(), 0, 'nothing is sent to a disabled endpoint');
      assert.deepEqual((await enqueueDecision(t, 'gone')).deliveryIds, [], 'nor queued for it');
      assert.equal(requests().length, 1);

      receiver.respond(() => 204);
      await reenable(headers, endpoint.id);
      assert.equal(await worker.runOnce(), 1);
      assert.equal((await deliveryRow(t, 'gone', second.deliveryIds[0] as string)).status, 'succeeded');
      assert.equal(JSON.parse(requests()[1]?.rawBody ?? '{}').eventId, second.eventId);
    });

    it('a 410 to deliveries sent together ends only the one that disabled the endpoint; the others wait for it', async () => {
      const { headers, endpoint, requests } = await tenantWithEndpoint('gone-batch');
      receiver.respond(({ path }) => (path === '/gone-batch' ? 410 : 204));
      const queued: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        queued.push(...(await enqueueDecision(t, 'gone-batch')).deliveryIds);
        t.clock.advance(1);
      }
      const worker = testWorker(t, { batchSize: 3 });
      assert.equal(await worker.runOnce(), 3);
      assert.equal(requests().length, 3, 'the three were sent in one batch');
      const rows = await Promise.all(queued.map((id) => deliveryRow(t, 'gone-batch', id)));
      assert.deepEqual(rows.map((row) => row.status).sort(), ['dead', 'retrying', 'retrying']);
      assert.ok(rows.every((row) => row.last_status_code === 410));
      const disabledEntries = await chainEvents(t, 'gone-batch', 'webhook.disabled');
      assert.equal(disabledEntries.length, 1, 'one disable, one audit entry');
      assert.equal(await worker.runOnce(), 0, 'nothing is sent to the disabled endpoint');

      receiver.respond(() => 204);
      await reenable(headers, endpoint.id);
      assert.equal(await worker.runOnce(), 2);
      const after = await Promise.all(queued.map((id) => deliveryRow(t, 'gone-batch', id)));
      assert.deepEqual(after.map((row) => row.status).sort(), ['dead', 'succeeded', 'succeeded']);
    });

    it('a receiver that does not answer holds one place, not the deliveries due after it', async () => {
      const slow = await tenantWithEndpoint('stalled');
      const fast = await tenantWithEndpoint('prompt');
      receiver.respond(({ path }) => (path === '/stalled' ? 'hang' : 204));
      const [stalledId] = (await enqueueDecision(t, 'stalled')).deliveryIds;
      const worker = testWorker(t, { timeoutMs: 1_500 });
      worker.start(20);
      try {
        await until(async () => slow.requests().length > 0, 'the stalled request arrives');
        // Due only now, after the poll that sent the stalled one.
        const [promptId] = (await enqueueDecision(t, 'prompt')).deliveryIds;
        await until(
          async () => (await deliveryRow(t, 'prompt', promptId as string)).status === 'succeeded',
          'the prompt delivery succeeds',
        );
        assert.equal(fast.requests().length, 1);
        const stalled = await deliveryRow(t, 'stalled', stalledId as string);
        assert.equal(
          stalled.attempts,
          0,
          'delivered while the stalled attempt was still waiting for its answer',
        );
      } finally {
        await worker.stop();
      }
      const ended = await deliveryRow(t, 'stalled', stalledId as string);
      assert.deepEqual(
        [ended.status, ended.attempts],
        ['retrying', 1],
        'stop waits for the attempt under way',
      );
      assert.match(ended.last_error ?? '', /^timeout/);
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/webhooks/${slow.endpoint.id}`,
        headers: slow.headers,
      });
      assert.equal(removed.statusCode, 204, 'its retry is not left to the tests after this one');
    });

    it('a timeout or a redirect is a failed attempt; redirects are not followed', async () => {
      const { requests } = await tenantWithEndpoint('slow');
      receiver.respond(({ path }) => (path === '/slow' ? (requests().length === 0 ? 'hang' : 302) : 204));
      const { deliveryIds } = await enqueueDecision(t, 'slow');
      const worker = testWorker(t, { timeoutMs: 200 });
      assert.equal(await worker.runOnce(), 1);
      let row = await deliveryRow(t, 'slow', deliveryIds[0] as string);
      assert.equal(row.status, 'retrying');
      assert.equal(row.last_status_code, null);
      assert.match(row.last_error ?? '', /^timeout: no answer within 200 ms/);

      t.clock.advance(SCHEDULE[0]);
      assert.equal(await worker.runOnce(), 1);
      row = await deliveryRow(t, 'slow', deliveryIds[0] as string);
      assert.deepEqual([row.status, row.last_status_code, row.last_error], ['retrying', 302, 'HTTP 302']);
      assert.equal(requests().length, 2);
      assert.equal(
        receiver.received.filter((r) => r.path === '/elsewhere').length,
        0,
        'the Location was not followed',
      );
    });

    it('enqueueEvent writes deliveries only with its transaction, for active subscribed endpoints, one eventId', async () => {
      const headers = await t.ownerHeaders('outbox');
      const all = await createEndpoint(t, headers, `${receiver.base}/outbox-all`, ['*']);
      const denials = await createEndpoint(t, headers, `${receiver.base}/outbox-denied`, ['decision.denied']);
      await createEndpoint(t, headers, `${receiver.base}/outbox-chain`, ['chain.break']);
      const count = async () =>
        (
          await t.storage.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('tenant_id', '=', 'outbox')
            .execute()
        ).length;

      await assert.rejects(
        t.storage.writeTransaction(async (trx) => {
          const enqueued = await enqueueEvent(trx, 'outbox', {
            event: 'decision.denied',
            intentId: 'i-1',
            decision: 'DENIED',
            riskScore: 95,
            reason: 'denied in review',
            occurredAt: t.clock(),
          });
          assert.equal(enqueued.deliveryIds.length, 2);
          throw new Error('the decision failed after enqueueing');
        }),
        /the decision failed/,
      );
      assert.equal(await count(), 0, 'a rolled-back decision leaves no event behind');

      const committed = await enqueueDecision(t, 'outbox', {
        event: 'decision.denied',
        decision: 'DENIED',
        reason: 'denied in review',
      });
      const rows = await t.storage.db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', 'event_id', 'status', 'payload'])
        .where('tenant_id', '=', 'outbox')
        .orderBy('endpoint_id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.endpoint_id, r.event_id, r.status]),
        [
          [all.id, committed.eventId, 'pending'],
          [denials.id, committed.eventId, 'pending'],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      );
      assert.equal(JSON.parse(rows[0]?.payload ?? '{}').reason, 'denied in review');
      assert.deepEqual((await enqueueDecision(t, 'nobody')).deliveryIds, [], 'a tenant without endpoints');
    });

    it('counts recorded attempts by status in /metrics', async () => {
      receiver.respond(() => 204);
      await tenantWithEndpoint('metered');
      await enqueueDecision(t, 'metered');
      // The app's own worker (the one buildServer wires to /metrics), driven by hand.
      assert.ok((await t.services.webhookWorker.runOnce()) >= 1);
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
      const line = metrics.body
        .split('\n')
        .find((l) => l.startsWith('authority_webhook_deliveries_total{status="succeeded"}'));
      assert.ok(line, metrics.body.slice(0, 500));
      assert.ok(Number(line.split(' ')[1]) >= 1);
      assert.doesNotMatch(metrics.body, /authority_webhook_deliveries_total\{[^}]*tenant/);
    });
  });
}
