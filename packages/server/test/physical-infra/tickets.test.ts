import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { TICKET_LIFETIME_MS } from '../../src/physical/domain/index.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { chainEvents, goal, principal } from './fixtures.js';

for (const engine of ENGINES) {
  describe(`physical escalation tickets (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let approver: Headers;
    let approverKeyId: string;
    let agent: Headers;
    let other: Headers;

    before(async () => {
      t = await createTestApp(engine, { AUTHORITY_APPROVAL_URL: 'https://ops.example.test/approve/' });
      owner = await t.ownerHeaders('acme');
      other = await t.ownerHeaders('globex');
      const key = await t.services.apiKeys.create('acme', { name: 'operator', role: 'approver' }, null);
      approverKeyId = key.id;
      approver = { authorization: `Bearer ${key.key}`, 'x-tenant-id': 'acme' };
      agent = await t.roleHeaders('acme', 'agent');
    });
    after(async () => {
      await t.close();
    });

    /** A ticket as an ESCALATE opens it, in the decision transaction. */
    const openTicket = (tenantId = 'acme', oiCode = 'OI-1501', correlationId = uuidv7()) =>
      t.storage.writeTransaction((trx) =>
        t.services.physical.tickets.create(trx, { tenantId, oiCode, structuredGoal: goal(), correlationId }),
      );
    const get = (ticketId: string, headers = agent) =>
      t.app.inject({ method: 'GET', url: `/v1/physical/approvals/${ticketId}`, headers });
    const decide = (ticketId: string, payload: unknown, headers = approver) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/physical/approvals/${ticketId}/decide`,
        headers,
        payload: payload as object,
      });
    const list = async (query: string, headers = agent) => {
      const res = await t.app.inject({ method: 'GET', url: `/v1/physical/approvals${query}`, headers });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as {
        tickets: Array<{ ticketId: string; status: string }>;
        nextCursor: string | null;
      };
    };

    it('creates a pending ticket living one hour, with the configured approval URL', async () => {
      const ticket = await openTicket();
      assert.match(ticket.ticketId, /^esc_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(ticket.approvalUrl, `https://ops.example.test/approve/${ticket.ticketId}`);
      const res = await get(ticket.ticketId);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        ticketId: ticket.ticketId,
        tenantId: 'acme',
        status: 'pending',
        approvedBy: null,
        approvedAtMs: null,
        rejectionReason: null,
        expiresAtMs: t.clock() + TICKET_LIFETIME_MS,
        intent: { oiCode: 'OI-1501', structuredGoal: goal() },
        createdAtMs: t.clock(),
        approvalUrl: ticket.approvalUrl,
        operator: null,
        // A ticket opened without a decision record (this test's shortcut) has no request to show.
        request: null,
      });
    });

    it('approves with the authenticated principal as approvedBy; a second decision is 409 with details.status', async () => {
      const ticket = await openTicket();
      const approved = await decide(ticket.ticketId, { decision: 'approved', operator: 'Dana on shift' });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().status, 'approved');
      assert.equal(approved.json().approvedBy, approverKeyId);
      assert.equal(approved.json().approvedAtMs, t.clock());
      assert.equal(approved.json().operator, 'Dana on shift');
      assert.equal(approved.json().rejectionReason, null);
      assert.deepEqual((await get(ticket.ticketId)).json(), approved.json());

      const again = await decide(ticket.ticketId, { decision: 'rejected', operator: 'Eve' });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().error.code, 'conflict');
      assert.equal(again.json().error.details.status, 'approved');

      const events = await chainEvents(t, 'acme', 'physical.ticket.decided');
      const event = events.at(-1);
      // A physical event (contract §6): the ticket's actor; the deciding credential in the payload.
      assert.equal(event?.actorId, goal().actor.identifier);
      assert.equal(event?.actorType, 'physical:robot');
      assert.equal(event?.payload.decidedBy, approverKeyId);
      assert.equal(event?.payload.ticketId, ticket.ticketId);
      assert.equal(event?.payload.decision, 'approved');
    });

    it('rejects with a reason, recorded; the principal is approvedBy too', async () => {
      const ticket = await openTicket();
      const rejected = await decide(
        ticket.ticketId,
        { decision: 'rejected', operator: 'Dana', reason: 'cell occupied' },
        owner,
      );
      assert.equal(rejected.statusCode, 200, rejected.body);
      assert.equal(rejected.json().status, 'rejected');
      assert.equal(rejected.json().rejectionReason, 'cell occupied');
      assert.notEqual(rejected.json().approvedBy, null);
      const conflict = await decide(ticket.ticketId, { decision: 'approved', operator: 'Dana' });
      assert.equal(conflict.json().error.details.status, 'rejected');
    });

    it('reports expiry on read with the manual clock; an expired ticket cannot be decided', async () => {
      const ticket = await openTicket();
      const approvedLate = await openTicket();
      await decide(approvedLate.ticketId, { decision: 'approved', operator: 'Dana' });
      t.clock.advance(TICKET_LIFETIME_MS - 1);
      assert.equal((await get(ticket.ticketId)).json().status, 'pending');
      t.clock.advance(1);
      assert.equal((await get(ticket.ticketId)).json().status, 'expired');
      assert.equal((await get(approvedLate.ticketId)).json().status, 'expired');
      const late = await decide(ticket.ticketId, { decision: 'approved', operator: 'Dana' });
      assert.equal(late.statusCode, 409);
      assert.equal(late.json().error.details.status, 'expired');
      const expired = await list('?status=expired');
      assert.ok(expired.tickets.some((x) => x.ticketId === ticket.ticketId));
      assert.ok(expired.tickets.some((x) => x.ticketId === approvedLate.ticketId));
      assert.ok(expired.tickets.every((x) => x.status === 'expired'));
      assert.ok(!(await list('')).tickets.some((x) => x.ticketId === ticket.ticketId));
    });

    it('redeems an approved ticket exactly once under concurrency, for the same code and goal only', async () => {
      const correlationId = uuidv7();
      const ticket = await openTicket('acme', 'OI-1501', correlationId);
      await decide(ticket.ticketId, { decision: 'approved', operator: 'Dana' });
      const redeem = (oiCode = 'OI-1501', structuredGoal = goal()) =>
        t.storage.writeTransaction((trx) =>
          t.services.physical.tickets.redeem(trx, 'acme', ticket.ticketId, { oiCode, structuredGoal }),
        );
      const conflictWith =
        (reason?: string) => (error: Error & { code?: string; details?: Record<string, unknown> }) => {
          assert.equal(error.code, 'CONFLICT');
          if (reason) assert.equal(error.details?.reason, reason);
          return true;
        };
      await assert.rejects(redeem('OI-1502'), conflictWith('oi_code_mismatch'));
      await assert.rejects(
        redeem('OI-1501', goal(undefined, { verb: 'place' })),
        conflictWith('goal_mismatch'),
      );
      // A fresh origin time is the same canonical goal.
      const sameGoal = { ...goal(), sourceTimestampMs: t.clock() };

      const stored = await t.services.physical.tickets.find('acme', ticket.ticketId);
      assert.equal(stored?.status, 'approved');
      assert.equal(stored?.correlationId, correlationId);
      assert.equal(await t.services.physical.tickets.find('globex', ticket.ticketId), undefined);
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => redeem('OI-1501', sameGoal)));
      const won = outcomes.filter(
        (o): o is PromiseFulfilledResult<Awaited<ReturnType<typeof redeem>>> => o.status === 'fulfilled',
      );
      assert.equal(won.length, 1, JSON.stringify(outcomes.map((o) => o.status)));
      assert.equal(won[0]?.value.correlationId, correlationId);
      assert.equal(won[0]?.value.ticket.status, 'consumed');
      for (const lost of outcomes.filter((o) => o.status === 'rejected')) {
        const reason = (lost as PromiseRejectedResult).reason as {
          code: string;
          details: { status: string };
        };
        assert.equal(reason.code, 'CONFLICT');
        assert.equal(reason.details.status, 'consumed');
      }
      assert.equal((await get(ticket.ticketId)).json().status, 'consumed');
      assert.ok((await list('?status=consumed')).tickets.some((x) => x.ticketId === ticket.ticketId));
      const decided = await decide(ticket.ticketId, { decision: 'rejected', operator: 'Dana' });
      assert.equal(decided.json().error.details.status, 'consumed');
    });

    it('refuses to redeem unknown, pending, rejected and expired tickets', async () => {
      const redeem = (ticketId: string) =>
        t.storage.writeTransaction((trx) =>
          t.services.physical.tickets.redeem(trx, 'acme', ticketId, {
            oiCode: 'OI-1501',
            structuredGoal: goal(),
          }),
        );
      await assert.rejects(
        redeem('esc_unknown'),
        (error: Error & { code?: string }) => error.code === 'NOT_FOUND',
      );
      const pending = await openTicket();
      await assert.rejects(
        redeem(pending.ticketId),
        (error: Error & { details?: { status?: string } }) => error.details?.status === 'pending',
      );
      const rejected = await openTicket();
      await decide(rejected.ticketId, { decision: 'rejected', operator: 'Dana' });
      await assert.rejects(
        redeem(rejected.ticketId),
        (error: Error & { details?: { status?: string } }) => error.details?.status === 'rejected',
      );
      const late = await openTicket();
      await decide(late.ticketId, { decision: 'approved', operator: 'Dana' });
      t.clock.advance(TICKET_LIFETIME_MS);
      await assert.rejects(
        redeem(late.ticketId),
        (error: Error & { details?: { status?: string } }) => error.details?.status === 'expired',
      );
      // Another tenant's ticket is unknown.
      const theirs = await openTicket('globex');
      await assert.rejects(
        redeem(theirs.ticketId),
        (error: Error & { code?: string }) => error.code === 'NOT_FOUND',
      );
    });

    it('lists by status, newest first, with limit and cursor; default pending', async () => {
      const fresh = [await openTicket(), await openTicket(), await openTicket()];
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(page.tickets.every((x) => x.status === 'pending'));
        seen.push(...page.tickets.map((x) => x.ticketId));
        cursor = page.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(seen, fresh.map((x) => x.ticketId).reverse());
      const bad = await t.app.inject({
        method: 'GET',
        url: '/v1/physical/approvals?status=done',
        headers: agent,
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.code, 'validation_error');
    });

    it('checks bodies, permissions and tenants', async () => {
      const ticket = await openTicket();
      for (const payload of [
        {},
        { decision: 'approve', operator: 'x' },
        { decision: 'approved' },
        { decision: 'approved', operator: '' },
        { decision: 'approved', operator: 'x', extra: 1 },
      ]) {
        const res = await decide(ticket.ticketId, payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().error.code, 'validation_error');
      }
      const byAgent = await decide(ticket.ticketId, { decision: 'approved', operator: 'x' }, agent);
      assert.equal(byAgent.statusCode, 403);
      assert.equal(byAgent.json().error.details.permission, 'physical:approvals:decide');
      const auditor = await t.roleHeaders('acme', 'auditor');
      assert.equal((await get(ticket.ticketId, auditor)).statusCode, 403);

      assert.equal((await get(ticket.ticketId, other)).statusCode, 404);
      const cross = await decide(ticket.ticketId, { decision: 'approved', operator: 'x' }, other);
      assert.equal(cross.statusCode, 404);
      assert.equal(cross.json().error.code, 'not_found');
      assert.equal((await get(ticket.ticketId)).json().status, 'pending');
      assert.ok(!(await list('', other)).tickets.some((x) => x.ticketId === ticket.ticketId));
      assert.equal((await get('esc_nope')).json().error.code, 'not_found');
    });

    it('defaults the approval URL to the public base URL', async () => {
      const plain = await createTestApp(engine, { PUBLIC_BASE_URL: 'https://authority.example.test' });
      try {
        await plain.createTenant('acme');
        const ticket = await plain.storage.writeTransaction((trx) =>
          plain.services.physical.tickets.create(trx, {
            tenantId: 'acme',
            oiCode: 'OI-1501',
            structuredGoal: goal(),
            correlationId: uuidv7(),
          }),
        );
        assert.equal(
          ticket.approvalUrl,
          `https://authority.example.test/console/approvals/${ticket.ticketId}`,
        );
        const user = principal('acme', 'portal-user-1', 'portal_user');
        const decided = await plain.services.physical.tickets.decide('acme', user, ticket.ticketId, {
          decision: 'approved',
          operator: 'Dana',
        });
        assert.equal(decided.approvedBy, 'portal-user-1');
        const event = (await chainEvents(plain, 'acme', 'physical.ticket.decided'))[0];
        assert.equal(event?.actorType, 'physical:robot');
        assert.equal(event?.payload.decidedBy, 'portal-user-1');
      } finally {
        await plain.close();
      }
    });
  });
}
