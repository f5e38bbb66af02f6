import type { AuditEntry } from '../chain/audit-entry.js';
import { clipText } from '../foundation/text.js';

/** One line of the timeline (contract §6). */
export interface TimelineEvent {
  index: number;
  eventType: string;
  actorId: string;
  targetSystem: string | null;
  intentId: string | null;
  correlationId: string | null;
  summary: string;
  createdAt: string;
  entryHash: string;
}

function field(payload: unknown, name: string): unknown {
  return typeof payload === 'object' && payload !== null
    ? (payload as Record<string, unknown>)[name]
    : undefined;
}

/** A short human line for an entry, from its event type and the payload fields that matter. Pure. */
export function summarize(entry: AuditEntry): string {
  const p = entry.payload;
  const parts: string[] = [];
  const decision = field(p, 'decision');
  if (typeof decision === 'string') parts.push(decision);
  const risk = field(p, 'riskScore');
  if (typeof risk === 'number') parts.push(`risk ${risk}`);
  const action = field(p, 'proposedAction');
  if (typeof action === 'string') parts.push(action.length > 80 ? `${clipText(action, 77)}...` : action);
  // A switch's new state (the kill switch, the catastrophic floor), so the summary alone says it.
  const enabled = field(p, 'enabled');
  if (typeof enabled === 'boolean') parts.push(enabled ? 'enabled' : 'disabled');
  const kid = field(p, 'kid');
  if (typeof kid === 'string') parts.push(`kid ${kid}`);
  const reason = field(p, 'reason');
  if (typeof reason === 'string') parts.push(reason);
  return parts.length > 0 ? `${entry.eventType}: ${parts.join(', ')}` : entry.eventType;
}

export function toTimelineEvent(entry: AuditEntry, targetSystem: string | null): TimelineEvent {
  return {
    index: entry.index,
    eventType: entry.eventType,
    actorId: entry.actorId,
    targetSystem,
    intentId: entry.intentId,
    correlationId: entry.correlationId,
    summary: summarize(entry),
    createdAt: entry.createdAt,
    entryHash: entry.entryHash,
  };
}
