import type { Kysely, Selectable } from 'kysely';
import type { SqlDialect } from '../storage/database.js';
import type { AuditEntriesTable, Database } from '../storage/schema.js';
import {
  type AuditEntry,
  type AuditEvent,
  GENESIS_HASH,
  type SealedEntry,
  sealEntry,
} from './audit-entry.js';

export interface AppendResult {
  entries: AuditEntry[];
  latestHash: string;
  headIndex: number;
}

export interface ChainHead {
  lastIndex: number;
  lastHash: string;
  lastCheckpointIndex: number;
  lastCheckpointAt: number;
}

/**
 * Reads the tenant's chain head, creating it on first use; locks it on PostgreSQL (FOR UPDATE).
 * Writes that must serialize with the tenant's appends (revocation times) take it too.
 */
export async function lockHead(
  trx: Kysely<Database>,
  dialect: SqlDialect,
  tenantId: string,
  now: number,
): Promise<ChainHead> {
  const select = () => {
    const query = trx.selectFrom('audit_heads').selectAll().where('tenant_id', '=', tenantId);
    return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  };
  let row = await select();
  if (!row) {
    await trx
      .insertInto('audit_heads')
      .values({
        tenant_id: tenantId,
        last_index: -1,
        last_hash: GENESIS_HASH,
        last_checkpoint_index: -1,
        last_checkpoint_at: now,
      })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
    row = await select();
  }
  if (!row) throw new Error(`audit head of ${tenantId} could not be created`);
  return {
    lastIndex: row.last_index,
    lastHash: row.last_hash,
    lastCheckpointIndex: row.last_checkpoint_index,
    lastCheckpointAt: row.last_checkpoint_at,
  };
}

function targetSystemOf(payload: unknown): string | null {
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const value = (payload as Record<string, unknown>).targetSystem;
    if (typeof value === 'string') return value;
  }
  return null;
}

/**
 * Appends events to the tenant's chain. Must run inside `storage.writeTransaction` together with the
 * state change the events record: the head lock (FOR UPDATE on PostgreSQL, BEGIN IMMEDIATE on
 * SQLite) serializes appends per tenant across processes.
 */
export async function appendAudit(
  trx: Kysely<Database>,
  dialect: SqlDialect,
  tenantId: string,
  events: readonly AuditEvent[],
  now: number,
): Promise<AppendResult> {
  const head = await lockHead(trx, dialect, tenantId, now);
  const sealed: SealedEntry[] = [];
  let previousHash = head.lastHash;
  let index = head.lastIndex;
  for (const event of events) {
    index += 1;
    const next = sealEntry(tenantId, index, previousHash, event, now);
    sealed.push(next);
    previousHash = next.entry.entryHash;
  }
  if (sealed.length === 0) return { entries: [], latestHash: head.lastHash, headIndex: head.lastIndex };
  await trx
    .insertInto('audit_entries')
    .values(
      sealed.map(({ entry, canonical }) => ({
        tenant_id: tenantId,
        idx: entry.index,
        correlation_id: entry.correlationId,
        intent_id: entry.intentId,
        actor_id: entry.actorId,
        actor_type: entry.actorType,
        event_type: entry.eventType,
        target_system: targetSystemOf(entry.payload),
        previous_hash: entry.previousHash,
        entry_hash: entry.entryHash,
        canonical,
        created_at: now,
      })),
    )
    .execute();
  await trx
    .updateTable('audit_heads')
    .set({ last_index: index, last_hash: previousHash })
    .where('tenant_id', '=', tenantId)
    .execute();
  return { entries: sealed.map((s) => s.entry), latestHash: previousHash, headIndex: index };
}

/** The full entry of a stored row, parsed from the canonical text that was hashed. */
export function entryFromRow(
  row: Pick<Selectable<AuditEntriesTable>, 'canonical' | 'entry_hash'>,
): AuditEntry {
  const parsed = JSON.parse(row.canonical) as Omit<AuditEntry, 'entryHash'>;
  return { ...parsed, entryHash: row.entry_hash };
}

/**
 * The audit entries of one intent, found through the (tenant_id, intent_id) index, so reading them
 * costs the intent's entries, not the chain's. The query has no ORDER BY on purpose: with one,
 * SQLite prefers the primary key (tenant_id, idx), which yields rows in order but scans the
 * tenant's whole chain. Callers sort the few rows (byIndex).
 */
export function intentEntriesQuery(db: Kysely<Database>, tenantId: string, intentId: string) {
  return db.selectFrom('audit_entries').where('tenant_id', '=', tenantId).where('intent_id', '=', intentId);
}

/** Chain order, for rows read without ORDER BY. */
export function byIndex(a: { idx: number }, b: { idx: number }): number {
  return a.idx - b.idx;
}

export async function readHead(db: Kysely<Database>, tenantId: string): Promise<ChainHead | undefined> {
  const row = await db
    .selectFrom('audit_heads')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row
    ? {
        lastIndex: row.last_index,
        lastHash: row.last_hash,
        lastCheckpointIndex: row.last_checkpoint_index,
        lastCheckpointAt: row.last_checkpoint_at,
      }
    : undefined;
}
