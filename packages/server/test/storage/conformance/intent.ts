import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { ApprovalState, IntentRecord } from '../../../src/intent/domain/intent-record.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

function intent(tenantId: string, id: string, overrides: Partial<IntentRecord> = {}): IntentRecord {
  return {
    tenantId,
    id,
    correlationId: `corr-${id}`,
    principalId: 'key-1',
    actorId: 'agent-7',
    targetSystem: 'acme/payments',
    status: 'APPROVED',
    decision: 'APPROVED',
    reviewState: 'DECIDED',
    request: { proposedAction: 'merge pull request 42' },
    authorityDecision: { decision: 'APPROVED', riskScore: 10 },
    hypotheses: [],
    execution: { attempted: false, status: 'not_configured' },
    token: null,
    escalationId: null,
    approval: null,
    createdAt: 1,
    updatedAt: 1,
    ...overrides,
  };
}

function escalated(
  tenantId: string,
  id: string,
  queue: ApprovalState['queue'],
  expiresAtMs: number,
): IntentRecord {
  return intent(tenantId, id, {
    status: 'ESCALATED',
    decision: 'ESCALATED',
    reviewState: 'PENDING',
    escalationId: `esc-${id}`,
    approval: {
      queue,
      status: 'pending',
      requiredApprovals: 1,
      expiresAt: new Date(expiresAtMs).toISOString(),
    },
  });
}

