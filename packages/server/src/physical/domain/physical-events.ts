/**
 * Who an audit entry of the physical surface names (contract §6). Events about an actor are
 * physical events: `actorId` is the actor identity, `actorType` is `physical:<actorKind>` —
 * decisions and their snapshots, classifications (the goal's actor), and the acts on an actor's
 * token or ticket (revocations, ticket decisions, verification reports), which also carry their
 * issuance's correlation id so the whole story reads as one and name the credential that acted in
 * their payload. Acts about no actor (roster changes, snapshots posted on their own) are principal
 * events.
 */
import { type AuditEvent, principalEvent } from '../../chain/audit-entry.js';
import type { Principal } from '../../identity/principal.js';
import type { ActorKind } from './index.js';

export type EventSource =
  | { principal: Principal; correlationId?: string }
  | { actorIdentity: string; actorKind: ActorKind; correlationId: string };

export function physicalEvent(source: EventSource, eventType: string, payload: unknown): AuditEvent {
  if ('principal' in source) {
    const event = principalEvent(source.principal, eventType, payload);
    return source.correlationId === undefined ? event : { ...event, correlationId: source.correlationId };
  }
  return {
    correlationId: source.correlationId,
    intentId: null,
    actorId: source.actorIdentity,
    actorType: `physical:${source.actorKind}`,
    eventType,
    payload,
  };
}
