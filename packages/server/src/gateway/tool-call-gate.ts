import { setTimeout as sleep } from 'node:timers/promises';
import { AuthorityApiError, type AuthorityClient, newIdempotencyKey } from '@authority-runtime/sdk';
import type { Actor, IntentStatus } from '@authority-runtime/sdk/wire';
import type { RememberedEscalation } from './escalation-memory.js';
import { EscalationMemory } from './escalation-memory.js';
import type { GatewayConfig } from './gateway-config.js';
import {
  denied,
  deniedAfterReview,
  deniedByGateway,
  escalated,
  expired,
  type Refusal,
  unavailable,
} from './refusals.js';
import { argumentsTooLarge, sameCallKey, type ToolArguments, toolCallIntent } from './tool-call-intent.js';

/** What the gate decided for one call: forward it to the upstream, or refuse it. */
export type GateOutcome =
  | { kind: 'forward'; intentId: string; decision: 'APPROVED' | 'APPROVED_AFTER_REVIEW' }
  | { kind: 'refuse'; refusal: Refusal };

/** The call being decided, and what the gate may use of its request. */
export interface GateCall {
  name: string;
  arguments: ToolArguments | undefined;
  actor: Actor;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /** Called while the call waits for a human (`--wait-approval`), about every `progressIntervalMs`. */
  onWaiting?: (message: string) => void;
}

export interface ToolCallGateOptions {
  client: AuthorityClient;
  config: GatewayConfig;
  waitApproval: boolean;
  /** Bound of every call to the service, its retries included. */
  decisionTimeoutMs: number;
  pollIntervalMs?: number;
  progressIntervalMs?: number;
  memory?: EscalationMemory;
}

/** The progress of a call decided after an identical one (same actor, tool and arguments). */
const QUEUED_MESSAGE = 'waiting for an identical call ahead of this one to be decided';

/** Waiting goes on this long past an escalation's expiry before the gate stops asking. */
const EXPIRY_GRACE_MS = 60_000;

function refuse(refusal: Refusal): GateOutcome {
  return { kind: 'refuse', refusal };
}

/**
 * The decision loop of contract §11 for one `tools/call`, fail-closed: only a consumed, valid token
 * of an APPROVED decision (or of an approved escalation) yields `forward`; everything else, errors
 * included, is a refusal. It talks to the service only through the {@link AuthorityClient}.
 */
export class ToolCallGate {
  readonly #client: AuthorityClient;
  readonly #config: GatewayConfig;
  readonly #wait: boolean;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #progressMs: number;
  readonly #memory: EscalationMemory;
  /** Calls with the same key are decided one after the other, so a repeat sees the first's escalation. */
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(options: ToolCallGateOptions) {
    this.#client = options.client;
    this.#config = options.config;
    this.#wait = options.waitApproval;
    this.#timeoutMs = options.decisionTimeoutMs;
    this.#pollMs = options.pollIntervalMs ?? 1_000;
    this.#progressMs = options.progressIntervalMs ?? 5_000;
    this.#memory = options.memory ?? new EscalationMemory();
  }

  async decide(call: GateCall): Promise<GateOutcome> {
    if (argumentsTooLarge(call.name, call.arguments)) {
      return refuse(deniedByGateway('arguments too large', 'ARGUMENTS_TOO_LARGE'));
    }
    const key = sameCallKey(call.actor, call.name, call.arguments);
    const previous = this.#inFlight.get(key);
    // Queued behind an identical call that may wait for a human: the client hears from it too.
    const ticker = previous === undefined ? undefined : this.#tick(call, QUEUED_MESSAGE);
    const current = (previous ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        clearInterval(ticker);
        return this.#decide(key, call);
      });
    this.#inFlight.set(key, current);
    try {
      return await current;
    } finally {
      clearInterval(ticker);
      if (this.#inFlight.get(key) === current) this.#inFlight.delete(key);
    }
  }

