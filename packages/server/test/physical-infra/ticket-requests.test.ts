import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { ACTOR, tokenRequest } from './fixtures.js';

/**
 * Tickets carry the escalated request behind them (contract §14: the operator sees the safety bit
 * and citations): read from the decision record that opened the ticket, one query per page.
 */

async function escalateWithSafetyBit(t: TestApp, tenantId: string, citations: string[]) {
  const request = tokenRequest(ACTOR);
  return t.storage.writeTransaction(async (trx) => {
    const correlationId = uuidv7();
    const ticket = await t.services.physical.tickets.create(trx, {
      tenantId,
      oiCode: 'OI-2903',
      structuredGoal: request.intent.structuredGoal,
      correlationId,
    });
    await t.services.physical.audit.record(trx, {
      tenantId,
      decision: 'ESCALATE',
      tokenJti: null,
      correlationId,
      issuedAtMs: t.clock(),
      expiresAtMs: ticket.expiresAtMs,
      actorIdentity: ACTOR,
      actorKind: 'cobot',
      oiCode: 'OI-2903',
      structuredGoal: request.intent.structuredGoal,
      dagNode: request.dagNode,
      physicalStateRef: null,
      safetyBit: true,
      safetyCitations: citations,
      safeDefault: 'hold-position',
      clauseId: 'escalate-on-low-confidence',
      clauseIds: ['escalate-on-low-confidence'],
      escalationTicketId: ticket.ticketId,
      operatorTicketId: null,
    });
    return ticket.ticketId;
  });
}

const EXPECTED = {
  actorIdentity: ACTOR,
  actorKind: 'cobot',
  safetyBit: true,
  safetyCitations: ['OI-2903', 'OI-2901'],
  clauseIds: ['escalate-on-low-confidence'],
  safeDefault: 'hold-position',
};

for (const engine of ENGINES) {
  describe(`tickets with their escalated request (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      await t.ownerHeaders('globex');
    });
    after(async () => {
      await t.close();
    });

    it('shows the actor, safety bit, citations and clauses on get, list and decide', async () => {
      const ticketId = await escalateWithSafetyBit(t, 'acme', EXPECTED.safetyCitations);
      const one = await t.app.inject({
        method: 'GET',
        url: `/v1/physical/approvals/${ticketId}`,
        headers: owner,
      });
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual(one.json().request, EXPECTED);
      const list = await t.app.inject({ method: 'GET', url: '/v1/physical/approvals', headers: owner });
      const listed = (list.json().tickets as Array<{ ticketId: string; request: unknown }>).find(
        (ticket) => ticket.ticketId === ticketId,
      );
      assert.deepEqual(listed?.request, EXPECTED);
      const decided = await t.app.inject({
        method: 'POST',
        url: `/v1/physical/approvals/${ticketId}/decide`,
        headers: owner,
        payload: { decision: 'rejected', operator: 'Olga Operator', reason: 'a person is in the cell' },
      });
      assert.equal(decided.statusCode, 200, decided.body);
      assert.deepEqual(decided.json().request, EXPECTED);
      assert.equal(decided.json().status, 'rejected');
    });

    it('never reads another tenant’s decision record', async () => {
      const ticketId = await escalateWithSafetyBit(t, 'acme', ['OI-2901']);
      const found = await t.services.physical.ticketRequests.forTickets('globex', [ticketId]);
      assert.equal(found.size, 0);
      assert.equal((await t.services.physical.ticketRequests.forTickets('acme', [ticketId])).size, 1);
    });
  });
}