/** Intents, the human decisions on escalations, and intent policy versions. */
export function intentConformance(c: Conformance): void {
  describe('intents, approvals and policy versions', () => {
    it('stores a batch of intents and reads each back whole, per tenant', async () => {
      const { intentRepository: intents } = c.repos;
      const tenant = await newTenant(c);
      const record = intent(tenant, 'i-1', { request: { nested: { é: ['✓', 1.5] } } });
      await c.storage.writeTransaction((trx) => intents.insert(trx, [record, intent(tenant, 'i-2')]));
      await c.storage.writeTransaction((trx) => intents.insert(trx, []));
      assert.deepEqual(await intents.get(c.storage.db, tenant, 'i-1'), record);
      assert.equal(await intents.get(c.storage.db, await newTenant(c), 'i-1'), undefined);
      const locked = await c.storage.writeTransaction((trx) =>
        intents.get(trx, tenant, 'i-2', { forUpdate: true }),
      );
      assert.equal(locked?.id, 'i-2');
    });

    it('finds an intent by its escalation id, per tenant', async () => {
      const { intentRepository: intents } = c.repos;
      const tenant = await newTenant(c);
      const record = escalated(tenant, 'i-1', 'standard', 10_000);
      await c.storage.writeTransaction((trx) => intents.insert(trx, [record, intent(tenant, 'i-2')]));
      assert.deepEqual(await intents.getByEscalation(c.storage.db, tenant, 'esc-i-1'), record);
      assert.equal(await intents.getByEscalation(c.storage.db, tenant, 'esc-none'), undefined);
      assert.equal(await intents.getByEscalation(c.storage.db, await newTenant(c), 'esc-i-1'), undefined);
    });

    it('records a review, attaches one token and stores an execution outcome', async () => {
      const { intentRepository: intents } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction((trx) =>
        intents.insert(trx, [escalated(tenant, 'i-1', 'standard', 10_000)]),
      );
      const approval: ApprovalState = {
        queue: 'standard',
        status: 'approved',
        requiredApprovals: 1,
        approvalsReceived: 1,
        expiresAt: new Date(10_000).toISOString(),
      };
      await c.storage.writeTransaction((trx) =>
        intents.review(trx, tenant, 'i-1', { status: 'APPROVED_AFTER_REVIEW', approval, updatedAt: 20 }),
      );
      const attach = (token: string) =>
        c.storage.writeTransaction((trx) =>
          intents.attachToken(trx, tenant, 'i-1', token, { attempted: false, status: 'not_configured' }, 30),
        );
      assert.equal(await attach('token-1'), true);
      assert.equal(await attach('token-2'), false);
      await c.storage.writeTransaction((trx) =>
        intents.recordExecution(
          trx,
          tenant,
          'i-1',
          { attempted: true, status: 'executed', adapterId: 'c1' },
          40,
        ),
      );
      const stored = await intents.get(c.storage.db, tenant, 'i-1');
      assert.deepEqual(
        [
          stored?.status,
          stored?.reviewState,
          stored?.approval,
          stored?.token,
          stored?.execution,
          stored?.updatedAt,
        ],
        [
          'APPROVED_AFTER_REVIEW',
          'DECIDED',
          approval,
          'token-1',
          { attempted: true, status: 'executed', adapterId: 'c1' },
          40,
        ],
      );
    });

    it('lists intents and escalations newest first, with lapsed escalations read as expired', async () => {
      const { intentRepository: intents } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction((trx) =>
        intents.insert(trx, [
          intent(tenant, 'i-1'),
          escalated(tenant, 'i-2', 'standard', 1_000),
          escalated(tenant, 'i-3', 'catastrophic-review', 9_000),
          intent(tenant, 'i-4', { status: 'DENIED', decision: 'DENIED', actorId: 'agent-8' }),
        ]),
      );
      const now = 5_000;
      const ids = (records: IntentRecord[]) => records.map((r) => r.id);
      const list = (query: Omit<Parameters<typeof intents.list>[2], 'now'>) =>
        intents.list(c.storage.db, tenant, { ...query, now });
      assert.deepEqual(ids(await list({ limit: 10 })), ['i-4', 'i-3', 'i-2', 'i-1']);
      assert.deepEqual(ids(await list({ limit: 2, before: 'i-4' })), ['i-3', 'i-2']);
      assert.deepEqual(ids(await list({ limit: 10, status: 'ESCALATED' })), ['i-3']);
      assert.deepEqual(ids(await list({ limit: 10, status: 'EXPIRED' })), ['i-2']);
      assert.deepEqual(ids(await list({ limit: 10, actorId: 'agent-8' })), ['i-4']);
      assert.deepEqual(ids(await list({ limit: 10, targetSystem: 'acme/other' })), []);

      const escalations = (query: Omit<Parameters<typeof intents.listEscalations>[2], 'now'>) =>
        intents.listEscalations(c.storage.db, tenant, { ...query, now });
      assert.deepEqual(ids(await escalations({ limit: 10 })), ['i-3', 'i-2']);
      assert.deepEqual(ids(await escalations({ limit: 10, status: 'pending' })), ['i-3']);
      assert.deepEqual(ids(await escalations({ limit: 10, status: 'expired' })), ['i-2']);
      assert.deepEqual(ids(await escalations({ limit: 10, status: 'approved' })), []);
      assert.deepEqual(ids(await escalations({ limit: 10, queue: 'standard' })), ['i-2']);
      assert.deepEqual(ids(await escalations({ limit: 1, before: 'i-3' })), ['i-2']);

      const lapsed = (await intents.lapsedEscalations(c.storage.db, now, 1_000)).filter(
        (x) => x.tenantId === tenant,
      );
      assert.deepEqual(lapsed, [{ tenantId: tenant, id: 'i-2' }]);
    });

    it('counts escalations awaiting review at a time, by queue, over every tenant', async () => {
      const { intentRepository: intents } = c.repos;
      const tenant = await newTenant(c);
      const now = 1_000_000_000;
      const before = await intents.countPendingReviews(c.storage.db, now);
      await c.storage.writeTransaction((trx) =>
        intents.insert(trx, [
          intent(tenant, 'p-1'),
          escalated(tenant, 'p-2', 'standard', now + 1),
          escalated(tenant, 'p-3', 'standard', now + 1),
          escalated(tenant, 'p-4', 'catastrophic-review', now + 1),
          escalated(tenant, 'p-5', 'standard', now),
        ]),
      );
      const after = await intents.countPendingReviews(c.storage.db, now);
      assert.equal((after.standard ?? 0) - (before.standard ?? 0), 2, 'expired at now: not pending');
      assert.equal((after['catastrophic-review'] ?? 0) - (before['catastrophic-review'] ?? 0), 1);
    });

    it('records one decision per principal and escalation', async () => {
      const { approvalRepository: approvals } = c.repos;
      const tenant = await newTenant(c);
      const approval = (id: string, principalId: string) => ({
        tenantId: tenant,
        id,
        intentId: 'i-1',
        escalationId: 'esc-1',
        decision: 'approve' as const,
        principalId,
        approver: { name: 'Ann' },
        rationale: 'checked',
        decidedAtMs: 5,
      });
      await c.storage.writeTransaction((trx) => approvals.insert(trx, approval('a-1', 'key-1')));
      await c.storage.writeTransaction((trx) => approvals.insert(trx, approval('a-2', 'key-2')));
      await assert.rejects(
        c.storage.writeTransaction((trx) => approvals.insert(trx, approval('a-3', 'key-1'))),
        (e) => isUniqueViolation(e),
      );
      assert.deepEqual(await approvals.decisionsOf(c.storage.db, tenant, 'i-1'), [
        {
          approvalId: 'a-1',
          decision: 'approve',
          approver: { principalId: 'key-1', id: null, name: 'Ann' },
          rationale: 'checked',
          decidedAt: new Date(5).toISOString(),
        },
        {
          approvalId: 'a-2',
          decision: 'approve',
          approver: { principalId: 'key-2', id: null, name: 'Ann' },
          rationale: 'checked',
          decidedAt: new Date(5).toISOString(),
        },
      ]);
      assert.deepEqual(await approvals.decisionsOf(c.storage.db, tenant, 'i-2'), []);
    });

    it('numbers policy versions per tenant, lists them newest first and marks activation', async () => {
      const { policyRepository: policies } = c.repos;
      const tenant = await newTenant(c);
      const version = (n: number) => ({
        tenantId: tenant,
        version: n,
        rules: [{ id: `r${n}`, effect: 'ALLOW' as const, priority: 10 }],
        packs: n === 1 ? ['starter'] : [],
        createdAtMs: n,
        createdBy: 'key-1',
      });
      assert.equal(await policies.latestVersion(c.storage.db, tenant), 0);
      await c.storage.writeTransaction(async (trx) => {
        await policies.insert(trx, version(1));
        await policies.insert(trx, version(2));
      });
      await assert.rejects(
        c.storage.writeTransaction((trx) => policies.insert(trx, version(2))),
        (e) => isUniqueViolation(e),
      );
      assert.equal(await policies.latestVersion(c.storage.db, tenant), 2);
      await c.storage.writeTransaction((trx) => policies.markActivated(trx, tenant, 2, 50));
      assert.deepEqual(await policies.get(c.storage.db, tenant, 2), { ...version(2), activatedAtMs: 50 });
      assert.deepEqual(
        (await policies.list(c.storage.db, tenant)).map((v) => [v.version, v.activatedAtMs]),
        [
          [2, 50],
          [1, null],
        ],
      );
      assert.equal(await policies.get(c.storage.db, tenant, 3), undefined);
    });
  });
}
