import type { Storage } from '../storage/database.js';
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

function toView(record: IntentRecord): IntentView {
  return {
    intentId: record.id,
    correlationId: record.correlationId,
    tenantId: record.tenantId,
    request: record.request,
    status: record.status,
    authorityDecision: record.authorityDecision,
    hypotheses: record.hypotheses,
    ...(record.approval ? { approval: { ...record.approval, escalationId: record.escalationId } } : {}),
    execution: record.execution,
    tokenIssued: record.token !== null,
    createdAt: new Date(record.createdAt).toISOString(),
  };
}

/** `GET /intent/:id` and `GET /intents` (contract §4.7). The token itself is never returned here. */
export function createIntentReads(deps: { storage: Storage }) {
  const db = deps.storage.db;
  return {
    async get(tenantId: string, intentId: string): Promise<IntentView | undefined> {
      const record = await intentRepository.get(db, tenantId, intentId);
      if (!record) return undefined;
      const entries = await db
        .selectFrom('audit_entries')
        .select(['idx', 'event_type', 'entry_hash'])
        .where('tenant_id', '=', tenantId)
        .where('intent_id', '=', intentId)
        .orderBy('idx')
        .execute();
      return {
        ...toView(record),
        auditEntries: entries.map((e) => ({
          index: e.idx,
          eventType: e.event_type,
          entryHash: e.entry_hash,
        })),
      };
    },

    async list(tenantId: string, query: IntentQuery): Promise<{ intents: IntentView[]; hasMore: boolean }> {
      const records = await intentRepository.list(db, tenantId, query);
      return { intents: records.slice(0, query.limit).map(toView), hasMore: records.length > query.limit };
    },
  };
}

export type IntentReads = ReturnType<typeof createIntentReads>;
