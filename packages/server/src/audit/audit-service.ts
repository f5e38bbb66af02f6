import { Readable } from 'node:stream';
import type { AuditEntry } from '../chain/audit-entry.js';
import { parseStoredEntry, principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { AppError, validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import { decodeIndexCursor, encodeIndexCursor } from '../foundation/cursor.js';
import type { Principal } from '../identity/principal.js';
import { parseIsoDateTime } from '../policy/time-window.js';
import type { Storage } from '../storage/database.js';
import { enqueueEvent } from '../webhooks/outbox.js';
import { chainBreakRepository } from './chain-break-repository.js';
import type { Checkpoint, PublicKeyLookup } from './checkpoint.js';
import { checkpointRepository } from './checkpoint-repository.js';
import { type ChainVerification, verifyStoredChain } from './stored-chain-verification.js';
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

/** `2026-03-01` (midnight UTC) or a date-time with an offset; never a calendar date that does not exist. */
function parseTime(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseIsoDateTime(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (ms === null) {
    throw validationError([
      {
        path: `querystring/${name}`,
        message: `${name} must be an ISO 8601 date (2026-03-01, midnight UTC) or date-time with an offset (2026-03-01T09:30:00Z)`,
      },
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
    entriesForIntent(tenantId: string, intentId: string): Promise<AuditEntry[]> {
      return chainRepository.entriesOfIntent(db, tenantId, intentId);
    },

    async timeline(
      tenantId: string,
      query: TimelineQuery,
    ): Promise<{ events: TimelineEvent[]; nextCursor: string | null }> {
      const limit = Math.min(query.limit ?? TIMELINE_DEFAULT_LIMIT, TIMELINE_MAX_LIMIT);
      const from = parseTime('from', query.from);
      const to = parseTime('to', query.to);
      if (from !== undefined && to !== undefined && from > to) {
        throw validationError([{ path: 'querystring/to', message: 'to must not be before from' }]);
      }
      const before = decodeIndexCursor(query.cursor);
      const rows = await chainRepository.page(
        db,
        tenantId,
        {
          actorId: query.actorId,
          targetSystem: query.targetSystem,
          eventType: query.eventType,
          fromMs: from,
          toMs: to,
          beforeIndex: before,
        },
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        events: page.map((row) => toTimelineEvent(row.entry, row.targetSystem)),
        nextCursor: rows.length > limit && last ? encodeIndexCursor(last.entry.index) : null,
      };
    },

    /** NDJSON of full entries and the checkpoints in an inclusive index range, streamed page by page. */
    exportStream(tenantId: string, range: { fromIndex?: number; toIndex?: number }): Readable {
      async function* lines(): AsyncGenerator<string> {
        let cursor = range.fromIndex ?? 0;
        // The index column is a 32-bit integer on PostgreSQL: a larger bound would not even bind.
        const last = range.toIndex ?? 2_147_483_647;
        for (;;) {
          const rows = await chainRepository.storedEntries(db, tenantId, {
            from: cursor,
            to: last,
            limit: 1_000,
          });
          if (rows.length === 0) return;
          const upper = (rows[rows.length - 1] as { index: number }).index;
          const checkpoints = await checkpointRepository.list(db, tenantId, { from: cursor, to: upper });
          let next = 0;
          for (const row of rows) {
            yield `${JSON.stringify({ entry: parseStoredEntry(row) })}\n`;
            while (checkpoints[next] && (checkpoints[next] as Checkpoint).index <= row.index) {
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
      checkpointRepository.list(db, tenantId, range),

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
          const recorded = await chainBreakRepository.recordOnce(trx, tenantId, {
            brokenAt,
            reason,
            detectedAtMs: now,
          });
          if (!recorded) return false;
          await enqueueEvent(trx, tenantId, { event: 'chain.break', brokenAt, reason, occurredAt: now });
          return true;
        });
      }
      return { ...result, newBreak };
    },

    async openBreaks(tenantId: string): Promise<ChainBreakRecord[]> {
      const rows = await chainBreakRepository.listOpen(db, tenantId);
      return rows.map((r) => ({
        brokenAt: r.brokenAt,
        reason: r.reason,
        detectedAt: new Date(r.detectedAtMs).toISOString(),
        acknowledgedAt: null,
      }));
    },

    /** Acknowledges an open break and records that in the chain, in one transaction. */
    async acknowledgeBreak(tenantId: string, principal: Principal, brokenAt: number, note: string) {
      const now = clock();
      return storage.writeTransaction(async (trx) => {
        const reason = await chainBreakRepository.acknowledge(trx, tenantId, brokenAt, {
          atMs: now,
          by: principal.id,
          note,
        });
        if (reason === undefined) throw new AppError('NOT_FOUND', `No open chain break at index ${brokenAt}`);
        const appended = await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'chain.break.acknowledged', { brokenAt, reason, note })],
          now,
        );
        return {
          brokenAt,
          reason,
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
