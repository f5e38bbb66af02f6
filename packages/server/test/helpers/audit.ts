import { v7 as uuidv7 } from 'uuid';
import type { AuditEvent } from '../../src/chain/audit-entry.js';
import { type AppendResult, chainRepository } from '../../src/chain/chain-repository.js';
import type { Storage } from '../../src/storage/database.js';
import type { TestApp } from './app.js';

export function testEvent(n: number, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    correlationId: uuidv7(),
    intentId: null,
    actorId: `actor-${n % 3}`,
    actorType: 'principal:api-key',
    eventType: n % 2 === 0 ? 'test.even' : 'test.odd',
    payload: { n, targetSystem: `org/repo-${n % 2}`, note: 'é ✓ "quoted"', ratio: n / 7 },
    ...extra,
  };
}

/** Appends `count` events one transaction at a time, as independent requests would. */
export async function appendEvents(
  storage: Storage,
  tenantId: string,
  count: number,
  now: () => number,
  start = 0,
): Promise<AppendResult | undefined> {
  let last: AppendResult | undefined;
  for (let i = start; i < start + count; i++) {
    last = await storage.writeTransaction((trx) =>
      chainRepository.append(trx, tenantId, [testEvent(i)], now()),
    );
  }
  return last;
}

/**
 * Alters a stored entry's canonical text as someone with write access to the database would (the
 * hash is left as it was), and returns a function that puts the original back.
 */
export async function alterStoredEntry(
  storage: Storage,
  tenantId: string,
  idx: number,
  alter: (canonical: string) => string,
): Promise<() => Promise<void>> {
  const { canonical } = await storage.db
    .selectFrom('audit_entries')
    .select('canonical')
    .where('tenant_id', '=', tenantId)
    .where('idx', '=', idx)
    .executeTakeFirstOrThrow();
  const altered = alter(canonical);
  if (altered === canonical) throw new Error(`entry ${idx} of ${tenantId} is unchanged by the alteration`);
  const write = (text: string) =>
    storage.db
      .updateTable('audit_entries')
      .set({ canonical: text })
      .where('tenant_id', '=', tenantId)
      .where('idx', '=', idx)
      .execute();
  await write(altered);
  return async () => {
    await write(canonical);
  };
}

/** The tenant's chain entries of one event type, oldest first. */
export async function chainEvents(t: TestApp, tenantId: string, eventType: string) {
  const rows = await t.storage.db
    .selectFrom('audit_entries')
    .select(['canonical', 'actor_id', 'actor_type', 'correlation_id'])
    .where('tenant_id', '=', tenantId)
    .where('event_type', '=', eventType)
    .orderBy('idx')
    .execute();
  return rows.map((row) => ({
    actorId: row.actor_id,
    actorType: row.actor_type,
    correlationId: row.correlation_id,
    payload: (JSON.parse(row.canonical) as { payload: Record<string, unknown> }).payload,
  }));
}
