import { chainRepository } from '../../chain/chain-repository.js';
import type { Clock } from '../../foundation/clock.js';
import type { Storage } from '../../storage/database.js';
import { escalationStatus, intentStatus } from '../domain/escalation-views.js';
import type { IntentRecord } from '../domain/intent-record.js';
import { type IntentQuery, intentRepository } from '../repositories/intent-repository.js';

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
      const auditEntries = await chainRepository.entryRefsOfIntent(db, tenantId, intentId);
      return {
        ...toView(record, deps.clock()),
        auditEntries,
      };
    },

    async list(tenantId: string, query: IntentQuery): Promise<{ intents: IntentView[]; hasMore: boolean }> {
      const now = deps.clock();
      // One row more than the page tells whether another page follows.
      const records = await intentRepository.list(db, tenantId, { ...query, limit: query.limit + 1, now });
      return {
        intents: records.slice(0, query.limit).map((record) => toView(record, now)),
        hasMore: records.length > query.limit,
      };
    },
  };
}

export type IntentReads = ReturnType<typeof createIntentReads>;
