import type { TreeFrontier } from '@authority-runtime/sdk';
import { sql } from 'kysely';
import { compiledQuery } from '../storage/compiled-query.js';
import type { Executor } from '../storage/database.js';
import { forUpdate } from '../storage/row-lock.js';
import type { AuditEntriesTable } from '../storage/schema.js';
import {
  type AuditEntry,
  type AuditEvent,
  GENESIS_HASH,
  parseStoredEntry,
  type SealedEntry,
  sealEntry,
} from './audit-entry.js';
import type { StoredEntry } from './chain-verifier.js';
import { decodeFrontier, encodeFrontier, subtreeHashRepository } from './subtree-hash-repository.js';

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
  /** The Merkle tree over the chain (contract §15): its size and right edge. */
  tree: TreeFrontier;
}

/** Which entries a timeline page holds; every filter is optional. */
export interface EntryFilter {
  actorId?: string | undefined;
  targetSystem?: string | undefined;
  eventType?: string | undefined;
  /** Inclusive bounds of `created_at`, epoch ms. */
  fromMs?: number | undefined;
  toMs?: number | undefined;
  /** Only entries below this index (the keyset of a newest-first page). */
  beforeIndex?: number | undefined;
}

function targetSystemOf(payload: unknown): string | null {
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const value = (payload as Record<string, unknown>).targetSystem;
    if (typeof value === 'string') return value;
  }
  return null;
}

/**
 * The audit entries of one intent, found through the (tenant_id, intent_id) index, so reading them
 * costs the intent's entries, not the chain's. The query has no ORDER BY on purpose: with one,
 * SQLite prefers the primary key (tenant_id, idx), which yields rows in order but scans the
 * tenant's whole chain. Callers sort the few rows (byIndex).
 */
export function intentEntriesQuery(db: Executor, tenantId: string, intentId: string) {
  return db.selectFrom('audit_entries').where('tenant_id', '=', tenantId).where('intent_id', '=', intentId);
}

/** Chain order, for rows read without ORDER BY. */
function byIndex(a: { idx: number }, b: { idx: number }): number {
  return a.idx - b.idx;
}

/** The full entry of a stored row, parsed from the canonical text that was hashed. */
export function entryFromRow(row: Pick<AuditEntriesTable, 'canonical' | 'entry_hash'>): AuditEntry {
  return parseStoredEntry({ canonical: row.canonical, entryHash: row.entry_hash });
}

function toHead(row: {
  last_index: number;
  last_hash: string;
  last_checkpoint_index: number;
  last_checkpoint_at: number;
  tree_size: number;
  tree_frontier: string;
}): ChainHead {
  return {
    lastIndex: row.last_index,
    lastHash: row.last_hash,
    lastCheckpointIndex: row.last_checkpoint_index,
    lastCheckpointAt: row.last_checkpoint_at,
    tree: decodeFrontier(row.tree_size, row.tree_frontier),
  };
}

// The statements of every append, compiled once per engine (and per number of entries).
const headQuery = compiledQuery((db: Executor, [tenantId]: [string]) =>
  forUpdate(db, db.selectFrom('audit_heads').selectAll().where('tenant_id', '=', tenantId)),
);
const insertEntries = compiledQuery(
  (db: Executor, rows: AuditEntriesTable[]) => db.insertInto('audit_entries').values(rows),
  (rows) => rows.length,
);
const updateHead = compiledQuery(
  (
    db: Executor,
    [tenantId, lastIndex, lastHash, treeSize, treeFrontier]: [string, number, string, number, string],
  ) =>
    db
      .updateTable('audit_heads')
      .set({ last_index: lastIndex, last_hash: lastHash, tree_size: treeSize, tree_frontier: treeFrontier })
      .where('tenant_id', '=', tenantId),
);

/**
 * The tenants' hash chains (contract §6): each tenant's head (last index and hash, last
 * checkpoint) and its entries. Entries are only ever appended, under the head's lock.
 */
