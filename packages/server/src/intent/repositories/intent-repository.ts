import type { ExpressionBuilder } from 'kysely';
import { compiledQuery } from '../../storage/compiled-query.js';
import type { Executor } from '../../storage/database.js';
import { forUpdate } from '../../storage/row-lock.js';
import type { Database, IntentsTable } from '../../storage/schema.js';
import type { ApprovalState, IntentDecision, IntentRecord, IntentStatus } from '../domain/intent-record.js';

function toRecord(row: IntentsTable): IntentRecord {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    correlationId: row.correlation_id,
    principalId: row.principal_id,
    actorId: row.actor_id,
    targetSystem: row.target_system,
    status: row.status as IntentStatus,
    decision: row.decision as IntentDecision,
    reviewState: row.review_state as 'PENDING' | 'DECIDED',
    request: JSON.parse(row.request),
    authorityDecision: JSON.parse(row.authority_decision) as Record<string, unknown>,
    hypotheses: JSON.parse(row.hypotheses),
    execution: JSON.parse(row.execution) as Record<string, unknown>,
    token: row.token,
    escalationId: row.escalation_id,
    approval: row.approval === null ? null : (JSON.parse(row.approval) as ApprovalState),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface IntentQuery {
  status?: string | undefined;
  actorId?: string | undefined;
  targetSystem?: string | undefined;
  /** Continue below this id (UUIDv7 ids sort by time). */
  before?: string | undefined;
  limit: number;
}

/** A pending escalation past its deadline: it reads as EXPIRED before the sweep writes it down. */
function lapsedAt(eb: ExpressionBuilder<Database, 'intents'>, now: number) {
  return eb.and([eb('review_state', '=', 'PENDING'), eb('approval_expires_at', '<=', now)]);
}

/** Which recorded intents a policy simulation replays (contract §16). */
export interface SampleQuery {
  limit: number;
  /** Continue below this id (a page of a larger sample). */
  before?: string | undefined;
  fromMs?: number | undefined;
  toMs?: number | undefined;
  actorId?: string | undefined;
  targetSystem?: string | undefined;
}

/** A recorded intent as a simulation reads it: the stored request and the decision it got. */
export interface StoredSample {
  id: string;
  createdAtMs: number;
  decision: IntentDecision;
  request: unknown;
  authorityDecision: Record<string, unknown>;
}

/** The insert of a batch of intents, compiled once per batch size. */
const insertIntents = compiledQuery(
  (db: Executor, rows: IntentsTable[]) => db.insertInto('intents').values(rows),
  (rows) => rows.length,
);

export const intentRepository = {
  /** Inserts intents in one statement (a batch of the decision loop's group commit). */
  async insert(trx: Executor, intents: readonly IntentRecord[]): Promise<void> {
    if (intents.length === 0) return;
    await insertIntents(
      trx,
      intents.map((intent) => ({
        tenant_id: intent.tenantId,
        id: intent.id,
        correlation_id: intent.correlationId,
        principal_id: intent.principalId,
        actor_id: intent.actorId,
        target_system: intent.targetSystem,
        status: intent.status,
        decision: intent.decision,
        review_state: intent.reviewState,
        request: JSON.stringify(intent.request),
        authority_decision: JSON.stringify(intent.authorityDecision),
        hypotheses: JSON.stringify(intent.hypotheses),
        execution: JSON.stringify(intent.execution),
        token: intent.token,
        escalation_id: intent.escalationId,
        approval: intent.approval === null ? null : JSON.stringify(intent.approval),
        approval_queue: intent.approval?.queue ?? null,
        approval_expires_at: intent.approval ? Date.parse(intent.approval.expiresAt) : null,
        created_at: intent.createdAt,
        updated_at: intent.updatedAt,
      })),
    );
  },

  async get(
    db: Executor,
    tenantId: string,
    id: string,
    /** Lock the row for the rest of the transaction (reviews of one escalation queue up). */
    options: { forUpdate?: boolean } = {},
  ): Promise<IntentRecord | undefined> {
    const query = db.selectFrom('intents').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
    const row = await (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  },

  /** The intent of an escalation (index `intents_escalation_idx`). */
  async getByEscalation(
    db: Executor,
    tenantId: string,
    escalationId: string,
  ): Promise<IntentRecord | undefined> {
    const row = await db
      .selectFrom('intents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('escalation_id', '=', escalationId)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  },

  /** Records the outcome of a human review (or of expiry) on an escalated intent. */
  async review(
    trx: Executor,
    tenantId: string,
    id: string,
    change: { status: IntentStatus; approval: ApprovalState; updatedAt: number },
  ): Promise<void> {
    await trx
      .updateTable('intents')
      .set({
        status: change.status,
        review_state: change.approval.status === 'pending' ? 'PENDING' : 'DECIDED',
        approval: JSON.stringify(change.approval),
        updated_at: change.updatedAt,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  /** Stores the token of an approved escalation unless one is already there; false if it was. */
  async attachToken(
    trx: Executor,
    tenantId: string,
    id: string,
    token: string,
    execution: Record<string, unknown>,
    updatedAt: number,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('intents')
      .set({ token, execution: JSON.stringify(execution), updated_at: updatedAt })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('token', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /** Stores the outcome of the connector that executed the intent. */
  async recordExecution(
    trx: Executor,
    tenantId: string,
    id: string,
    execution: Record<string, unknown>,
    updatedAt: number,
  ): Promise<void> {
    await trx
      .updateTable('intents')
      .set({ execution: JSON.stringify(execution), updated_at: updatedAt })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  },

  /** Escalations of a tenant, newest first, filtered by status at `now` and queue, at most `limit`. */
  async listEscalations(
    db: Executor,
    tenantId: string,
    query: {
      status?: ApprovalState['status'] | undefined;
      queue?: ApprovalState['queue'] | undefined;
      before?: string | undefined;
      limit: number;
      now: number;
    },
  ): Promise<IntentRecord[]> {
    let select = db
      .selectFrom('intents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('escalation_id', 'is not', null);
    const { status, now } = query;
    if (status === 'pending') {
      select = select.where('review_state', '=', 'PENDING').where('approval_expires_at', '>', now);
    } else if (status === 'expired') {
      select = select.where((eb) => eb.or([eb('status', '=', 'EXPIRED'), lapsedAt(eb, now)]));
    } else if (status !== undefined) {
      select = select.where(
        'status',
        '=',
        status === 'approved' ? 'APPROVED_AFTER_REVIEW' : 'DENIED_AFTER_REVIEW',
      );
    }
    if (query.queue !== undefined) select = select.where('approval_queue', '=', query.queue);
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.map(toRecord);
  },

  /** Pending escalations of every tenant whose deadline has passed, oldest deadline first. */
  async lapsedEscalations(
    db: Executor,
    now: number,
    limit: number,
  ): Promise<Array<{ tenantId: string; id: string }>> {
    const rows = await db
      .selectFrom('intents')
      .select(['tenant_id', 'id'])
      .where('review_state', '=', 'PENDING')
      .where('approval_expires_at', '<=', now)
      .orderBy('approval_expires_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ tenantId: row.tenant_id, id: row.id }));
  },

  /** Escalations awaiting review at `now` over every tenant, by queue (a gauge, never by tenant). */
  async countPendingReviews(db: Executor, now: number): Promise<Record<string, number>> {
    const rows = await db
      .selectFrom('intents')
      .select(['approval_queue', (eb) => eb.fn.countAll<number | string>().as('count')])
      .where('review_state', '=', 'PENDING')
      .where('approval_expires_at', '>', now)
      .groupBy('approval_queue')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.approval_queue ?? 'standard', Number(row.count)]));
  },

  /** Intents of a tenant, newest first, filtered by status at `now`, actor and target, at most `limit`. */
  async list(db: Executor, tenantId: string, query: IntentQuery & { now: number }): Promise<IntentRecord[]> {
    let select = db.selectFrom('intents').selectAll().where('tenant_id', '=', tenantId);
    const { status, now } = query;
    if (status === 'EXPIRED') {
      select = select.where((eb) => eb.or([eb('status', '=', 'EXPIRED'), lapsedAt(eb, now)]));
    } else if (status === 'ESCALATED') {
      select = select.where('status', '=', 'ESCALATED').where((eb) => eb.not(lapsedAt(eb, now)));
    } else if (status !== undefined) {
      select = select.where('status', '=', status);
    }
    if (query.actorId !== undefined) select = select.where('actor_id', '=', query.actorId);
    if (query.targetSystem !== undefined) select = select.where('target_system', '=', query.targetSystem);
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.map(toRecord);
  },

  /** The most recent intents matching the query (newest first), with their requests and decisions. */
  async sample(db: Executor, tenantId: string, query: SampleQuery): Promise<StoredSample[]> {
    let select = db
      .selectFrom('intents')
      .select(['id', 'created_at', 'decision', 'request', 'authority_decision'])
      .where('tenant_id', '=', tenantId);
    if (query.fromMs !== undefined) select = select.where('created_at', '>=', query.fromMs);
    if (query.toMs !== undefined) select = select.where('created_at', '<', query.toMs);
    if (query.actorId !== undefined) select = select.where('actor_id', '=', query.actorId);
    if (query.targetSystem !== undefined) select = select.where('target_system', '=', query.targetSystem);
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.map((row) => ({
      id: row.id,
      createdAtMs: row.created_at,
      decision: row.decision as IntentDecision,
      request: JSON.parse(row.request),
      authorityDecision: JSON.parse(row.authority_decision) as Record<string, unknown>,
    }));
  },
};
