import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/errors/database-errors.js';
import type { PhysicalState } from '../../../src/physical/domain/index.js';
import type { PhysicalDecisionsTable, PhysicalTicketsTable } from '../../../src/storage/physical-schema.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

function decision(
  tenantId: string,
  id: string,
  jti: string | null,
  extra: Partial<PhysicalDecisionsTable> = {},
) {
  return {
    tenant_id: tenantId,
    id,
    token_jti: jti,
    decision: jti === null ? 'DENY' : 'ALLOW',
    correlation_id: `corr-${id}`,
    issued_at: 1,
    expires_at: null,
    actor_identity: 'devid:arm-7',
    actor_kind: 'robot',
    oi_code: 'OI-1501',
    structured_goal: '{}',
    dag_node: '{}',
    physical_state_ref: null,
    safety_bit: 0,
    safety_citations: '[]',
    safe_default: 'hold',
    clause_id: null,
    clause_ids: '[]',
    escalation_ticket_id: null,
    operator_ticket_id: null,
    ...extra,
  } satisfies PhysicalDecisionsTable;
}

function ticket(tenantId: string, id: string, status: string, expiresAt: number): PhysicalTicketsTable {
  return {
    tenant_id: tenantId,
    id,
    status,
    oi_code: 'OI-1501',
    structured_goal: '{"verb":"pick"}',
    correlation_id: `corr-${id}`,
    approved_by: null,
    approved_at: null,
    operator: null,
    rejection_reason: null,
    expires_at: expiresAt,
    created_at: 1,
    consumed_at: null,
  };
}

const STATE: PhysicalState = {
  'safety/emergency-stop': {
    kind: 'boolean',
    value: false,
    asOfTimestampMs: 1,
    attestation: { channel: 'plc', safetyRated: true, protocol: 'profisafe' },
  },
};

