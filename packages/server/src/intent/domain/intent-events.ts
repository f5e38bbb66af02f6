import type { AuditEvent } from '../../chain/audit-entry.js';
import type { MintedToken } from '../../tokens/decision-token.js';

/** The fields every audit entry of an intent shares: its correlation id, its id and its actor. */
export type IntentEventBase = Pick<AuditEvent, 'correlationId' | 'intentId' | 'actorId' | 'actorType'>;

/** `token.issued`: which key signed, for which adapter, with which nonce, until when. */
export function tokenIssuedEvent(
  base: IntentEventBase,
  targetSystem: string,
  minted: MintedToken,
): AuditEvent {
  return {
    ...base,
    eventType: 'token.issued',
    payload: {
      targetSystem,
      kid: minted.kid,
      adapterId: minted.claims.adapterId,
      nonce: minted.claims.nonce,
      expiresAt: minted.claims.expiresAt,
    },
  };
}
