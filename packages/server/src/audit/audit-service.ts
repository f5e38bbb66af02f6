import { Readable } from 'node:stream';
import type { Clock } from '../clock.js';
import { decodeIndexCursor, encodeIndexCursor } from '../cursor.js';
import { AppError, validationError } from '../errors/app-error.js';
import type { Storage } from '../storage/database.js';
import type { Principal } from '../tenancy/principal.js';
import { enqueueEvent } from '../webhooks/outbox.js';
import type { AuditEntry } from './audit-entry.js';
import { principalEvent } from './audit-entry.js';
import { appendAudit, byIndex, entryFromRow, intentEntriesQuery } from './audit-log.js';
import { type ChainVerification, verifyStoredChain } from './chain-verification.js';
import { type Checkpoint, listCheckpoints, type PublicKeyLookup } from './checkpoints.js';
import { type TimelineEvent, toTimelineEvent } from './timeline.js';

export interface TimelineQuery {
  actorId?: string | undefined;
  targetSystem?: string | undefined;
  eventType?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface ChainBreakRecord {
  brokenAt: number;
  reason: string;
  detectedAt: string;
  acknowledgedAt: string | null;
}

export const TIMELINE_DEFAULT_LIMIT = 50;
export const TIMELINE_MAX_LIMIT = 200;

function parseTime(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) {
    throw validationError([
      { path: `querystring/${name}`, message: `${name} must be an ISO 8601 timestamp` },
    ]);
  }
  return ms;
}