/** The physical surface's roster, tickets, decisions, verifications, revocations and snapshots. */
export function physicalConformance(c: Conformance): void {
  describe('physical records', () => {
    it('registers an actor once per identity, locks, changes and pages the roster', async () => {
      const { actorRepository: actors } = c.repos;
      const tenant = await newTenant(c);
      const actor = (id: string, identity: string) => ({
        tenant_id: tenant,
        id,
        actor_identity: identity,
        actor_identity_kind: 'ieee-802-1ar-devid',
        actor_kind: 'robot',
        display_name: null,
        status: 'active',
        metadata: null,
        created_at: 1,
        updated_at: 1,
      });
      const insert = (row: ReturnType<typeof actor>) =>
        c.storage.writeTransaction((trx) => actors.insertIfAbsent(trx, row));
      assert.equal(await insert(actor('a1', 'devid:arm-1')), true);
      assert.equal(await insert(actor('a9', 'devid:arm-1')), false);
      assert.equal(await insert(actor('a2', 'devid:arm-2')), true);
      await c.storage.writeTransaction(async (trx) => {
        const locked = await actors.findByIdentity(trx, tenant, 'devid:arm-1', { forUpdate: true });
        assert.equal(locked?.id, 'a1');
        await actors.update(
          trx,
          tenant,
          'a1',
          { ...actor('a1', 'x'), display_name: 'Arm one', status: 'disabled' },
          9,
        );
      });
      const changed = await actors.findByIdentity(c.storage.db, tenant, 'devid:arm-1');
      assert.deepEqual(
        [changed?.display_name, changed?.status, changed?.updated_at, changed?.actor_identity],
        ['Arm one', 'disabled', 9, 'devid:arm-1'],
      );
      assert.deepEqual(
        (await actors.list(c.storage.db, tenant, { limit: 10 })).map((a) => a.id),
        ['a2', 'a1'],
      );
      assert.deepEqual(
        (await actors.list(c.storage.db, tenant, { limit: 10, before: 'a2' })).map((a) => a.id),
        ['a1'],
      );
      assert.equal(await actors.findByIdentity(c.storage.db, await newTenant(c), 'devid:arm-1'), undefined);
    });

    it('lists tickets by their status as of now, decides pending ones and consumes an approved one once', async () => {
      const { ticketRepository: tickets } = c.repos;
      const tenant = await newTenant(c);
      // Pending and not expired at 5,000, over every tenant: this tenant adds esc_2 only.
      const pendingBefore = await tickets.countPending(c.storage.db, 5_000);
      await c.storage.writeTransaction(async (trx) => {
        await tickets.insert(trx, ticket(tenant, 'esc_1', 'pending', 1_000));
        await tickets.insert(trx, ticket(tenant, 'esc_2', 'pending', 9_000));
        await tickets.insert(trx, ticket(tenant, 'esc_3', 'approved', 9_000));
        await tickets.insert(trx, ticket(tenant, 'esc_4', 'rejected', 9_000));
      });
      const ids = async (status: Parameters<typeof tickets.list>[2]['status'], before?: string) =>
        (await tickets.list(c.storage.db, tenant, { status, now: 5_000, before, limit: 10 })).map(
          (t) => t.id,
        );
      assert.deepEqual(await ids('pending'), ['esc_2']);
      assert.equal(await tickets.countPending(c.storage.db, 5_000), pendingBefore + 1);
      assert.deepEqual(await ids('expired'), ['esc_1']);
      assert.deepEqual(await ids('approved'), ['esc_3']);
      assert.deepEqual(await ids('rejected'), ['esc_4']);
      assert.deepEqual(await ids('consumed'), []);
      await c.storage.writeTransaction(async (trx) => {
        assert.equal((await tickets.get(trx, tenant, 'esc_2', { forUpdate: true }))?.status, 'pending');
        const decided = {
          status: 'approved',
          approvedBy: 'key-1',
          approvedAtMs: 6,
          operator: 'Ann',
          rejectionReason: null,
        };
        await tickets.decide(trx, tenant, 'esc_2', decided);
        await tickets.decide(trx, tenant, 'esc_4', decided);
      });
      const approved = await tickets.get(c.storage.db, tenant, 'esc_2');
      assert.deepEqual(
        [approved?.status, approved?.approved_by, approved?.operator],
        ['approved', 'key-1', 'Ann'],
      );
      assert.equal(
        (await tickets.get(c.storage.db, tenant, 'esc_4'))?.status,
        'rejected',
        'only a pending one',
      );
      const consume = () => c.storage.writeTransaction((trx) => tickets.consume(trx, tenant, 'esc_2', 7));
      assert.deepEqual((await Promise.all([consume(), consume()])).sort(), [false, true]);
      assert.deepEqual(await ids('consumed'), ['esc_2']);
      assert.equal(await tickets.get(c.storage.db, await newTenant(c), 'esc_2'), undefined);
    });

    it('stores decisions, finds issued tokens and pages newest first by code and actor', async () => {
      const { decisionRepository: decisions } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction(async (trx) => {
        await decisions.insert(trx, decision(tenant, 'd1', 'jti-1'));
        await decisions.insert(trx, decision(tenant, 'd2', null, { oi_code: 'OI-2901' }));
        await decisions.insert(trx, decision(tenant, 'd3', 'jti-3', { actor_identity: 'devid:arm-8' }));
      });
      await assert.rejects(
        c.storage.writeTransaction((trx) => decisions.insert(trx, decision(tenant, 'd4', 'jti-1'))),
        (e) => isUniqueViolation(e),
      );
      assert.deepEqual(
        await decisions.findByJti(c.storage.db, tenant, 'jti-3'),
        decision(tenant, 'd3', 'jti-3', { actor_identity: 'devid:arm-8' }),
      );
      const ids = async (query: Omit<Parameters<typeof decisions.list>[2], 'limit'>) =>
        (await decisions.list(c.storage.db, tenant, { limit: 10, ...query })).map((d) => d.id);
      assert.deepEqual(await ids({}), ['d3', 'd2', 'd1']);
      assert.deepEqual(await ids({ before: 'd3' }), ['d2', 'd1']);
      assert.deepEqual(await ids({ oiCode: 'OI-2901' }), ['d2']);
      assert.deepEqual(await ids({ actorIdentity: 'devid:arm-8' }), ['d3']);
      assert.deepEqual(
        await decisions.issuedTokens(c.storage.db, tenant, ['jti-1', 'jti-1', 'jti-9']),
        new Map([['jti-1', { correlationId: 'corr-d1', actorIdentity: 'devid:arm-7', actorKind: 'robot' }]]),
      );
      assert.deepEqual(await decisions.issuedTokens(c.storage.db, tenant, []), new Map());
    });

    it('finds the decisions that opened tickets', async () => {
      const { decisionRepository: decisions } = c.repos;
      const tenant = await newTenant(c);
      const escalation = decision(tenant, 'd1', null, {
        decision: 'ESCALATE',
        escalation_ticket_id: 'esc_1',
      });
      await c.storage.writeTransaction(async (trx) => {
        await decisions.insert(trx, escalation);
        await decisions.insert(
          trx,
          decision(tenant, 'd2', null, { decision: 'ESCALATE', escalation_ticket_id: 'esc_2' }),
        );
        await decisions.insert(trx, decision(tenant, 'd3', 'jti-3'));
      });
      assert.deepEqual(await decisions.escalationsOfTickets(c.storage.db, tenant, ['esc_1', 'esc_9']), [
        escalation,
      ]);
      assert.deepEqual(await decisions.escalationsOfTickets(c.storage.db, await newTenant(c), ['esc_1']), []);
    });

    it('keeps the most recent verification reports of each token, oldest first', async () => {
      const { verificationRepository: verifications } = c.repos;
      const tenant = await newTenant(c);
      const report = (id: string, jti: string) => ({
        tenant_id: tenant,
        id,
        token_jti: jti,
        edge_node_id: 'edge-1',
        result: 'accepted',
        reason: null,
        at_ms: 1,
        reported_at: 2,
        reported_by: 'key-1',
      });
      await c.storage.writeTransaction((trx) =>
        verifications.insert(trx, [
          report('v1', 'a'),
          report('v2', 'b'),
          report('v3', 'a'),
          report('v4', 'a'),
        ]),
      );
      await c.storage.writeTransaction((trx) => verifications.insert(trx, []));
      const recent = await verifications.recentOfTokens(c.storage.db, tenant, ['a', 'b'], 2);
      assert.deepEqual(
        recent.map((r) => [r.id, r.token_jti]),
        [
          ['v2', 'b'],
          ['v3', 'a'],
          ['v4', 'a'],
        ],
      );
      assert.deepEqual(recent[0], report('v2', 'b'));
      assert.deepEqual(await verifications.recentOfTokens(c.storage.db, tenant, [], 2), []);
    });

    it('revokes with increasing times per tenant and pages the feed since a time', async () => {
      const { revocationRepository: revocations } = c.repos;
      const tenant = await newTenant(c);
      const revoke = (tokenJti: string, revokedAtMs: number) =>
        c.storage.writeTransaction((trx) =>
          revocations.insert(trx, {
            tenantId: tenant,
            tokenJti,
            revokedAtMs,
            reason: 'lost',
            revokedBy: 'key-1',
          }),
        );
      assert.equal(await revocations.latestRevokedAt(c.storage.db, tenant), null);
      await revoke('a', 100);
      await revoke('b', 200);
      await assert.rejects(
        revoke('c', 200),
        (e) => isUniqueViolation(e),
        'revocation times are unique per tenant',
      );
      assert.equal(await revocations.revokedAt(c.storage.db, tenant, 'b'), 200);
      assert.equal(await revocations.revokedAt(c.storage.db, tenant, 'c'), undefined);
      assert.equal(await revocations.latestRevokedAt(c.storage.db, tenant), 200);
      assert.deepEqual(await revocations.since(c.storage.db, tenant, 100, 10), [
        { tokenJti: 'b', revokedAtMs: 200, reason: 'lost' },
      ]);
      assert.deepEqual(
        (await revocations.since(c.storage.db, tenant, 0, 1)).map((r) => r.tokenJti),
        ['a'],
      );
      assert.deepEqual(
        await revocations.ofTokens(c.storage.db, tenant, ['a', 'z']),
        new Map([['a', { revokedAtMs: 100, reason: 'lost' }]]),
      );
      assert.deepEqual(await revocations.ofTokens(c.storage.db, tenant, []), new Map());
    });

    it('stores snapshots under their reference and reads states per tenant', async () => {
      const { snapshotRepository: snapshots } = c.repos;
      const tenant = await newTenant(c);
      await c.storage.writeTransaction((trx) =>
        snapshots.insert(trx, { tenantId: tenant, ref: 'ref-1', state: STATE, createdAtMs: 3 }),
      );
      assert.deepEqual(
        await snapshots.states(c.storage.db, tenant, ['ref-1', 'ref-2']),
        new Map([['ref-1', STATE]]),
      );
      assert.deepEqual(await snapshots.states(c.storage.db, await newTenant(c), ['ref-1']), new Map());
      assert.deepEqual(await snapshots.states(c.storage.db, tenant, []), new Map());
    });

    it('reads an issuance’s context: kill switch, active policy version and an open chain break', async () => {
      const {
        issuanceContextRepository: context,
        tenantRepository,
        chainBreakRepository,
        physicalPolicyRepository,
      } = c.repos;
      const tenant = await newTenant(c);
      assert.deepEqual(await context.get(c.storage.db, tenant), {
        killSwitchEnabled: false,
        policyVersion: null,
        unacknowledgedChainBreak: false,
      });
      await c.storage.writeTransaction(async (trx) => {
        await tenantRepository.setKillSwitch(trx, tenant, {
          enabled: true,
          reason: 'r',
          changedBy: 'k',
          changedAtMs: 1,
        });
        await chainBreakRepository.recordOnce(trx, tenant, {
          brokenAt: 3,
          reason: 'INDEX_GAP',
          detectedAtMs: 1,
        });
        await physicalPolicyRepository.insert(trx, {
          tenantId: tenant,
          version: 1,
          id: 'p-1',
          document: { clauses: [] },
          active: true,
          createdAtMs: 1,
          createdBy: 'k',
        });
      });
      assert.deepEqual(await context.get(c.storage.db, tenant), {
        killSwitchEnabled: true,
        policyVersion: 1,
        unacknowledgedChainBreak: true,
      });
      assert.equal(await context.get(c.storage.db, 'nobody'), undefined);
    });
  });
}
