import type { EgressClient } from '../../egress/egress-client.js';

/** What an adapter may use: the one outbound client, the time it has, and how it names itself. */
export interface AdapterIo {
  egress: EgressClient;
  /** `performance.now()` milliseconds after which no new request starts. */
  deadline: number;
  /** The connector timeout the deadline was set from (`CONNECTOR_TIMEOUT_MS`), for messages. */
  timeoutMs: number;
  userAgent: string;
}

/** The verified call an adapter performs: the token and the fields its claims vouch for. */
export interface AdapterCall {
  token: string;
  intentId: string;
  proposedAction: string;
  targetSystem: string;
  args: unknown;
}

/**
 * The outcome of a health probe: `answered` when the peer sent any HTTP answer, `ok` when that
 * answer says the connector can work.
 */
export interface ProbeOutcome {
  answered: boolean;
  ok: boolean;
  error?: string;
}
