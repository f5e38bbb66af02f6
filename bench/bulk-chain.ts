import type { AuditEvent } from '../packages/server/src/chain/audit-entry.js';
import { GENESIS_HASH, sealEntry } from '../packages/server/src/chain/audit-entry.js';
import type { Storage } from '../packages/server/src/storage/database.js';

/**
 * Writes a chain of `length` entries for `tenantId` with bulk inserts (the same sealing code as
 * appends) and its head, without the Merkle tree: the head says `tree_size` 0, as a chain written
 * before the tree existed.
 */
export async function writeBulkChain(
  storage: Storage,
  tenantId: string,
  length: number,
  event: (n: number) => AuditEvent,
): Promise<void> {
  let previous = GENESIS_HASH;
  const now = Date.now();
  const batch = 400;
  for (let from = 0; from < length; from += 10_000) {
    await storage.writeTransaction(async (trx) => {
      for (let i = from; i < Math.min(from + 10_000, length); i += batch) {
        const rows = [];
        for (let j = i; j < Math.min(i + batch, length); j++) {
          const sealed = sealEntry(tenantId, j, previous, event(j), now);
          previous = sealed.entry.entryHash;
          rows.push({
            tenant_id: tenantId,
            idx: j,
            correlation_id: sealed.entry.correlationId,
            intent_id: sealed.entry.intentId,
            actor_id: sealed.entry.actorId,
            actor_type: sealed.entry.actorType,
            event_type: sealed.entry.eventType,
            target_system: 'acme/payments',
            previous_hash: sealed.entry.previousHash,
            entry_hash: sealed.entry.entryHash,
            canonical: sealed.canonical,
            created_at: now,
          });
        }
        await trx.insertInto('audit_entries').values(rows).execute();
      }
    });
  }
  await storage.db
    .insertInto('audit_heads')
    .values({
      tenant_id: tenantId,
      last_index: length - 1,
      last_hash: previous,
      last_checkpoint_index: -1,
      last_checkpoint_at: now,
    })
    .execute();
}
