/**
 * Who an audit entry of the physical surface names (contract §6). Decisions and their snapshots are
 * physical events: `actorId` is the actor identity, `actorType` is `physical:<actorKind>`, and the
 * correlation id is the issuance request's. Acts of a credential (revocations, ticket decisions,
 * verification reports, roster changes, snapshots posted on their own) are principal events; when
 * they concern an issuance, they carry its correlation id so the whole story reads as one.
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
