import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

/** The rest of the tenant row, its settings row and its actor list, and the gates' joined read. */
export function tenantControlConformance(c: Conformance): void {
  describe('tenant rows, settings and actors', () => {
    it('lists and counts tenants by id, and reads a tenant’s access settings', async () => {
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const { tenantRepository } = c.repos;
      const ids = (await tenantRepository.list(c.storage.db)).map((x) => x.id);
      assert.deepEqual(ids, [...ids].sort());
      assert.ok(ids.includes(tenant) && ids.includes(other));
      assert.equal(await tenantRepository.count(c.storage.db), ids.length);
      assert.deepEqual(await tenantRepository.access(c.storage.db, tenant), {
        plan: 'pro',
        rateLimitPerMinute: null,
        ipAllowlist: [],
      });
      assert.equal(await tenantRepository.access(c.storage.db, 'nobody'), undefined);
    });

    it('replaces the allowlist and the kill switch, answering what they replaced', async () => {
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const { tenantRepository } = c.repos;
      const first = await c.storage.writeTransaction((trx) =>
        tenantRepository.replaceAllowlist(trx, tenant, ['10.0.0.0/8'], 5),
      );
      assert.deepEqual(first, []);
      const second = await c.storage.writeTransaction((trx) =>
        tenantRepository.replaceAllowlist(trx, tenant, ['192.0.2.0/24', '2001:db8::/32'], 6),
      );
      assert.deepEqual(second, ['10.0.0.0/8']);
      assert.deepEqual((await tenantRepository.get(c.storage.db, tenant))?.ipAllowlist, [
        '192.0.2.0/24',
        '2001:db8::/32',
      ]);
      assert.deepEqual((await tenantRepository.get(c.storage.db, other))?.ipAllowlist, []);
      assert.equal(
        await c.storage.writeTransaction((trx) => tenantRepository.replaceAllowlist(trx, 'nobody', [], 7)),
        undefined,
      );

      const change = { enabled: true, reason: 'incident 42', changedBy: 'key-1', changedAtMs: 8 };
      const previous = await c.storage.writeTransaction((trx) =>
        tenantRepository.setKillSwitch(trx, tenant, change),
      );
      assert.deepEqual(previous, { enabled: false, reason: null });
      assert.deepEqual((await tenantRepository.get(c.storage.db, tenant))?.killSwitch, {
        enabled: true,
        reason: 'incident 42',
        changedBy: 'key-1',
        changedAt: new Date(8).toISOString(),
      });
      const off = { enabled: false, reason: null, changedBy: 'key-2', changedAtMs: 9 };
      assert.deepEqual(
        await c.storage.writeTransaction((trx) => tenantRepository.setKillSwitch(trx, tenant, off)),
        { enabled: true, reason: 'incident 42' },
      );
      assert.equal(
        await c.storage.writeTransaction((trx) => tenantRepository.setKillSwitch(trx, 'nobody', off)),
        undefined,
      );
    });

    it('reads the kill switch and whether any of some actors is blocked, in one statement', async () => {
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const { tenantRepository, authorityActorRepository } = c.repos;
      const withdrawn = (id: string, actors: string[]) =>
        tenantRepository.withdrawn(c.storage.db, id, actors);
      const none = { killSwitchOn: false, actorBlocked: false };
      assert.deepEqual(await withdrawn(tenant, []), none);
      assert.deepEqual(await withdrawn(tenant, ['agent-1', 'agent-2']), none);
      await c.storage.writeTransaction(async (trx) => {
        const actor = { status: 'blocked' as const, reason: 'leaked', updatedAtMs: 1, updatedBy: 'key-1' };
        await authorityActorRepository.set(trx, tenant, { actorId: 'agent-2', ...actor });
        await authorityActorRepository.set(trx, tenant, { actorId: 'agent-3', ...actor, status: 'active' });
        await authorityActorRepository.set(trx, other, { actorId: 'agent-1', ...actor });
      });
      assert.deepEqual(
        await withdrawn(tenant, ['agent-1']),
        none,
        "another tenant's block is not this one's",
      );
      assert.deepEqual(await withdrawn(tenant, ['agent-3']), none);
      assert.deepEqual(await withdrawn(tenant, ['agent-1', 'agent-2', 'agent-3']), {
        killSwitchOn: false,
        actorBlocked: true,
      });
      const on = { enabled: true, reason: 'incident', changedBy: 'key-1', changedAtMs: 2 };
      await c.storage.writeTransaction((trx) => tenantRepository.setKillSwitch(trx, tenant, on));
      assert.deepEqual(await withdrawn(tenant, []), { killSwitchOn: true, actorBlocked: false });
      assert.deepEqual(await withdrawn(other, []), none);
      assert.deepEqual(await withdrawn('nobody', ['agent-1']), { killSwitchOn: true, actorBlocked: false });
    });

    it('locks a tenant row inside a transaction and records a bootstrap action once', async () => {
      const tenant = await newTenant(c);
      const { tenantRepository } = c.repos;
      await c.storage.writeTransaction(async (trx) => {
        await tenantRepository.lock(trx, tenant);
        await tenantRepository.recordBootstrap(trx, 'conformance-once', 10);
      });
      await assert.rejects(
        c.storage.writeTransaction((trx) => tenantRepository.recordBootstrap(trx, 'conformance-once', 11)),
        (error) => isUniqueViolation(error),
      );
    });

    it('upserts the settings row column group by column group, keeping the others', async () => {
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const { tenantSettingsRepository: settings } = c.repos;
      assert.equal(await settings.get(c.storage.db, tenant), undefined);
      assert.equal(await settings.activePolicyVersion(c.storage.db, tenant), null);
      await c.storage.writeTransaction((trx) => settings.setActivePolicyVersion(trx, tenant, 3));
      assert.deepEqual(await settings.get(c.storage.db, tenant), {
        floorEnabled: true,
        floorAgreementVersion: null,
        floorChangedBy: null,
        floorChangedAtMs: null,
        thresholds: null,
        thresholdsUpdatedAtMs: null,
        thresholdsUpdatedBy: null,
        activePolicyVersion: 3,
      });
      await c.storage.writeTransaction((trx) =>
        settings.setThresholds(trx, tenant, {
          json: '{"denyAbove":90}',
          updatedBy: 'key-1',
          updatedAtMs: 12,
        }),
      );
      await c.storage.writeTransaction((trx) =>
        settings.setFloor(trx, tenant, {
          enabled: false,
          agreementVersion: '2026-01',
          changedBy: 'key-2',
          changedAtMs: 13,
        }),
      );
      assert.deepEqual(await settings.get(c.storage.db, tenant), {
        floorEnabled: false,
        floorAgreementVersion: '2026-01',
        floorChangedBy: 'key-2',
        floorChangedAtMs: 13,
        thresholds: '{"denyAbove":90}',
        thresholdsUpdatedAtMs: 12,
        thresholdsUpdatedBy: 'key-1',
        activePolicyVersion: 3,
      });
      assert.equal(await settings.activePolicyVersion(c.storage.db, tenant), 3);
      // A first write of another group creates the row with the defaults for the rest.
      await c.storage.writeTransaction((trx) =>
        settings.setThresholds(trx, other, { json: '{}', updatedBy: 'key-3', updatedAtMs: 14 }),
      );
      const fresh = await settings.get(c.storage.db, other);
      assert.equal(fresh?.floorEnabled, true);
      assert.equal(fresh?.activePolicyVersion, null);
    });

    it('sets actors’ standing per tenant and reads it back, by actor id', async () => {
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      const { authorityActorRepository: actors } = c.repos;
      const blocked = {
        actorId: 'agent-9',
        status: 'blocked' as const,
        reason: 'leaked',
        updatedAtMs: 15,
        updatedBy: 'k',
      };
      await c.storage.writeTransaction((trx) => actors.set(trx, tenant, blocked));
      await c.storage.writeTransaction((trx) =>
        actors.set(trx, tenant, {
          actorId: 'agent-1',
          status: 'active',
          reason: null,
          updatedAtMs: 16,
          updatedBy: 'k',
        }),
      );
      assert.equal(await actors.status(c.storage.db, tenant, 'agent-9'), 'blocked');
      assert.equal(await actors.status(c.storage.db, other, 'agent-9'), undefined);
      await c.storage.writeTransaction((trx) =>
        actors.set(trx, tenant, { ...blocked, status: 'active', reason: null, updatedAtMs: 17 }),
      );
      assert.deepEqual(await actors.list(c.storage.db, tenant), [
        { actorId: 'agent-1', status: 'active', reason: null, updatedAtMs: 16, updatedBy: 'k' },
        { actorId: 'agent-9', status: 'active', reason: null, updatedAtMs: 17, updatedBy: 'k' },
      ]);
      assert.deepEqual(await actors.list(c.storage.db, other), []);
    });

    it('reads a tenant, its settings and one actor’s status in one query for the gates', async () => {
      const { gateContextRepository, tenantSettingsRepository, authorityActorRepository } = c.repos;
      const tenant = await newTenant(c);
      assert.deepEqual(await gateContextRepository.get(c.storage.db, tenant, 'agent-1'), {
        tenant: await c.repos.tenantRepository.get(c.storage.db, tenant),
        settings: undefined,
        actorStatus: null,
      });
      await c.storage.writeTransaction(async (trx) => {
        await tenantSettingsRepository.setActivePolicyVersion(trx, tenant, 3);
        await tenantSettingsRepository.setFloor(trx, tenant, {
          enabled: false,
          agreementVersion: 'v1',
          changedBy: 'k',
          changedAtMs: 2,
        });
        await authorityActorRepository.set(trx, tenant, {
          actorId: 'agent-1',
          status: 'blocked',
          reason: null,
          updatedAtMs: 3,
          updatedBy: 'k',
        });
      });
      const context = await gateContextRepository.get(c.storage.db, tenant, 'agent-1');
      assert.equal(context?.tenant.id, tenant);
      assert.deepEqual(context?.settings, await tenantSettingsRepository.get(c.storage.db, tenant));
      assert.equal(context?.actorStatus, 'blocked');
      assert.equal((await gateContextRepository.get(c.storage.db, tenant, 'agent-2'))?.actorStatus, null);
      assert.equal(await gateContextRepository.get(c.storage.db, 'nobody', 'agent-1'), undefined);
    });
  });
}
