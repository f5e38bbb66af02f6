import { byIndex, intentEntriesQuery } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { Storage } from '../storage/database.js';
import { escalationStatus, intentStatus } from './escalation-views.js';
import { type IntentQuery, type IntentRecord, intentRepository } from './intent-repository.js';

export interface IntentView {
  intentId: string;
  correlationId: string;
  tenantId: string;
  request: unknown;
  status: string;
  authorityDecision: Record<string, unknown>;
  hypotheses: unknown;
  approval?: unknown;
  execution: Record<string, unknown>;
  tokenIssued: boolean;
  auditEntries?: Array<{ index: number; eventType: string; entryHash: string }>;
  createdAt: string;
}

/** The stored intent as read at `now`: a lapsed escalation reads as EXPIRED before the sweep writes it. */
function toView(record: IntentRecord, now: number): IntentView {
  const approvalStatus = escalationStatus(record, now);
  return {
    intentId: record.id,
    correlationId: record.correlationId,
    tenantId: record.tenantId,
    request: record.request,
    status: intentStatus(record, now),
    authorityDecision: record.authorityDecision,
    hypotheses: record.hypotheses,
    ...(record.approval
      ? { approval: { ...record.approval, status: approvalStatus, escalationId: record.escalationId } }
      : {}),
    execution: record.execution,
    tokenIssued: record.token !== null,
    createdAt: new Date(record.createdAt).toISOString(),
  };
}

/** `GET /intent/:id` and `GET /intents` (contract §4.7). The token itself is never returned here. */
export function createIntentReads(deps: { storage: Storage; clock: Clock }) {
  const db = deps.storage.db;
  return {
    async get(tenantId: string, intentId: string): Promise<IntentView | undefined> {
      const record = await intentRepository.get(db, tenantId, intentId);
      if (!record) return undefined;
      const entries = (
        await intentEntriesQuery(db, tenantId, intentId).select(['idx', 'event_type', 'entry_hash']).execute()
      ).sort(byIndex);
      return {
        ...toView(record, deps.clock()),
        auditEntries: entries.map((e) => ({
          index: e.idx,
          eventType: e.event_type,
          entryHash: e.entry_hash,
        })),
      };
    },

    async list(tenantId: string, query: IntentQuery): Promise<{ intents: IntentView[]; hasMore: boolean }> {
      const now = deps.clock();
      const records = await intentRepository.list(db, tenantId, { ...query, now });
      return {
        intents: records.slice(0, query.limit).map((record) => toView(record, now)),
        hasMore: records.length > query.limit,
      };
    },
  };
}

export type IntentReads = ReturnType<typeof createIntentReads>;
