import { v7 as uuidv7 } from 'uuid';
import type { AuditEvent } from '../../src/chain/audit-entry.js';
import { type AppendResult, chainRepository } from '../../src/chain/chain-repository.js';
import type { Storage } from '../../src/storage/database.js';

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
