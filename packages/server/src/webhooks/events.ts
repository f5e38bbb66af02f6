/** Event kinds a webhook endpoint can subscribe to (intent document, "Events"). */
export const WEBHOOK_EVENTS = [
  'decision.completed',
  'decision.escalated',
  'decision.approved',
  'decision.denied',
  'chain.break',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** `["*"]` subscribes an endpoint to every event kind, including kinds added later. */
export const ALL_EVENTS = '*';

/** A decision transition (contract §4.6: one event per transition). */
export interface DecisionEvent {
  event: 'decision.completed' | 'decision.escalated' | 'decision.approved' | 'decision.denied';
  intentId: string;
  decision: 'APPROVED' | 'ESCALATED' | 'DENIED';
  riskScore: number;
  /** Human denials and expiries carry a reason (contract §7). */
  reason?: string;
  /** When the transition happened, epoch milliseconds (the `now` of the transaction). */
  occurredAt: number;
}

/** A chain integrity break found by verification, reported once per (tenant, brokenAt). */
export interface ChainBreakEvent {
  event: 'chain.break';
  brokenAt: number;
  reason: string;
  occurredAt: number;
}

export type WebhookEvent = DecisionEvent | ChainBreakEvent;

/**
 * What is stored in the outbox: every payload field except `sentAt` and `signature`, which each
 * attempt adds. Field order here is the order of the delivered JSON.
 */
export interface StoredPayload {
  eventId: string;
  event: WebhookEventType;
  tenantId: string;
  intentId: string | null;
  decision: string | null;
  riskScore: number | null;
  brokenAt?: number;
  reason?: string;
  timestamp: string;
}

/** The JSON body of one attempt (contract §7). */
export interface WebhookPayload extends StoredPayload {
  sentAt: string;
  signature: string;
}

/** The stored part of an event's payload. Pure. */
export function storedPayload(eventId: string, tenantId: string, event: WebhookEvent): StoredPayload {
  const timestamp = new Date(event.occurredAt).toISOString();
  if (event.event === 'chain.break') {
    return {
      eventId,
      event: event.event,
      tenantId,
      intentId: null,
      decision: null,
      riskScore: null,
      brokenAt: event.brokenAt,
      reason: event.reason,
      timestamp,
    };
  }
  return {
    eventId,
    event: event.event,
    tenantId,
    intentId: event.intentId,
    decision: event.decision,
    riskScore: event.riskScore,
    ...(event.reason === undefined ? {} : { reason: event.reason }),
    timestamp,
  };
}

/** Whether an endpoint's subscription list covers an event kind. Pure. */
export function subscribes(events: readonly string[], event: WebhookEventType): boolean {
  return events.includes(ALL_EVENTS) || events.includes(event);
}
