import type { MatchedRule } from '@authority-runtime/sdk/wire';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The tool results of refused calls (contract §11): `isError: true`, one text block the model reads,
 * and the same facts as data under `_meta["authority-runtime/decision"]`, repeated as
 * `structuredContent: {authority: …}` when the tool declares no `outputSchema` (a client checks
 * `structuredContent` against a declared schema, which a refusal would not satisfy).
 */

export const DECISION_META_KEY = 'authority-runtime/decision';

/**
 * The machine-readable refusal. `decision` is the service's word (`ESCALATED`, `DENIED`) or the
 * escalation's end (`DENIED_AFTER_REVIEW`, `EXPIRED`), or `UNAVAILABLE` when no decision could be
 * had; `decidingRule` is the service's `{id, effect, priority}`; `code` says why the gateway itself
 * refused or what failed.
 */
export interface DecisionMeta {
  decision: 'ESCALATED' | 'DENIED' | 'DENIED_AFTER_REVIEW' | 'EXPIRED' | 'UNAVAILABLE';
  intentId?: string;
  escalationId?: string;
  decidingRule?: MatchedRule;
  code?: string;
}

/** A refused call: what the agent receives, before `structuredContent` is decided per tool. */
export interface Refusal {
  text: string;
  meta: DecisionMeta;
}

export function escalated(intentId: string, escalationId: string, decidingRule?: MatchedRule): Refusal {
  return {
    text: `ESCALATED: approval required (escalation ${escalationId}, intent ${intentId})`,
    meta: { decision: 'ESCALATED', intentId, escalationId, ...(decidingRule ? { decidingRule } : {}) },
  };
}

export function denied(intentId: string, decidingRule: MatchedRule, rationale: readonly string[]): Refusal {
  return {
    text: `DENIED by ${decidingRule.id}: ${rationale[0] ?? 'no rationale given'}`,
    meta: { decision: 'DENIED', intentId, decidingRule },
  };
}

/** Refused by the gateway itself, before anything is sent to the service. */
export function deniedByGateway(reason: string, code: string): Refusal {
  return { text: `DENIED by gateway: ${reason}`, meta: { decision: 'DENIED', code } };
}

export function deniedAfterReview(intentId: string, escalationId: string): Refusal {
  return {
    text: `DENIED by review: escalation ${escalationId} (intent ${intentId}) was denied`,
    meta: { decision: 'DENIED_AFTER_REVIEW', intentId, escalationId },
  };
}

export function expired(intentId: string, escalationId: string): Refusal {
  return {
    text: `EXPIRED: escalation ${escalationId} (intent ${intentId}) expired without a decision`,
    meta: { decision: 'EXPIRED', intentId, escalationId },
  };
}

export function unavailable(code: string, intentId?: string): Refusal {
  return {
    text: `authority unavailable: ${code}`,
    meta: { decision: 'UNAVAILABLE', code, ...(intentId ? { intentId } : {}) },
  };
}

/** The tool result of a refusal; `structuredContent` only for a tool without `outputSchema`. */
export function refusalResult(refusal: Refusal, toolHasOutputSchema: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: refusal.text }],
    isError: true,
    _meta: { [DECISION_META_KEY]: refusal.meta },
    ...(toolHasOutputSchema ? {} : { structuredContent: { authority: refusal.meta } }),
  };
}
