import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Resolver } from '../../src/egress/egress-client.js';
import { MAX_ENDPOINTS_PER_TENANT } from '../../src/webhooks/endpoint-service.js';
import { enqueueEvent } from '../../src/webhooks/outbox.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

/** Public names resolve to a documentation address; `internal.` names to a private one. */
const resolver: Resolver = async (host) => {
  if (host === 'hooks.example.test') return ['93.184.216.34'];
  if (host === 'internal.example.test') return ['10.1.2.3'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

const URL_A = 'https://hooks.example.test/authority?token=abc';

for (const engine of ENGINES) {
  describe(`webhook endpoint API (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let admin: Headers;
    let other: Headers;

    before(async () => {
      t = await createTestApp(engine, {}, undefined, { resolver });
      owner = await t.ownerHeaders('acme');
      admin = await t.roleHeaders('acme', 'admin');
      other = await t.ownerHeaders('globex');
    });
    after(async () => {
      await t.close();
    });

    const create = (headers: Headers, payload: unknown) =>
      t.app.inject({ method: 'POST', url: '/webhooks', headers, payload: payload as object });

    async function lastEntry(tenant: string) {
      const row = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'canonical'])
        .where('tenant_id', '=', tenant)
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      return { eventType: row.event_type, payload: JSON.parse(row.canonical).payload };
    }

    it('creates an endpoint with a whsec_ secret shown once; lists and reads never return it', async () => {
      const created = await create(admin, {
        url: URL_A,
        events: ['decision.escalated', 'chain.break'],
        description: 'pager',
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.headers['cache-control'], 'no-store');
      const body = created.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'createdAt',
        'description',
        'disabledReason',
        'events',
        'id',
        'secret',
        'status',
        'url',
      ]);
      assert.match(body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.equal(body.status, 'active');
      assert.equal(body.url, URL_A);
      assert.deepEqual(body.events, ['decision.escalated', 'chain.break']);
      assert.equal(body.createdAt, new Date(t.clock()).toISOString());

      const stored = await t.storage.db
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', body.id)
        .executeTakeFirstOrThrow();
      assert.doesNotMatch(stored.secret, /whsec_/, 'stored sealed, not in clear');
      assert.ok(!stored.secret.includes(body.secret.slice(6)));

      const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: owner });
      assert.equal(list.statusCode, 200);
      assert.doesNotMatch(list.body, /whsec_/);
      assert.deepEqual(
        list.json().webhooks.map((w: { id: string }) => w.id),
        [body.id],
      );
      const one = await t.app.inject({ method: 'GET', url: `/webhooks/${body.id}`, headers: owner });
      assert.equal(one.statusCode, 200);
      assert.equal('secret' in one.json(), false);
      const { secret: _shownOnce, ...withoutSecret } = body;
      assert.deepEqual(one.json(), withoutSecret);

      assert.deepEqual(await lastEntry('acme'), {
        eventType: 'webhook.created',
        payload: {
          webhookId: body.id,
          url: 'https://hooks.example.test/authority',
          events: ['decision.escalated', 'chain.break'],
          description: 'pager',
        },
      });
    });

    it('validates the body: event kinds, "*" alone, http(s) URLs without credentials, no extra fields', async () => {
      const cases: Array<[unknown, string]> = [
        [{ url: URL_A, events: [] }, '/events'],
        [{ url: URL_A, events: ['decision.unknown'] }, '/events/0'],
        [{ url: URL_A, events: ['*', 'chain.break'] }, '/events'],
        [{ url: URL_A, events: ['chain.break', 'chain.break'] }, '/events'],
        [{ url: 'ftp://hooks.example.test/x', events: ['*'] }, '/url'],
        [{ url: 'not a url', events: ['*'] }, '/url'],
        [{ url: 'https://user:pw@hooks.example.test/', events: ['*'] }, '/url'],
        [{ url: 'https://nowhere.example.test/', events: ['*'] }, '/url'],
        [{ url: URL_A, events: ['*'], secret: 'whsec_mine' }, ''],
        [{ events: ['*'] }, ''],
      ];
      for (const [payload, path] of cases) {
        const response = await create(owner, payload);
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
        const error = response.json().error;
        assert.equal(error.code, 'VALIDATION_ERROR');
        if (path !== '') {
          assert.ok(
            error.details.issues.some((i: { path: string }) => i.path.startsWith(path)),
            `${JSON.stringify(payload)}: ${JSON.stringify(error.details.issues)}`,
          );
        }
      }
    });

    it('refuses private, loopback and link-local targets unless the operator allowed them', async () => {
      for (const url of [
        'http://127.0.0.1:9/hook',
        'http://10.0.0.8/hook',
        'http://[::1]:9/hook',
        // IPv4-compatible IPv6 carries 127.0.0.1 and 10.0.0.1: judged by the IPv4 address.
        'http://[::127.0.0.1]:9/hook',
        'http://[::7f00:1]:9/hook',
        'http://[::a00:1]/hook',
        'http://[64:ff9b::a9fe:a9fe]/latest',
        'http://169.254.169.254/latest',
        'https://internal.example.test/hook',
      ]) {
        const response = await create(owner, { url, events: ['*'] });
        assert.equal(response.statusCode, 400, url);
        assert.match(response.json().error.message, /private, loopback or link-local/);
      }
      const rows = await t.storage.db
        .selectFrom('webhook_endpoints')
        .select('url')
        .where('tenant_id', '=', 'acme')
        .execute();
      assert.ok(rows.every((r) => r.url === URL_A));
    });

    it('needs webhooks:manage; another tenant’s endpoint answers 404', async () => {
      const auditor = await t.roleHeaders('acme', 'auditor');
      const denied = await t.app.inject({ method: 'GET', url: '/webhooks', headers: auditor });
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.json().error.code, 'FORBIDDEN');
      assert.equal(denied.json().error.details.permission, 'webhooks:manage');

      const ours = (await t.services.webhooks.list('acme'))[0];
      assert.ok(ours);
      for (const [method, url] of [
        ['GET', `/webhooks/${ours.id}`],
        ['PATCH', `/webhooks/${ours.id}`],
        ['DELETE', `/webhooks/${ours.id}`],
        ['POST', `/webhooks/${ours.id}/rotate-secret`],
        ['GET', `/webhooks/${ours.id}/deliveries`],
        ['POST', `/webhooks/${ours.id}/deliveries/${ours.id}/redeliver`],
      ] as const) {
        const response = await t.app.inject({
          method,
          url,
          headers: other,
          ...(method === 'PATCH' ? { payload: { description: 'x' } } : {}),
        });
        assert.equal(response.statusCode, 404, `${method} ${url}`);
        assert.equal(response.json().error.code, 'NOT_FOUND');
      }
      assert.equal((await t.services.webhooks.get('acme', ours.id)).description, 'pager');
    });

    it('rotates the secret: a new one, shown once, audited', async () => {
      const endpoint = (await t.services.webhooks.list('acme'))[0];
      assert.ok(endpoint);
      const before = await t.storage.db
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      const rotated = await t.app.inject({
        method: 'POST',
        url: `/webhooks/${endpoint.id}/rotate-secret`,
        headers: { ...owner, 'content-type': 'application/json' },
      });
      assert.equal(rotated.statusCode, 200, rotated.body);
      assert.equal(rotated.headers['cache-control'], 'no-store');
      assert.match(rotated.json().secret, /^whsec_/);
      assert.equal(rotated.json().id, endpoint.id);
      const after = await t.storage.db
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(after.secret, before.secret);
      assert.deepEqual(await lastEntry('acme'), {
        eventType: 'webhook.secret.rotated',
        payload: { webhookId: endpoint.id },
      });
    });

    it('PATCH changes events, description and status; disabling and re-enabling are audited', async () => {
      const endpoint = (await t.services.webhooks.list('acme'))[0];
      assert.ok(endpoint);
      const empty = await t.app.inject({
        method: 'PATCH',
        url: `/webhooks/${endpoint.id}`,
        headers: owner,
        payload: {},
      });
      assert.equal(empty.statusCode, 400);
      const disabled = await t.app.inject({
        method: 'PATCH',
        url: `/webhooks/${endpoint.id}`,
        headers: owner,
        payload: { status: 'disabled', events: ['*'], description: null },
      });
      assert.equal(disabled.statusCode, 200, disabled.body);
      assert.deepEqual(
        [
          disabled.json().status,
          disabled.json().disabledReason,
          disabled.json().events,
          disabled.json().description,
        ],
        ['disabled', 'disabled by a user', ['*'], null],
      );
      assert.equal((await lastEntry('acme')).payload.status, 'disabled');
      const enabled = await t.app.inject({
        method: 'PATCH',
        url: `/webhooks/${endpoint.id}`,
        headers: owner,
        payload: { status: 'active', description: 'pager' },
      });
      assert.deepEqual([enabled.json().status, enabled.json().disabledReason], ['active', null]);
      const badUrl = await t.app.inject({
        method: 'PATCH',
        url: `/webhooks/${endpoint.id}`,
        headers: owner,
        payload: { url: 'http://192.168.1.1/' },
      });
      assert.equal(badUrl.statusCode, 400);
      assert.equal((await t.services.webhooks.get('acme', endpoint.id)).url, URL_A);
    });

    it('lists deliveries newest first with a status filter and keyset pagination', async () => {
      const endpoint = (await t.services.webhooks.list('acme'))[0];
      assert.ok(endpoint);
      const enqueued: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const result = await t.storage.writeTransaction((trx) =>
          enqueueEvent(trx, 'acme', {
            event: 'decision.completed',
            intentId: `intent-${i}`,
            decision: 'APPROVED',
            riskScore: i,
            occurredAt: t.clock(),
          }),
        );
        assert.equal(result.deliveryIds.length, 1);
        enqueued.push(result.deliveryIds[0] as string);
      }
      const list = async (query: string): Promise<{ statusCode: number; body: string }> => {
        const response = await t.app.inject({
          method: 'GET',
          url: `/webhooks/${endpoint.id}/deliveries?${query}`,
          headers: owner,
        });
        return { statusCode: response.statusCode, body: response.body };
      };
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await list(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.statusCode, 200, page.body);
        const body: { deliveries: Array<Record<string, unknown>>; nextCursor: string | null } = JSON.parse(
          page.body,
        );
        assert.ok(body.deliveries.length <= 2);
        for (const d of body.deliveries) {
          assert.deepEqual(Object.keys(d).sort(), [
            'attempts',
            'createdAt',
            'event',
            'eventId',
            'id',
            'lastError',
            'lastStatusCode',
            'nextAttemptAt',
            'status',
          ]);
          assert.equal(d.status, 'pending');
          assert.equal(d.attempts, 0);
          assert.equal(d.nextAttemptAt, new Date(t.clock()).toISOString());
        }
        seen.push(...body.deliveries.map((d) => String(d.id)));
        cursor = body.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(seen, [...enqueued].reverse());

      assert.deepEqual(JSON.parse((await list('status=dead')).body), { deliveries: [], nextCursor: null });
      for (const query of ['status=failed', 'limit=0', 'limit=201', 'cursor=zzz', 'other=1']) {
        assert.equal((await list(query)).statusCode, 400, query);
      }
    });

    it('redelivers as a new pending delivery of the same event; 404 for unknown ids, 409 when disabled', async () => {
      const endpoint = (await t.services.webhooks.list('acme'))[0];
      assert.ok(endpoint);
      const listed = await t.services.webhooks.deliveries('acme', endpoint.id, { limit: 1 });
      const source = listed.deliveries[0];
      assert.ok(source);
      const redelivered = await t.app.inject({
        method: 'POST',
        url: `/webhooks/${endpoint.id}/deliveries/${source.id}/redeliver`,
        headers: owner,
      });
      assert.equal(redelivered.statusCode, 202, redelivered.body);
      const copy = redelivered.json();
      assert.notEqual(copy.id, source.id);
      assert.deepEqual(
        [copy.eventId, copy.event, copy.status, copy.attempts],
        [source.eventId, source.event, 'pending', 0],
      );
      assert.deepEqual(await lastEntry('acme'), {
        eventType: 'webhook.redelivered',
        payload: {
          webhookId: endpoint.id,
          deliveryId: copy.id,
          sourceDeliveryId: source.id,
          eventId: source.eventId,
        },
      });
      const unknown = await t.app.inject({
        method: 'POST',
        url: `/webhooks/${endpoint.id}/deliveries/0190f5c2-1111-7000-8000-000000000001/redeliver`,
        headers: owner,
      });
      assert.equal(unknown.statusCode, 404);

      const disabled = await t.app.inject({
        method: 'PATCH',
        url: `/webhooks/${endpoint.id}`,
        headers: owner,
        payload: { status: 'disabled' },
      });
      assert.equal(disabled.statusCode, 200);
      const conflict = await t.app.inject({
        method: 'POST',
        url: `/webhooks/${endpoint.id}/deliveries/${source.id}/redeliver`,
        headers: owner,
      });
      assert.equal(conflict.statusCode, 409);
      assert.equal(conflict.json().error.code, 'CONFLICT');
    });

    it('caps endpoints per tenant', async () => {
      const existing = (await t.services.webhooks.list('acme')).length;
      for (let i = existing; i < MAX_ENDPOINTS_PER_TENANT; i += 1) {
        const ok = await create(owner, { url: `https://hooks.example.test/${i}`, events: ['*'] });
        assert.equal(ok.statusCode, 201);
      }
      const over = await create(owner, { url: 'https://hooks.example.test/over', events: ['*'] });
      assert.equal(over.statusCode, 409);
      assert.equal(over.json().error.details.limit, MAX_ENDPOINTS_PER_TENANT);
      const elsewhere = await create(other, { url: 'https://hooks.example.test/globex', events: ['*'] });
      assert.equal(elsewhere.statusCode, 201, 'the cap is per tenant');
    });

    it('deletes an endpoint with its deliveries, audited; a second delete is 404', async () => {
      const endpoint = (await t.services.webhooks.list('acme'))[0];
      assert.ok(endpoint);
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/webhooks/${endpoint.id}`,
        headers: owner,
      });
      assert.equal(removed.statusCode, 204);
      const left = await t.storage.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', 'acme')
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      assert.equal(left.length, 0);
      assert.deepEqual(await lastEntry('acme'), {
        eventType: 'webhook.deleted',
        payload: { webhookId: endpoint.id, url: 'https://hooks.example.test/authority' },
      });
      const again = await t.app.inject({ method: 'DELETE', url: `/webhooks/${endpoint.id}`, headers: owner });
      assert.equal(again.statusCode, 404);
    });
  });
}