export const chainRepository = {
  /**
   * Reads the tenant's chain head, creating it on first use, and locks it (FOR UPDATE on
   * PostgreSQL; SQLite's write transaction holds the lock already). Writes that must serialize
   * with the tenant's appends (revocation times) take it too.
   */
  async lockHead(trx: Executor, tenantId: string, now: number): Promise<ChainHead> {
    const select = async () => (await headQuery(trx, [tenantId])).rows[0];
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
          tree_size: 0,
          tree_frontier: '',
        })
        .onConflict((oc) => oc.column('tenant_id').doNothing())
        .execute();
      row = await select();
    }
    if (!row) throw new Error(`audit head of ${tenantId} could not be created`);
    return toHead(row);
  },

  /**
   * Appends events to the tenant's chain. Must run inside `storage.writeTransaction` together with
   * the state change the events record: the head lock serializes appends per tenant across
   * processes.
   */
  async append(
    trx: Executor,
    tenantId: string,
    events: readonly AuditEvent[],
    now: number,
  ): Promise<AppendResult> {
    const head = await chainRepository.lockHead(trx, tenantId, now);
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
    const tree = await subtreeHashRepository.grow(
      trx,
      tenantId,
      head.tree,
      head.lastIndex + 1,
      sealed.map(({ entry }) => entry.entryHash),
    );
    await insertEntries(
      trx,
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
    );
    await updateHead(trx, [tenantId, index, previousHash, tree.treeSize, encodeFrontier(tree)]);
    return { entries: sealed.map((s) => s.entry), latestHash: previousHash, headIndex: index };
  },

  /**
   * Brings the tenant's Merkle tree up to its chain (a chain written before the tree existed) and
   * returns the head. Takes the head's lock; a tree already complete costs one read.
   */
  async syncTree(trx: Executor, tenantId: string, now: number): Promise<ChainHead> {
    const head = await chainRepository.lockHead(trx, tenantId, now);
    if (head.tree.treeSize === head.lastIndex + 1) return head;
    const tree = await subtreeHashRepository.grow(trx, tenantId, head.tree, head.lastIndex + 1, []);
    await trx
      .updateTable('audit_heads')
      .set({ tree_size: tree.treeSize, tree_frontier: encodeFrontier(tree) })
      .where('tenant_id', '=', tenantId)
      .execute();
    return { ...head, tree };
  },

  async head(db: Executor, tenantId: string): Promise<ChainHead | undefined> {
    const row = await db
      .selectFrom('audit_heads')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row ? toHead(row) : undefined;
  },

  /** Moves the head's last checkpoint forward (never back, whatever the order of concurrent writers). */
  async markCheckpointed(trx: Executor, tenantId: string, index: number, at: number): Promise<void> {
    await trx
      .updateTable('audit_heads')
      .set({ last_checkpoint_index: index, last_checkpoint_at: at })
      .where('tenant_id', '=', tenantId)
      .where('last_checkpoint_index', '<', index)
      .execute();
  },

  /**
   * Tenants whose head moved since its last checkpoint and is due for another: `everyEntries`
   * entries since it, or its last checkpoint at or before `dueBefore`.
   */
  async dueForCheckpoint(db: Executor, due: { dueBefore: number; everyEntries: number }): Promise<string[]> {
    const rows = await db
      .selectFrom('audit_heads')
      .select('tenant_id')
      .whereRef('last_index', '>', 'last_checkpoint_index')
      .where((eb) =>
        eb.or([
          eb('last_checkpoint_at', '<=', due.dueBefore),
          sql<boolean>`last_index - last_checkpoint_index >= ${due.everyEntries}`,
        ]),
      )
      .execute();
    return rows.map((row) => row.tenant_id);
  },

  /**
   * How far checkpoints trail the chains, over every tenant (a gauge, never by tenant): the most
   * entries any head has past its last checkpoint, and the oldest last-checkpoint time among heads
   * that moved since (null when every head is checkpointed).
   */
  async checkpointLag(db: Executor): Promise<{ entries: number; oldestCheckpointAt: number | null }> {
    const row = await db
      .selectFrom('audit_heads')
      .select([
        sql<number | string | null>`max(last_index - last_checkpoint_index)`.as('entries'),
        (eb) => eb.fn.min('last_checkpoint_at').as('oldest'),
      ])
      .whereRef('last_index', '>', 'last_checkpoint_index')
      .executeTakeFirst();
    return {
      entries: Number(row?.entries ?? 0),
      oldestCheckpointAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
    };
  },

  /** Every entry of one intent, in chain order. */
  async entriesOfIntent(db: Executor, tenantId: string, intentId: string): Promise<AuditEntry[]> {
    const rows = await intentEntriesQuery(db, tenantId, intentId)
      .select(['idx', 'canonical', 'entry_hash'])
      .execute();
    return rows.sort(byIndex).map(entryFromRow);
  },

  /** Index, type and hash of every entry of one intent, in chain order. */
  async entryRefsOfIntent(
    db: Executor,
    tenantId: string,
    intentId: string,
  ): Promise<Array<{ index: number; eventType: string; entryHash: string }>> {
    const rows = await intentEntriesQuery(db, tenantId, intentId)
      .select(['idx', 'event_type', 'entry_hash'])
      .execute();
    return rows
      .sort(byIndex)
      .map((row) => ({ index: row.idx, eventType: row.event_type, entryHash: row.entry_hash }));
  },

  /** Up to `limit` entries matching the filter, newest first, with the target system indexed. */
  async page(
    db: Executor,
    tenantId: string,
    filter: EntryFilter,
    limit: number,
  ): Promise<Array<{ entry: AuditEntry; targetSystem: string | null }>> {
    let select = db
      .selectFrom('audit_entries')
      .select(['idx', 'canonical', 'entry_hash', 'target_system'])
      .where('tenant_id', '=', tenantId);
    if (filter.actorId !== undefined) select = select.where('actor_id', '=', filter.actorId);
    if (filter.targetSystem !== undefined) select = select.where('target_system', '=', filter.targetSystem);
    if (filter.eventType !== undefined) select = select.where('event_type', '=', filter.eventType);
    if (filter.fromMs !== undefined) select = select.where('created_at', '>=', filter.fromMs);
    if (filter.toMs !== undefined) select = select.where('created_at', '<=', filter.toMs);
    if (filter.beforeIndex !== undefined) select = select.where('idx', '<', filter.beforeIndex);
    const rows = await select.orderBy('idx', 'desc').limit(limit).execute();
    return rows.map((row) => ({ entry: entryFromRow(row), targetSystem: row.target_system }));
  },

  /** Entries with `from <= index <= to` as stored (the hashed text and its hash), in index order. */
  async storedEntries(
    db: Executor,
    tenantId: string,
    range: { from: number; to: number; limit?: number },
  ): Promise<StoredEntry[]> {
    let select = db
      .selectFrom('audit_entries')
      .select(['idx', 'canonical', 'entry_hash'])
      .where('tenant_id', '=', tenantId)
      .where('idx', '>=', range.from)
      .where('idx', '<=', range.to)
      .orderBy('idx');
    if (range.limit !== undefined) select = select.limit(range.limit);
    const rows = await select.execute();
    return rows.map((row) => ({ index: row.idx, canonical: row.canonical, entryHash: row.entry_hash }));
  },
};
