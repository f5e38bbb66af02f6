/**
 * The physical audit records (02-physical-api.md "Audit entry", contract §9): one row per physical
 * decision (ALLOW, ESCALATE, DENY), written with its chain entry in the decision's transaction, and
 * the verification reports edge verifiers send back about issued tokens.
 *
 * - `tokenJti` is set on ALLOW only; `GET /audit/{jti}` finds issued tokens. Every decision also
 *   has a `decisionId` (UUIDv7), the keyset of the list (newest first).
 * - Chain events: `physical.token.issued` (ALLOW), `physical.escalated`, `physical.denied`; each
 *   names the actor (`physical:<actorKind>`) and the issuance's correlation id. A verification
 *   report appends `physical.verification` under the reporting principal with the same
 *   correlation id.
 * - `verifications` lists the reports of a token oldest first (at most `MAX_VERIFICATIONS_SHOWN`,
 *   the most recent ones; the chain keeps every one).
 */
import { BatchVerificationReport, type VerificationReport } from '@authority-runtime/sdk/wire';
import { Compile } from 'typebox/compile';
import { v7 as uuidv7 } from 'uuid';
import { type AppendResult, chainRepository } from '../../chain/chain-repository.js';
import { AppError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import type { PhysicalDecisionsTable, PhysicalVerificationsTable } from '../../storage/physical-schema.js';
import type {
  ActorKind,
  PhysicalOutcome,
  PhysicalState,
  PhysicalTokenRequest,
  SafeDefault,
  StructuredGoal,
} from '../domain/index.js';
import { physicalEvent } from '../domain/physical-events.js';
import type { Verification } from '../domain/verification-report.js';
import { decisionRepository, type IssuedToken } from '../repositories/decision-repository.js';
import { revocationRepository } from '../repositories/revocation-repository.js';
import { snapshotRepository } from '../repositories/snapshot-repository.js';
import { verificationRepository } from '../repositories/verification-repository.js';

const batchReport = Compile(BatchVerificationReport);

export const MAX_VERIFICATIONS_SHOWN = 1000;
export interface PhysicalAuditEntry {
  decisionId: string;
  tokenJti: string | null;
  tenantId: string;
  issuedAtMs: number;
  expiresAtMs: number | null;
  actorIdentity: string;
  oiCode: string;
  decision: PhysicalOutcome;
  structuredGoal: StructuredGoal;
  dagNode: PhysicalTokenRequest['dagNode'];
  physicalStateRef: string | null;
  physicalState: PhysicalState | null;
  safetyBit: boolean;
  safetyCitations: string[];
  verifications: Verification[];
  correlationId: string;
  safeDefault: SafeDefault;
  clauseId: string | null;
  clauseIds: string[];
  escalationTicketId: string | null;
  operatorTicketId: string | null;
  revocation: { revokedAtMs: number; reason: string } | null;
}

/** What the decision endpoint records for every decision. */
export interface PhysicalDecisionRecord {
  tenantId: string;
  decision: PhysicalOutcome;
  /** The token id on ALLOW; null on ESCALATE and DENY. */
  tokenJti: string | null;
  /** The issuance request's UUIDv7 (a re-issue with an operator ticket reuses the ticket's). */
  correlationId: string;
  issuedAtMs: number;
  /** Token expiry on ALLOW, ticket expiry on ESCALATE, null on DENY. */
  expiresAtMs: number | null;
  actorIdentity: string;
  actorKind: ActorKind;
  oiCode: string;
  structuredGoal: StructuredGoal;
  dagNode: PhysicalTokenRequest['dagNode'];
  /** From `snapshots.record` in the same transaction, or null when no state was submitted. */
  physicalStateRef: string | null;
  safetyBit: boolean;
  safetyCitations: readonly string[];
  safeDefault: SafeDefault;
  clauseId: string | null;
  clauseIds: readonly string[];
  escalationTicketId: string | null;
  operatorTicketId: string | null;
  /** The decision's reasons; written to the chain entry only. */
  reasons?: readonly string[];
}

export interface AuditListQuery {
  limit: number;
  before?: string | undefined;
  oiCode?: string | undefined;
  actorIdentity?: string | undefined;
}

export interface ReportOutcome {
  accepted: number;
  rejected: { index: number; code: 'validation_error' | 'not_found' }[];
}

export interface PhysicalAudit {
  /** Writes the decision row and its chain entry inside the caller's write transaction. */
  record(trx: Executor, record: PhysicalDecisionRecord): Promise<{ decisionId: string; audit: AppendResult }>;
  /** The entry of an issued token of the tenant. */
  get(tenantId: string, tokenJti: string): Promise<PhysicalAuditEntry | undefined>;
  /** Every decision, newest first; `before` is the decisionId of the previous page's last entry. */
  list(tenantId: string, query: AuditListQuery): Promise<{ entries: PhysicalAuditEntry[]; hasMore: boolean }>;
  /** One report about the tenant's token `tokenJti`; 404 `not_found` when it is not one. */
  reportOne(
    tenantId: string,
    principal: Principal,
    tokenJti: string,
    report: VerificationReport,
  ): Promise<Verification>;
  /** Reports about several tokens; each invalid or unknown report is refused by index, the rest recorded. */
  reportMany(tenantId: string, principal: Principal, reports: readonly unknown[]): Promise<ReportOutcome>;
}

const EVENT_TYPES: Record<PhysicalOutcome, string> = {
  ALLOW: 'physical.token.issued',
  ESCALATE: 'physical.escalated',
  DENY: 'physical.denied',
};

function toVerification(row: PhysicalVerificationsTable): Verification {
  const verification: Verification = {
    atMs: row.at_ms,
    edgeNodeId: row.edge_node_id,
    result: row.result as Verification['result'],
  };
  if (row.reason !== null) verification.reason = row.reason;
  return verification;
}

export function createPhysicalAudit(deps: { storage: Storage; clock: Clock }): PhysicalAudit {
  const { storage, clock } = deps;
  const db = storage.db;

  /** Entries for decision rows: state, verifications and revocation joined in three queries. */
  async function entries(
    tenantId: string,
    rows: readonly PhysicalDecisionsTable[],
  ): Promise<PhysicalAuditEntry[]> {
    const refs = rows.flatMap((row) => (row.physical_state_ref === null ? [] : [row.physical_state_ref]));
    const jtis = rows.flatMap((row) => (row.token_jti === null ? [] : [row.token_jti]));
    const states = await snapshotRepository.states(db, tenantId, refs);
    const verifications = new Map<string, Verification[]>();
    for (const row of await verificationRepository.recentOfTokens(
      db,
      tenantId,
      jtis,
      MAX_VERIFICATIONS_SHOWN,
    )) {
      const list = verifications.get(row.token_jti) ?? [];
      list.push(toVerification(row));
      verifications.set(row.token_jti, list);
    }
    const revocations = await revocationRepository.ofTokens(db, tenantId, jtis);
    return rows.map((row) => ({
      decisionId: row.id,
      tokenJti: row.token_jti,
      tenantId: row.tenant_id,
      issuedAtMs: row.issued_at,
      expiresAtMs: row.expires_at,
      actorIdentity: row.actor_identity,
      oiCode: row.oi_code,
      decision: row.decision as PhysicalOutcome,
      structuredGoal: JSON.parse(row.structured_goal) as StructuredGoal,
      dagNode: JSON.parse(row.dag_node) as PhysicalTokenRequest['dagNode'],
      physicalStateRef: row.physical_state_ref,
      physicalState: row.physical_state_ref === null ? null : (states.get(row.physical_state_ref) ?? null),
      safetyBit: row.safety_bit === 1,
      safetyCitations: JSON.parse(row.safety_citations) as string[],
      verifications: row.token_jti === null ? [] : (verifications.get(row.token_jti) ?? []),
      correlationId: row.correlation_id,
      safeDefault: row.safe_default as SafeDefault,
      clauseId: row.clause_id,
      clauseIds: JSON.parse(row.clause_ids) as string[],
      escalationTicketId: row.escalation_ticket_id,
      operatorTicketId: row.operator_ticket_id,
      revocation: row.token_jti === null ? null : (revocations.get(row.token_jti) ?? null),
    }));
  }

  /** Issued tokens of the tenant among `jtis`, with their correlation ids and actors. */
  const issued = (tenantId: string, jtis: readonly string[]) =>
    decisionRepository.issuedTokens(db, tenantId, jtis);

  /** Stores reports of known tokens with their chain entries, in one transaction. */
  async function store(
    tenantId: string,
    principal: Principal,
    reports: readonly { jti: string; token: IssuedToken; report: VerificationReport }[],
  ): Promise<void> {
    if (reports.length === 0) return;
    await storage.writeTransaction(async (trx) => {
      const now = clock();
      await verificationRepository.insert(
        trx,
        reports.map(({ jti, report }) => ({
          tenant_id: tenantId,
          id: uuidv7(),
          token_jti: jti,
          edge_node_id: report.edgeNodeId,
          result: report.result,
          reason: report.reason ?? null,
          at_ms: report.atMs,
          reported_at: now,
          reported_by: principal.id,
        })),
      );
      await chainRepository.append(
        trx,
        tenantId,
        reports.map(({ jti, token, report }) =>
          physicalEvent(token, 'physical.verification', {
            tokenJti: jti,
            edgeNodeId: report.edgeNodeId,
            result: report.result,
            reason: report.reason ?? null,
            atMs: report.atMs,
            reportedBy: principal.id,
          }),
        ),
        now,
      );
    });
  }

  return {
    async record(trx, record) {
      if ((record.decision === 'ALLOW') !== (record.tokenJti !== null)) {
        throw new Error('a physical decision has a tokenJti exactly when it is an ALLOW');
      }
      const decisionId = uuidv7();
      await decisionRepository.insert(trx, {
        tenant_id: record.tenantId,
        id: decisionId,
        token_jti: record.tokenJti,
        decision: record.decision,
        correlation_id: record.correlationId,
        issued_at: record.issuedAtMs,
        expires_at: record.expiresAtMs,
        actor_identity: record.actorIdentity,
        actor_kind: record.actorKind,
        oi_code: record.oiCode,
        structured_goal: JSON.stringify(record.structuredGoal),
        dag_node: JSON.stringify(record.dagNode),
        physical_state_ref: record.physicalStateRef,
        safety_bit: record.safetyBit ? 1 : 0,
        safety_citations: JSON.stringify(record.safetyCitations),
        safe_default: record.safeDefault,
        clause_id: record.clauseId,
        clause_ids: JSON.stringify(record.clauseIds),
        escalation_ticket_id: record.escalationTicketId,
        operator_ticket_id: record.operatorTicketId,
      });
      const audit = await chainRepository.append(
        trx,
        record.tenantId,
        [
          physicalEvent(
            {
              actorIdentity: record.actorIdentity,
              actorKind: record.actorKind,
              correlationId: record.correlationId,
            },
            EVENT_TYPES[record.decision],
            {
              decisionId,
              decision: record.decision,
              tokenJti: record.tokenJti,
              oiCode: record.oiCode,
              actorIdentity: record.actorIdentity,
              structuredGoal: record.structuredGoal,
              dagNode: record.dagNode,
              issuedAtMs: record.issuedAtMs,
              expiresAtMs: record.expiresAtMs,
              physicalStateRef: record.physicalStateRef,
              safetyBit: record.safetyBit,
              safetyCitations: record.safetyCitations,
              safeDefault: record.safeDefault,
              clauseId: record.clauseId,
              clauseIds: record.clauseIds,
              escalationTicketId: record.escalationTicketId,
              operatorTicketId: record.operatorTicketId,
              reasons: record.reasons ?? [],
            },
          ),
        ],
        clock(),
      );
      return { decisionId, audit };
    },

    async get(tenantId, tokenJti) {
      const row = await decisionRepository.findByJti(db, tenantId, tokenJti);
      return row ? (await entries(tenantId, [row]))[0] : undefined;
    },

    async list(tenantId, query) {
      const rows = await decisionRepository.list(db, tenantId, { ...query, limit: query.limit + 1 });
      return {
        entries: await entries(tenantId, rows.slice(0, query.limit)),
        hasMore: rows.length > query.limit,
      };
    },

    async reportOne(tenantId, principal, tokenJti, report) {
      const token = (await issued(tenantId, [tokenJti])).get(tokenJti);
      if (token === undefined) throw new AppError('NOT_FOUND', 'No token with this jti was issued');
      await store(tenantId, principal, [{ jti: tokenJti, token, report }]);
      const verification: Verification = {
        atMs: report.atMs,
        edgeNodeId: report.edgeNodeId,
        result: report.result,
      };
      if (report.reason !== undefined) verification.reason = report.reason;
      return verification;
    },

    async reportMany(tenantId, principal, reports) {
      const rejected: ReportOutcome['rejected'] = [];
      const valid: { index: number; report: BatchVerificationReport }[] = [];
      reports.forEach((report, index) => {
        if (batchReport.Check(report)) valid.push({ index, report });
        else rejected.push({ index, code: 'validation_error' });
      });
      const known = await issued(
        tenantId,
        valid.map(({ report }) => report.jti),
      );
      const accepted: { jti: string; token: IssuedToken; report: VerificationReport }[] = [];
      for (const { index, report } of valid) {
        const token = known.get(report.jti);
        if (token === undefined) rejected.push({ index, code: 'not_found' });
        else {
          const { jti, ...rest } = report;
          accepted.push({ jti, token, report: rest });
        }
      }
      await store(tenantId, principal, accepted);
      return { accepted: accepted.length, rejected: rejected.sort((a, b) => a.index - b.index) };
    },
  };
}
