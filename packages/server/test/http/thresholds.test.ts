import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`thresholds (${engine})`, () => {
    let t: TestApp;
    const headers: Record<string, Record<string, string>> = {};

    before(async () => {
      t = await createTestApp(engine);
      headers.owner = await t.ownerHeaders('acme');
      headers.other = await t.ownerHeaders('globex');
      for (const role of ['admin', 'policy_admin', 'approver', 'auditor', 'agent']) {
        headers[role] = await t.roleHeaders('acme', role);
      }
    });
    after(async () => {
      await t.close();
    });

    it('answers the defaults until changed', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/authority/thresholds/acme',
        headers: headers.auditor,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        tenantId: 'acme',
        escalateAt: 60,
        denyAt: 90,
        modifiers: { privileged: 20, production: 20, sensitive: 15 },
        lowConfidenceEscalateBelow: 0.5,
        approvalTtlSeconds: 3600,
        tokenTtlSeconds: 300,
        updatedAt: null,
        updatedBy: null,
      });
    });

    it('lets owner, admin and policy_admin change them, and nobody else', async () => {
      for (const role of ['approver', 'auditor', 'agent']) {
        const response = await t.app.inject({
          method: 'PUT',
          url: '/authority/thresholds/acme',
          headers: headers[role],
          payload: { escalateAt: 50 },
        });
        assert.equal(response.statusCode, 403, role);
        assert.equal(response.json().error.details.permission, 'authority:thresholds:write');
      }
      for (const role of ['owner', 'admin', 'policy_admin']) {
        const response = await t.app.inject({
          method: 'PUT',
          url: '/authority/thresholds/acme',
          headers: headers[role],
          payload: { escalateAt: 55 },
        });
        assert.equal(response.statusCode, 200, `${role}: ${response.body}`);
      }
    });

    it('merges a partial change, validates the merged record, and audits old and new values', async () => {
      const response = await t.app.inject({
        method: 'PUT',
        url: '/v1/authority/thresholds/acme',
        headers: headers.policy_admin,
        payload: { denyAt: 80, modifiers: { production: 30 }, tokenTtlSeconds: 120 },
      });
      assert.equal(response.statusCode, 200, response.body);
      const record = response.json();
      assert.deepEqual(
        [record.escalateAt, record.denyAt, record.modifiers, record.tokenTtlSeconds],
        [55, 80, { privileged: 20, production: 30, sensitive: 15 }, 120],
      );
      assert.ok(record.updatedAt);
      const read = (
        await t.app.inject({ method: 'GET', url: '/authority/thresholds/acme', headers: headers.owner })
      ).json();
      assert.deepEqual(read, record);
      const entry = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'canonical'])
        .where('tenant_id', '=', 'acme')
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(entry.event_type, 'thresholds.updated');
      const payload = JSON.parse(entry.canonical).payload;
      assert.equal(payload.old.denyAt, 90);
      assert.equal(payload.new.denyAt, 80);
      assert.equal(
        (
          await t.app.inject({ method: 'GET', url: '/authority/thresholds/globex', headers: headers.other })
        ).json().denyAt,
        90,
      );
    });

    it('refuses out-of-bound and unknown values with the path, and another tenant', async () => {
      for (const [payload, path] of [
        [{ escalateAt: 95 }, '/escalateAt'],
        [{ denyAt: 102 }, '/denyAt'],
        [{ modifiers: { privileged: 101 } }, '/modifiers/privileged'],
        [{ lowConfidenceEscalateBelow: 1.5 }, '/lowConfidenceEscalateBelow'],
        [{ approvalTtlSeconds: 30 }, '/approvalTtlSeconds'],
        [{ tokenTtlSeconds: 301 }, '/tokenTtlSeconds'],
        [{ surprise: 1 }, '/surprise'],
      ] as const) {
        const response = await t.app.inject({
          method: 'PUT',
          url: '/authority/thresholds/acme',
          headers: headers.owner,
          payload,
        });
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
        assert.ok(
          response.json().error.details.issues.some((i: { path: string }) => i.path === path),
          `${JSON.stringify(payload)} → ${response.body}`,
        );
      }
      const foreign = await t.app.inject({
        method: 'PUT',
        url: '/authority/thresholds/acme',
        headers: headers.other,
        payload: { escalateAt: 1 },
      });
      assert.equal(foreign.statusCode, 403);
      assert.equal(foreign.json().error.code, 'TENANT_MISMATCH');
      const bodyTenant = await t.app.inject({
        method: 'PUT',
        url: '/authority/thresholds/acme',
        headers: headers.owner,
        payload: { tenantId: 'globex' },
      });
      assert.equal(bodyTenant.json().error.code, 'TENANT_MISMATCH');
    });
  });
}
