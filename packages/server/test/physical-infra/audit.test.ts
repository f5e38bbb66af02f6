import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { chainEvents, type Issued, issueToken, recordRefusal } from './fixtures.js';

const STATE = {
  'safety/emergency-stop': {
    kind: 'boolean',
    value: false,
    asOfTimestampMs: 1,
    attestation: { channel: 'fsoe:slave-3', safetyRated: true, protocol: 'fsoe' },
  },
  'cell/door': { kind: 'unavailable', reason: 'sensor offline' },
} as const;

for (const engine of ENGINES) {
  describe(`physical audit records and verification reports (${engine})`, () => {
    let t: TestApp;
    let auditor: Headers;
    let edge: Headers;
    let edgeKeyId: string;
    let other: Headers;
    let allowed: Issued;
    let denied: { decisionId: string };
    let escalated: { decisionId: string; ticketId: string | null };

    before(async () => {
      t = await createTestApp(engine);
      await t.createTenant('acme');
      other = await t.ownerHeaders('globex');
      auditor = await t.roleHeaders('acme', 'auditor');
      const key = await t.services.apiKeys.create('acme', { name: 'cell-4', role: 'edge' }, null);
      edgeKeyId = key.id;
      edge = { authorization: `Bearer ${key.key}`, 'x-tenant-id': 'acme' };
      allowed = await issueToken(t, 'acme', { physicalState: STATE });
      denied = await recordRefusal(t, 'acme', 'DENY', { actorIdentity: 'devid:arm-8', oiCode: 'OI-2901' });
      escalated = await recordRefusal(t, 'acme', 'ESCALATE');
    });
    after(async () => {
      await t.close();
    });

    const entry = async (jti: string, headers = auditor) =>
      t.app.inject({ method: 'GET', url: `/v1/physical/audit/${jti}`, headers });

    it('holds the entry of an issued token, with its normalized snapshot and the document fields', async () => {
      const res = await entry(allowed.jti);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      for (const field of [
        'tokenJti',
        'tenantId',
        'issuedAtMs',
        'expiresAtMs',
        'actorIdentity',
        'oiCode',
        'decision',
        'structuredGoal',
        'dagNode',
        'physicalStateRef',
        'physicalState',
        'safetyBit',
        'safetyCitations',
        'verifications',
      ]) {
        assert.ok(field in body, field);
      }
      assert.equal(body.tokenJti, allowed.jti);
      assert.equal(body.decisionId, allowed.decisionId);
      assert.equal(body.decision, 'ALLOW');
      assert.equal(body.expiresAtMs, t.clock() + 5_000);
      assert.equal(body.physicalStateRef, allowed.physicalStateRef);
      assert.deepEqual(body.physicalState, {
        'safety/emergency-stop': STATE['safety/emergency-stop'],
        'cell/door': { kind: 'unavailable', reason: 'sensor offline' },
      });
      assert.deepEqual(body.verifications, []);
      assert.equal(body.dagNode.nodeId, 'node-1');
      assert.equal(body.correlationId, allowed.correlationId);
      assert.equal(body.revocation, null);
      // The token's own claims point at the same snapshot.
      const claims = JSON.parse(Buffer.from(allowed.token.split('.')[1] ?? '', 'base64url').toString());
      assert.equal(claims.jti, allowed.jti);
      assert.equal(claims.service.physicalStateRef, allowed.physicalStateRef);
    });

    it('writes each decision and snapshot to the chain as a physical event of the actor', async () => {
      const issued = await chainEvents(t, 'acme', 'physical.token.issued');
      assert.equal(issued.length, 1);
      assert.equal(issued[0]?.actorId, 'devid:arm-7');
      assert.equal(issued[0]?.actorType, 'physical:robot');
      assert.equal(issued[0]?.correlationId, allowed.correlationId);
      assert.equal(issued[0]?.payload.tokenJti, allowed.jti);
      const snapshot = await chainEvents(t, 'acme', 'physical.snapshot');
      assert.equal(snapshot[0]?.correlationId, allowed.correlationId);
      assert.equal(snapshot[0]?.payload.physicalStateRef, allowed.physicalStateRef);
      assert.equal(
        (await chainEvents(t, 'acme', 'physical.denied'))[0]?.payload.decisionId,
        denied.decisionId,
      );
      assert.equal(
        (await chainEvents(t, 'acme', 'physical.escalated'))[0]?.payload.escalationTicketId,
        escalated.ticketId,
      );
      const owner = await t.roleHeaders('acme', 'owner');
      const verified = await t.app.inject({ method: 'POST', url: '/audit/verify-chain', headers: owner });
      assert.equal(verified.json().valid, true, verified.body);
    });

    it('lists every decision newest first, filtered by oiCode and actorIdentity, paged by cursor', async () => {
      const list = async (query: string) => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/v1/physical/audit${query}`,
          headers: auditor,
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json() as {
          entries: Array<{ decision: string; decisionId: string; tokenJti: string | null }>;
          nextCursor: string | null;
        };
      };
      const all = await list('');
      assert.deepEqual(
        all.entries.map((e) => e.decision),
        ['ESCALATE', 'DENY', 'ALLOW'],
      );
      assert.equal(all.nextCursor, null);
      assert.equal(all.entries[0]?.tokenJti, null);
      assert.deepEqual(
        (await list('?oiCode=OI-2901')).entries.map((e) => e.decisionId),
        [denied.decisionId],
      );
      assert.deepEqual(
        (await list('?actorIdentity=devid%3Aarm-7')).entries.map((e) => e.decision),
        ['ESCALATE', 'ALLOW'],
      );
      const first = await list('?limit=2');
      assert.equal(first.entries.length, 2);
      assert.ok(first.nextCursor);
      const second = await list(`?limit=2&cursor=${first.nextCursor}`);
      assert.deepEqual(
        second.entries.map((e) => e.decision),
        ['ALLOW'],
      );
      assert.equal(second.nextCursor, null);
      for (const query of ['?limit=0', '?limit=201', '?decision=ALLOW', '?cursor=%%%']) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/v1/physical/audit${query}`,
          headers: auditor,
        });
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().error.code, 'validation_error');
      }
    });

    it('finds tokens only: a refused decision has no jti, an unknown or foreign jti is 404 not_found', async () => {
      for (const jti of [denied.decisionId, 'no-such-jti']) {
        const res = await entry(jti);
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().error.code, 'not_found');
      }
      assert.equal((await entry(allowed.jti, other)).statusCode, 404);
      const theirs = await t.app.inject({ method: 'GET', url: '/v1/physical/audit', headers: other });
      assert.deepEqual(theirs.json(), { entries: [], nextCursor: null });
      const agent = await t.roleHeaders('acme', 'agent');
      const forbidden = await entry(allowed.jti, agent);
      assert.equal(forbidden.statusCode, 403);
      assert.equal(forbidden.json().error.details.permission, 'physical:audit:read');
    });

    it('appends a single verification report to the entry and to the chain', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/physical/audit/${allowed.jti}/verifications`,
        headers: edge,
        payload: { edgeNodeId: 'cell-4', result: 'accepted', atMs: 1_000 },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        tokenJti: allowed.jti,
        verification: { atMs: 1_000, edgeNodeId: 'cell-4', result: 'accepted' },
      });
      assert.deepEqual((await entry(allowed.jti)).json().verifications, [
        { atMs: 1_000, edgeNodeId: 'cell-4', result: 'accepted' },
      ]);
      const event = (await chainEvents(t, 'acme', 'physical.verification'))[0];
      // A physical event (contract §6): the token's actor; the reporting credential in the payload.
      assert.equal(event?.actorId, 'devid:arm-7');
      assert.equal(event?.actorType, 'physical:robot');
      assert.equal(event?.payload.reportedBy, edgeKeyId);
      assert.equal(event?.correlationId, allowed.correlationId);
      assert.deepEqual(event?.payload, {
        tokenJti: allowed.jti,
        edgeNodeId: 'cell-4',
        result: 'accepted',
        reason: null,
        atMs: 1_000,
        reportedBy: edgeKeyId,
      });
      for (const [jti, headers, status, code] of [
        ['no-such-jti', edge, 404, 'not_found'],
        [allowed.jti, other, 404, 'not_found'],
        [allowed.jti, auditor, 403, 'forbidden'],
      ] as const) {
        const refused = await t.app.inject({
          method: 'POST',
          url: `/v1/physical/audit/${jti}/verifications`,
          headers,
          payload: { edgeNodeId: 'cell-4', result: 'accepted', atMs: 1 },
        });
        assert.equal(refused.statusCode, status, refused.body);
        assert.equal(refused.json().error.code, code);
      }
      for (const payload of [
        { edgeNodeId: 'cell-4', result: 'maybe', atMs: 1 },
        { edgeNodeId: 'cell-4', result: 'accepted', atMs: 1e300 },
        { edgeNodeId: 'cell-4', result: 'accepted', atMs: 2 ** 63 },
      ]) {
        const bad = await t.app.inject({
          method: 'POST',
          url: `/v1/physical/audit/${allowed.jti}/verifications`,
          headers: edge,
          payload,
        });
        assert.equal(bad.statusCode, 400, `${JSON.stringify(payload)}: ${bad.body}`);
        assert.equal(bad.json().error.code, 'validation_error');
      }
    });

    it('takes batches of the SDK shape, refusing bad or unknown reports by index', async () => {
      const second = await issueToken(t, 'acme');
      const foreign = await issueToken(t, 'globex');
      const reports = [
        { jti: allowed.jti, edgeNodeId: 'cell-5', result: 'rejected', reason: 'TOKEN_EXPIRED', atMs: 2_000 },
        { jti: 'unknown-jti', edgeNodeId: 'cell-5', result: 'accepted', atMs: 2_001 },
        { jti: second.jti, edgeNodeId: 'cell-5', result: 'accepted', atMs: 2_002 },
        { jti: second.jti, edgeNodeId: 'cell-5', result: 'accepted' },
        { jti: foreign.jti, edgeNodeId: 'cell-5', result: 'accepted', atMs: 2_003 },
        'not an object',
        // Past the integers a double holds exactly (and PostgreSQL's bigint): refused alone.
        { jti: second.jti, edgeNodeId: 'cell-5', result: 'accepted', atMs: 1e300 },
      ];
      const before = (await chainEvents(t, 'acme', 'physical.verification')).length;
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/physical/verifications',
        headers: edge,
        payload: { reports },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        accepted: 2,
        rejected: [
          { index: 1, code: 'not_found' },
          { index: 3, code: 'validation_error' },
          { index: 4, code: 'not_found' },
          { index: 5, code: 'validation_error' },
          { index: 6, code: 'validation_error' },
        ],
      });
      assert.deepEqual((await entry(allowed.jti)).json().verifications, [
        { atMs: 1_000, edgeNodeId: 'cell-4', result: 'accepted' },
        { atMs: 2_000, edgeNodeId: 'cell-5', result: 'rejected', reason: 'TOKEN_EXPIRED' },
      ]);
      assert.equal((await chainEvents(t, 'acme', 'physical.verification')).length, before + 2);
      assert.deepEqual((await t.services.physical.audit.get('globex', foreign.jti))?.verifications, []);

      const empty = await t.app.inject({
        method: 'POST',
        url: '/v1/physical/verifications',
        headers: edge,
        payload: { reports: [] },
      });
      assert.deepEqual(empty.json(), { accepted: 0, rejected: [] });
      const tooMany = await t.app.inject({
        method: 'POST',
        url: '/v1/physical/verifications',
        headers: edge,
        payload: { reports: Array.from({ length: 501 }, () => reports[0]) },
      });
      assert.equal(tooMany.statusCode, 400);
      assert.equal(tooMany.json().error.code, 'validation_error');
      const notList = await t.app.inject({
        method: 'POST',
        url: '/v1/physical/verifications',
        headers: edge,
        payload: { reports: {} },
      });
      assert.equal(notList.statusCode, 400);
    });
  });
}