export function createAuditService(deps: {
  storage: Storage;
  clock: Clock;
  publicKeys: (tenantId: string) => PublicKeyLookup;
}) {
  const { storage, clock } = deps;
  const db = storage.db;

  return {
    /** Every entry of one intent, in chain order. */
    async entriesForIntent(tenantId: string, intentId: string): Promise<AuditEntry[]> {
      const rows = await intentEntriesQuery(db, tenantId, intentId)
        .select(['idx', 'canonical', 'entry_hash'])
        .execute();
      return rows.sort(byIndex).map(entryFromRow);
    },

    async timeline(
      tenantId: string,
      query: TimelineQuery,
    ): Promise<{ events: TimelineEvent[]; nextCursor: string | null }> {
      const limit = Math.min(query.limit ?? TIMELINE_DEFAULT_LIMIT, TIMELINE_MAX_LIMIT);
      const from = parseTime('from', query.from);
      const to = parseTime('to', query.to);
      const before = decodeIndexCursor(query.cursor);
      let select = db
        .selectFrom('audit_entries')
        .select(['idx', 'canonical', 'entry_hash', 'target_system'])
        .where('tenant_id', '=', tenantId);
      if (query.actorId !== undefined) select = select.where('actor_id', '=', query.actorId);
      if (query.targetSystem !== undefined) select = select.where('target_system', '=', query.targetSystem);
      if (query.eventType !== undefined) select = select.where('event_type', '=', query.eventType);
      if (from !== undefined) select = select.where('created_at', '>=', from);
      if (to !== undefined) select = select.where('created_at', '<=', to);
      if (before !== undefined) select = select.where('idx', '<', before);
      const rows = await select
        .orderBy('idx', 'desc')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        events: page.map((row) => toTimelineEvent(entryFromRow(row), row.target_system)),
        nextCursor: rows.length > limit && last ? encodeIndexCursor(last.idx) : null,
      };
    },

    /** NDJSON of full entries and the checkpoints in an inclusive index range, streamed page by page. */
    exportStream(tenantId: string, range: { fromIndex?: number; toIndex?: number }): Readable {
      async function* lines(): AsyncGenerator<string> {
        let cursor = range.fromIndex ?? 0;
        // The index column is a 32-bit integer on PostgreSQL: a larger bound would not even bind.
        const last = range.toIndex ?? 2_147_483_647;
        for (;;) {
          const rows = await db
            .selectFrom('audit_entries')
            .select(['idx', 'canonical', 'entry_hash'])
            .where('tenant_id', '=', tenantId)
            .where('idx', '>=', cursor)
            .where('idx', '<=', last)
            .orderBy('idx')
            .limit(1_000)
            .execute();
          if (rows.length === 0) return;
          const upper = (rows[rows.length - 1] as { idx: number }).idx;
          const checkpoints = await listCheckpoints(db, tenantId, { from: cursor, to: upper });
          let next = 0;
          for (const row of rows) {
            yield `${JSON.stringify({ entry: entryFromRow(row) })}\n`;
            while (checkpoints[next] && (checkpoints[next] as Checkpoint).index <= row.idx) {
              yield `${JSON.stringify({ checkpoint: checkpoints[next] })}\n`;
              next += 1;
            }
          }
          cursor = upper + 1;
        }
      }
      return Readable.from(lines());
    },

    checkpoints: (tenantId: string, range: { from?: number; to?: number; limit?: number }) =>
      listCheckpoints(db, tenantId, range),

    /** Verifies the chain; a break is recorded once per (tenant, brokenAt). */
    async verifyChain(
      tenantId: string,
      range: { from?: number; to?: number },
    ): Promise<ChainVerification & { newBreak: boolean }> {
      const result = await verifyStoredChain(storage, clock, tenantId, deps.publicKeys(tenantId), range);
      let newBreak = false;
      const { brokenAt, reason } = result;
      if (!result.valid && brokenAt !== undefined && reason !== undefined) {
        const now = clock();
        // The break record and its chain.break webhook event commit together, once per brokenAt.
        newBreak = await storage.writeTransaction(async (trx) => {
          const inserted = await trx
            .insertInto('chain_breaks')
            .values({
              tenant_id: tenantId,
              broken_at: brokenAt,
              reason,
              detected_at: now,
              acknowledged_at: null,
              acknowledged_by: null,
              note: null,
            })
            .onConflict((oc) => oc.columns(['tenant_id', 'broken_at']).doNothing())
            .executeTakeFirst();
          if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
          await enqueueEvent(trx, tenantId, { event: 'chain.break', brokenAt, reason, occurredAt: now });
          return true;
        });
      }
      return { ...result, newBreak };
    },

    async openBreaks(tenantId: string): Promise<ChainBreakRecord[]> {
      const rows = await db
        .selectFrom('chain_breaks')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('acknowledged_at', 'is', null)
        .orderBy('broken_at')
        .execute();
      return rows.map((r) => ({
        brokenAt: r.broken_at,
        reason: r.reason,
        detectedAt: new Date(r.detected_at).toISOString(),
        acknowledgedAt: null,
      }));
    },

    /** Acknowledges an open break and records that in the chain, in one transaction. */
    async acknowledgeBreak(tenantId: string, principal: Principal, brokenAt: number, note: string) {
      const now = clock();
      return storage.writeTransaction(async (trx) => {
        const updated = await trx
          .updateTable('chain_breaks')
          .set({ acknowledged_at: now, acknowledged_by: principal.id, note })
          .where('tenant_id', '=', tenantId)
          .where('broken_at', '=', brokenAt)
          .where('acknowledged_at', 'is', null)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0)
          throw new AppError('NOT_FOUND', `No open chain break at index ${brokenAt}`);
        const row = await trx
          .selectFrom('chain_breaks')
          .select('reason')
          .where('tenant_id', '=', tenantId)
          .where('broken_at', '=', brokenAt)
          .executeTakeFirstOrThrow();
        const appended = await appendAudit(
          trx,
          storage.dialect,
          tenantId,
          [principalEvent(principal, 'chain.break.acknowledged', { brokenAt, reason: row.reason, note })],
          now,
        );
        return {
          brokenAt,
          reason: row.reason,
          acknowledgedAt: new Date(now).toISOString(),
          acknowledgedBy: principal.id,
          note,
          entryHash: appended.latestHash,
        };
      });
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
