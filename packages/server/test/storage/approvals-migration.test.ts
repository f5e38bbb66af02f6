import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTestStorage, ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`migration 0007_approvals on a database with escalations (${engine})`, () => {
    it('fills the queue and deadline columns of escalations recorded before it', async () => {
      const t = await createTestStorage(engine, { migrate: false });
      const db = t.storage.db as unknown as Kysely<unknown>;
      const schema = t.location.pgSchema;
      try {
        await migrateToLatest(db, engine, schema, '0006_webhooks');
        await sql`insert into tenants (id, name, plan, rate_limit_per_minute, kill_switch_enabled, ip_allowlist, created_at, updated_at)
          values ('acme', 'acme', 'pro', null, 0, '[]', 0, 0)`.execute(db);
        const approval = {
          queue: 'catastrophic-review',
          status: 'pending',
          requiredApprovals: 2,
          expiresAt: '2026-11-22T08:00:00.000Z',
        };
        for (const [id, value] of [
          ['escalated', JSON.stringify(approval)],
          ['approved-directly', null],
        ] as const) {
          await sql`insert into intents (tenant_id, id, correlation_id, principal_id, actor_id, target_system, status,
            decision, review_state, request, authority_decision, hypotheses, execution, token, escalation_id, approval,
            created_at, updated_at)
            values ('acme', ${id}, 'c', 'p', 'agent-7', 'acme/payments', 'ESCALATED', 'ESCALATED', 'PENDING', '{}', '{}',
            '[]', '{}', null, ${value === null ? null : 'esc-1'}, ${value}, 0, 0)`.execute(db);
        }
        assert.deepEqual((await migrateToLatest(db, engine, schema)).applied.slice(0, 1), ['0007_approvals']);
        const rows = await t.storage.db
          .selectFrom('intents')
          .select(['id', 'approval_queue', 'approval_expires_at'])
          .orderBy('id')
          .execute();
        assert.deepEqual(rows, [
          { id: 'approved-directly', approval_queue: null, approval_expires_at: null },
          {
            id: 'escalated',
            approval_queue: 'catastrophic-review',
            approval_expires_at: Date.parse(approval.expiresAt),
          },
        ]);
      } finally {
        await t.dispose();
      }
    });
  });
}
