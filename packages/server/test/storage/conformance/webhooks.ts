import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../../src/storage/schema.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

function endpoint(tenantId: string, id: string, events: string[], status = 'active'): WebhookEndpointsTable {
  return {
    tenant_id: tenantId,
    id,
    url: `https://receiver.example/${id}`,
    events: JSON.stringify(events),
    description: null,
    status,
    secret: 'sealed',
    disabled_reason: null,
    created_at: 1,
    updated_at: 1,
  };
}

function delivery(
  tenantId: string,
  endpointId: string,
  id: string,
  nextAttemptAt: number,
): WebhookDeliveriesTable {
  return {
    tenant_id: tenantId,
    id,
    endpoint_id: endpointId,
    event_id: `event-${id}`,
    event: 'decision.denied',
    payload: JSON.stringify({ eventId: `event-${id}` }),
    status: 'pending',
    attempts: 0,
    next_attempt_at: nextAttemptAt,
    last_status_code: null,
    last_error: null,
    lease_token: null,
    lease_until: null,
    created_at: 1,
    updated_at: 1,
  };
}

/** Webhook endpoints and the outbox of deliveries. */
export function webhookConformance(c: Conformance): void {
  describe('webhook endpoints and deliveries', () => {
    it('stores endpoints per tenant, changes, disables and deletes them', async () => {
      const { endpointRepository: endpoints } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      await c.storage.writeTransaction(async (trx) => {
        await endpoints.insert(trx, endpoint(tenant, 'e2', ['*']));
        await endpoints.insert(trx, endpoint(tenant, 'e1', ['decision.denied']));
        await endpoints.insert(trx, endpoint(tenant, 'e3', ['chain.break'], 'disabled'));
        await endpoints.insert(trx, endpoint(other, 'e1', ['*']));
      });
      assert.equal(await endpoints.count(c.storage.db, tenant), 3);
      assert.deepEqual(
        (await endpoints.list(c.storage.db, tenant)).map((e) => e.id),
        ['e1', 'e2', 'e3'],
      );
      const subscriptions = await endpoints.activeSubscriptions(c.storage.db, tenant);
      assert.deepEqual(
        subscriptions.sort((a, b) => (a.id < b.id ? -1 : 1)),
        [
          { id: 'e1', events: ['decision.denied'] },
          { id: 'e2', events: ['*'] },
        ],
      );
      await c.storage.writeTransaction(async (trx) => {
        const locked = await endpoints.get(trx, tenant, 'e1', { forUpdate: true });
        assert.equal(locked?.url, 'https://receiver.example/e1');
        await endpoints.update(trx, tenant, 'e1', { description: 'ops', events: '["*"]', updated_at: 5 });
      });
      const changed = await endpoints.get(c.storage.db, tenant, 'e1');
      assert.deepEqual([changed?.description, changed?.events, changed?.updated_at], ['ops', '["*"]', 5]);
      assert.equal((await endpoints.get(c.storage.db, other, 'e1'))?.description, null);
      const disable = () =>
        c.storage.writeTransaction((trx) =>
          endpoints.disableIfActive(trx, tenant, 'e2', { reason: '410', now: 6 }),
        );
      assert.equal(await disable(), true);
      assert.equal(await disable(), false);
      assert.deepEqual(
        [
          (await endpoints.get(c.storage.db, tenant, 'e2'))?.status,
          (await endpoints.get(c.storage.db, tenant, 'e2'))?.disabled_reason,
        ],
        ['disabled', '410'],
      );
      await c.storage.writeTransaction((trx) => endpoints.delete(trx, tenant, 'e3'));
      assert.equal(await endpoints.get(c.storage.db, tenant, 'e3'), undefined);
      assert.equal(await endpoints.count(c.storage.db, other), 1);
    });

    it('writes deliveries, lists an endpoint’s newest first and deletes them with the endpoint', async () => {
      const { endpointRepository: endpoints, deliveryRepository: deliveries } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction(async (trx) => {
        await endpoints.insert(trx, endpoint(tenant, 'e1', ['*']));
        await endpoints.insert(trx, endpoint(tenant, 'e2', ['*']));
        await deliveries.insert(trx, [
          delivery(tenant, 'e1', 'd1', 1),
          delivery(tenant, 'e1', 'd2', 1),
          delivery(tenant, 'e1', 'd3', 1),
          delivery(tenant, 'e2', 'd4', 1),
        ]);
        await deliveries.insert(trx, []);
      });
      const ids = async (query: Parameters<typeof deliveries.list>[3]) =>
        (await deliveries.list(c.storage.db, tenant, 'e1', query)).map((d) => d.id);
      assert.deepEqual(await ids({ limit: 10 }), ['d3', 'd2', 'd1']);
      assert.deepEqual(await ids({ limit: 1, before: 'd3' }), ['d2']);
      assert.deepEqual(await ids({ limit: 10, status: 'dead' }), []);
      assert.equal((await deliveries.get(c.storage.db, tenant, 'e1', 'd2'))?.event_id, 'event-d2');
      assert.equal(await deliveries.get(c.storage.db, tenant, 'e2', 'd2'), undefined);
      await c.storage.writeTransaction((trx) => deliveries.deleteForEndpoint(trx, tenant, 'e1'));
      assert.deepEqual(await ids({ limit: 10 }), []);
      assert.equal((await deliveries.get(c.storage.db, tenant, 'e2', 'd4'))?.id, 'd4');
    });

    it('counts deliveries by status over every tenant', async () => {
      const { endpointRepository: endpoints, deliveryRepository: deliveries } = c.repos;
      const tenant = await newTenant(c);
      const before = await deliveries.countByStatus(c.storage.db);
      await c.storage.writeTransaction(async (trx) => {
        await endpoints.insert(trx, endpoint(tenant, 'e1', ['*']));
        await deliveries.insert(trx, [
          delivery(tenant, 'e1', 'd1', 1),
          delivery(tenant, 'e1', 'd2', 1),
          { ...delivery(tenant, 'e1', 'd3', 1), status: 'dead' },
        ]);
      });
      const after = await deliveries.countByStatus(c.storage.db);
      assert.equal((after.pending ?? 0) - (before.pending ?? 0), 2);
      assert.equal((after.dead ?? 0) - (before.dead ?? 0), 1);
      assert.equal(after.retrying ?? 0, before.retrying ?? 0);
    });

    it('claims due deliveries of active endpoints once, and records an attempt only under its lease', async () => {
      const { endpointRepository: endpoints, deliveryRepository: deliveries } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction(async (trx) => {
        await endpoints.insert(trx, endpoint(tenant, 'live', ['*']));
        await endpoints.insert(trx, endpoint(tenant, 'off', ['*'], 'disabled'));
        await deliveries.insert(trx, [
          delivery(tenant, 'live', 'due', 1_000),
          delivery(tenant, 'live', 'later', 9_000_000_000_000),
          delivery(tenant, 'off', 'muted', 1_000),
        ]);
      });
      const now = 5_000;
      const ours = (claimed: { tenantId: string; id: string }[]) =>
        claimed.filter((d) => d.tenantId === tenant).map((d) => d.id);
      const [first, second] = await Promise.all([
        deliveries.claimDue(c.storage, now, { limit: 50, leaseMs: 60_000 }),
        deliveries.claimDue(c.storage, now, { limit: 50, leaseMs: 60_000 }),
      ]);
      assert.deepEqual([...ours(first), ...ours(second)], ['due'], 'claimed once, muted and later left');
      const claimed = [...first, ...second].find((d) => d.id === 'due' && d.tenantId === tenant);
      assert.ok(claimed);
      assert.deepEqual(
        [claimed.url, claimed.sealedSecret, claimed.attempts, claimed.payload],
        ['https://receiver.example/live', 'sealed', 0, { eventId: 'event-due' }],
      );
      const attempt = {
        status: 'retrying',
        attempts: 1,
        last_status_code: 500,
        last_error: 'HTTP 500',
        next_attempt_at: now + 10_000,
        updated_at: now,
      };
      assert.equal(
        await deliveries.recordAttempt(c.storage.db, { ...claimed, leaseToken: 'stale' }, attempt),
        false,
      );
      assert.equal(await deliveries.recordAttempt(c.storage.db, claimed, attempt), true);
      assert.equal(
        await deliveries.recordAttempt(c.storage.db, claimed, attempt),
        false,
        'the lease is gone',
      );
      const row = await deliveries.get(c.storage.db, tenant, 'live', 'due');
      assert.deepEqual(
        [row?.status, row?.attempts, row?.lease_token, row?.next_attempt_at],
        ['retrying', 1, null, now + 10_000],
      );
      assert.deepEqual(ours(await deliveries.claimDue(c.storage, now + 10_000, { limit: 50, leaseMs: 1 })), [
        'due',
      ]);
    });
  });
}
