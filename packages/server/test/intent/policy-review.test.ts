import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chainRepository } from '../../src/chain/chain-repository.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';

const RULES = [{ id: 'allow-all', effect: 'ALLOW' }];

for (const engine of ENGINES) {
  describe(`two-person review of policy versions (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let admin: Headers;
    let policyAdmin: Headers;
    let auditor: Headers;
    let approver: Headers;

    const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Headers, payload?: unknown) =>
      t.app.inject({
        method,
        url,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const review = (version: number, headers: Headers, decision = 'approve', comment = 'looks right') => {
      t.clock.advance(1_000);
      return call('POST', `/authority/policy/versions/${version}/reviews`, headers, { decision, comment });
    };
    const activate = (version: number, headers: Headers = owner) =>
      call('POST', `/authority/policy/versions/${version}/activate`, headers);
    const versionOf = async (version: number) => {
      const list = (await call('GET', '/authority/policy/versions', auditor)).json();
      return list.versions.find((v: { version: number }) => v.version === version);
    };

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      admin = await t.roleHeaders('acme', 'admin');
      policyAdmin = await t.roleHeaders('acme', 'policy_admin');
      auditor = await t.roleHeaders('acme', 'auditor');
      approver = await t.roleHeaders('acme', 'approver');
    });
    after(async () => {
      await t.close();
    });

    it('lets only the owner require review, of its own tenant', async () => {
      const byAdmin = await call('PUT', '/authority/policy-review/acme', admin, { required: true });
      assert.equal(byAdmin.statusCode, 403);
      assert.equal(byAdmin.json().error.details.permission, 'tenant:admin');
      const other = await t.ownerHeaders('globex');
      const mismatch = await call('PUT', '/authority/policy-review/acme', other, { required: true });
      assert.equal(mismatch.statusCode, 403);
      assert.equal(mismatch.json().error.code, 'TENANT_MISMATCH');
      const bad = await call('PUT', '/authority/policy-review/acme', owner, { required: true, approvals: 3 });
      assert.equal(bad.statusCode, 400);
      const set = await call('PUT', '/authority/policy-review/acme', owner, { required: true, approvals: 2 });
      assert.equal(set.statusCode, 200, set.body);
      const setting = set.json();
      assert.deepEqual([setting.tenantId, setting.required, setting.approvals], ['acme', true, 2]);
      const list = (await call('GET', '/authority/policy/versions', auditor)).json();
      assert.deepEqual(list.review, { required: true, approvals: 2 });
    });

    it('stores saves and pack installs as drafts while review is required, whatever activate says', async () => {
      const saved = await call('POST', '/authority/policy', admin, { rules: RULES, activate: true });
      assert.equal(saved.statusCode, 201, saved.body);
      assert.deepEqual(
        [saved.json().version, saved.json().active, saved.json().status, saved.json().requiredApprovals],
        [2, false, 'draft', 2],
      );
      const installed = await call('POST', '/policy-packs/install', admin, { pack: 'github-safe-merge' });
      assert.equal(installed.statusCode, 201, installed.body);
      assert.deepEqual([installed.json().policy.version, installed.json().policy.active], [3, false]);
      assert.equal((await call('GET', '/authority/policy', auditor)).json().version, 1, 'v1 stays active');
    });

    it('refuses the author reviewing their own version (separation of duties)', async () => {
      const own = await review(2, admin);
      assert.equal(own.statusCode, 403, own.body);
      assert.equal(own.json().error.code, 'FORBIDDEN');
      assert.equal(own.json().error.details.reason, 'separation_of_duties');
      assert.deepEqual((await versionOf(2)).reviews, []);
    });

    it('needs authority:policy:review (owner, admin, policy_admin)', async () => {
      for (const headers of [auditor, approver]) {
        const refused = await review(2, headers);
        assert.equal(refused.statusCode, 403);
        assert.equal(refused.json().error.details.permission, 'authority:policy:review');
      }
    });

    it('refuses activation without the approvals (409 review_required), counting each principal once', async () => {
      const early = await activate(2);
      assert.equal(early.statusCode, 409, early.body);
      assert.equal(early.json().error.details.reason, 'review_required');
      const first = await review(2, policyAdmin, 'approve', 'replayed: 3 escalations become approvals');
      assert.equal(first.statusCode, 201, first.body);
      assert.deepEqual([first.json().status, first.json().reviews.length], ['draft', 1]);
      const again = await review(2, policyAdmin);
      assert.equal(again.statusCode, 409, 'the same principal cannot approve twice');
      assert.equal(again.json().error.details.reason, 'already_reviewed');
      const stillEarly = await activate(2);
      assert.equal(stillEarly.statusCode, 409);
      assert.equal(stillEarly.json().error.details.reason, 'review_required');
    });

    it('activates a version with its approvals, audited', async () => {
      const second = await review(2, owner, 'approve', 'agreed');
      assert.equal(second.json().status, 'approved');
      const activated = await activate(2, admin);
      assert.equal(activated.statusCode, 200, activated.body);
      assert.deepEqual([activated.json().active, activated.json().status], [true, 'active']);
      const version = await versionOf(2);
      assert.equal(version.author, version.createdBy);
      assert.deepEqual(
        version.reviews.map((r: { decision: string; comment: string }) => [r.decision, r.comment]),
        [
          ['approve', 'replayed: 3 escalations become approvals'],
          ['approve', 'agreed'],
        ],
      );
      const entries = await chainRepository.page(t.storage.db, 'acme', {}, 5);
      const types = entries.map((e) => e.entry.eventType);
      assert.equal(types[0], 'policy.activated');
      assert.equal(types.filter((type) => type === 'policy.reviewed').length, 2);
    });

    it('never activates a rejected version, even with approvals', async () => {
      await review(3, policyAdmin, 'reject', 'this pack blocks our release bot');
      await review(3, owner, 'approve', 'fine by me');
      assert.equal((await versionOf(3)).status, 'rejected');
      const refused = await activate(3);
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().error.details.reason, 'review_required');
    });

    it('rolls back to a previously active version without review', async () => {
      const rollback = await activate(1, policyAdmin);
      assert.equal(rollback.statusCode, 200, rollback.body);
      assert.equal(rollback.json().status, 'active');
      assert.equal((await versionOf(2)).status, 'inactive');
      const forward = await activate(2, policyAdmin);
      assert.equal(forward.statusCode, 200, 'v2 was active before: no new review either');
      const [latest] = await chainRepository.page(t.storage.db, 'acme', {}, 1);
      assert.deepEqual(latest?.entry.payload, { version: 2, source: 'rollback' });
      const reviewed = await review(1, policyAdmin);
      assert.equal(reviewed.statusCode, 409, 'a version that was active needs no review');
      assert.equal(reviewed.json().error.details.reason, 'not_reviewable');
    });

    it("keeps tenants apart: another tenant's version number is its own", async () => {
      const globex = await t.ownerHeaders('globex-2');
      const missing = await review(2, globex);
      assert.equal(missing.statusCode, 404, missing.body);
      const foreign = await call('POST', '/authority/policy/versions/2/activate', globex);
      assert.equal(foreign.statusCode, 404);
      assert.equal((await versionOf(2)).reviews.length, 2, "acme's version is untouched");
    });

    it('refuses bad review bodies', async () => {
      for (const payload of [
        { decision: 'maybe', comment: '' },
        { decision: 'approve' },
        { decision: 'approve', comment: 'x'.repeat(2_001) },
        { decision: 'approve', comment: '', extra: 1 },
      ]) {
        const response = await call('POST', '/authority/policy/versions/3/reviews', owner, payload);
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
      }
      assert.equal((await review(99, owner)).statusCode, 404);
    });

    it('activates freely again once review is no longer required', async () => {
      await call('PUT', '/authority/policy-review/acme', owner, { required: false });
      const saved = await call('POST', '/authority/policy', admin, { rules: RULES, activate: true });
      assert.deepEqual(
        [saved.json().active, saved.json().status, saved.json().requiredApprovals],
        [true, 'active', null],
      );
      const old = await activate(3);
      assert.equal(old.statusCode, 200, 'the review requirement is read at activation');
    });

    it('activating the active version again changes nothing and records nothing', async () => {
      const current = (await call('GET', '/authority/policy', auditor)).json().version as number;
      const before = await chainRepository.page(t.storage.db, 'acme', {}, 1);
      const again = await activate(current);
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual([again.json().version, again.json().status], [current, 'active']);
      assert.deepEqual(await chainRepository.page(t.storage.db, 'acme', {}, 1), before, 'no new entry');
    });

    it('a version saved before review was required is a draft until it has the approvals review asks now', async () => {
      const saved = await call('POST', '/authority/policy', admin, { rules: RULES });
      assert.equal(saved.statusCode, 201, saved.body);
      const version = saved.json().version as number;
      assert.equal((await versionOf(version)).status, 'inactive', 'no review required: it may be activated');
      await call('PUT', '/authority/policy-review/acme', owner, { required: true, approvals: 1 });
      assert.equal((await versionOf(version)).status, 'draft');
      assert.equal((await activate(version)).statusCode, 409);
      const reviewed = await review(version, policyAdmin);
      assert.equal(reviewed.statusCode, 201, reviewed.body);
      assert.equal(reviewed.json().status, 'approved', 'the review answers the version as it is now');
      assert.equal((await versionOf(version)).status, 'approved');
      assert.equal((await activate(version)).statusCode, 200);
      await call('PUT', '/authority/policy-review/acme', owner, { required: false });
    });
  });
}