  /** `--wait-approval` progress: `message` at once and every progress interval, until cleared. */
  #tick(call: GateCall, message: string): NodeJS.Timeout | undefined {
    if (!this.#wait || call.onWaiting === undefined) return undefined;
    call.onWaiting(message);
    return setInterval(() => call.onWaiting?.(message), this.#progressMs);
  }

  async #decide(key: string, call: GateCall): Promise<GateOutcome> {
    let intentId: string | undefined;
    try {
      const remembered = this.#memory.get(key);
      if (remembered) {
        intentId = remembered.intentId;
        const view = await this.#client.getIntent(remembered.intentId, { signal: this.#deadline(call) });
        return await this.#follow(key, remembered, view.status, call, {
          expiresAt: view.approval?.expiresAt,
        });
      }
      const settings = this.#config.toolSettings(call.name);
      const submitted = await this.#client.submitIntent(toolCallIntent(call, call.actor, settings), {
        idempotencyKey: newIdempotencyKey(),
        signal: this.#deadline(call),
      });
      intentId = submitted.intentId;
      const decision = submitted.response.authorityDecision;
      switch (submitted.outcome) {
        case 'APPROVED':
          return await this.#consume(submitted.token, submitted.intentId, 'APPROVED', call);
        case 'DENIED':
          return refuse(denied(submitted.intentId, decision.decidingRule, decision.rationale));
        case 'ESCALATED': {
          const escalation: RememberedEscalation = {
            intentId: submitted.intentId,
            escalationId: submitted.escalationId,
            decidingRule: decision.decidingRule,
            tokenKey: newIdempotencyKey(),
          };
          const expiresAt = submitted.response.approval?.expiresAt;
          this.#memory.remember(key, escalation, expiresAt ?? '');
          return await this.#follow(key, escalation, 'ESCALATED', call, { expiresAt });
        }
      }
    } catch (error) {
      return refuse(unavailable(error instanceof AuthorityApiError ? error.code : 'GATEWAY_ERROR', intentId));
    }
  }

  /** What a remembered (or awaited) escalation's status means for the call. */
  async #follow(
    key: string,
    escalation: RememberedEscalation,
    status: IntentStatus,
    call: GateCall,
    state: { expiresAt: string | undefined; waited?: boolean },
  ): Promise<GateOutcome> {
    const { intentId, escalationId, decidingRule } = escalation;
    switch (status) {
      case 'ESCALATED':
        // Still pending: without --wait-approval, or when the wait ran out, the same answer again.
        if (this.#wait && state.waited !== true) return this.#waitFor(key, escalation, state.expiresAt, call);
        return refuse(escalated(intentId, escalationId, decidingRule));
      case 'APPROVED_AFTER_REVIEW': {
        // The escalation's own Idempotency-Key: if this fetch fails after the service minted, a
        // later repeat gets the same token replayed instead of a 409.
        const { token } = await this.#client.fetchToken(intentId, {
          idempotencyKey: escalation.tokenKey,
          signal: this.#deadline(call),
        });
        // One approval, one token, one execution: a later repeat is a new request.
        this.#memory.forget(key);
        return this.#consume(token, intentId, 'APPROVED_AFTER_REVIEW', call);
      }
      case 'DENIED_AFTER_REVIEW':
        return refuse(deniedAfterReview(intentId, escalationId));
      case 'EXPIRED':
        this.#memory.forget(key);
        return refuse(expired(intentId, escalationId));
      default:
        // APPROVED and DENIED are first decisions; an escalated intent never has them.
        return refuse(unavailable(`UNEXPECTED_STATUS_${status}`, intentId));
    }
  }

  /** `--wait-approval`: poll until the escalation is decided or expires, or the client cancels. */
  async #waitFor(
    key: string,
    escalation: RememberedEscalation,
    expiresAt: string | undefined,
    call: GateCall,
  ): Promise<GateOutcome> {
    const message = `waiting for approval (escalation ${escalation.escalationId}, intent ${escalation.intentId})`;
    const ticker = this.#tick(call, message);
    try {
      // The service turns the escalation into EXPIRED at expiresAt; the grace covers clock skew.
      const left = expiresAt === undefined ? 0 : Date.parse(expiresAt) - Date.now();
      const deadline = Date.now() + Math.max(Number.isFinite(left) ? left : 0, 0) + EXPIRY_GRACE_MS;
      // Each poll is one bounded call (contract §11): a service that fails it, after the client's
      // retries, ends the wait as "authority unavailable", never as a longer wait.
      let status: IntentStatus = 'ESCALATED';
      for (;;) {
        ({ status } = await this.#client.getIntent(escalation.intentId, { signal: this.#deadline(call) }));
        const remaining = deadline - Date.now();
        if (status !== 'ESCALATED' || remaining <= 0) break;
        await sleep(Math.min(this.#pollMs, remaining), undefined, { signal: call.signal });
      }
      return await this.#follow(key, escalation, status, call, { expiresAt, waited: true });
    } finally {
      clearInterval(ticker);
    }
  }

  async #consume(
    token: string,
    intentId: string,
    decision: 'APPROVED' | 'APPROVED_AFTER_REVIEW',
    call: GateCall,
  ): Promise<GateOutcome> {
    const verdict = await this.#client.consumeToken(
      {
        token,
        adapterId: this.#config.adapterId,
        targetSystem: this.#config.toolSettings(call.name).targetSystem,
      },
      { signal: this.#deadline(call) },
    );
    // Only `valid: true` itself lets the call through: the answer is not re-validated on its way
    // in, and a truthy "true" or 1 must not read as a consumed token.
    if (verdict.valid !== true) {
      const reason = typeof verdict.reason === 'string' ? verdict.reason : 'INVALID_RESPONSE';
      return refuse(unavailable(reason, intentId));
    }
    // Defence in depth: the token the service consumed must be the one of this call's intent.
    if (verdict.claims.intentId !== intentId) return refuse(unavailable('TOKEN_INTENT_MISMATCH', intentId));
    return { kind: 'forward', intentId, decision };
  }

  /** The bound of one call to the service: `--decision-timeout-ms`, or the client's cancellation. */
  #deadline(call: GateCall): AbortSignal {
    return AbortSignal.any([call.signal, AbortSignal.timeout(this.#timeoutMs)]);
  }
}
