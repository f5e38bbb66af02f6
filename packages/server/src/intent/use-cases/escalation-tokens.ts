import { chainRepository } from '../../chain/chain-repository.js';
import type { ConnectorService } from '../../connectors/connector-service.js';
import { AppError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import { type ClaimedKey, type Idempotency, requestHash } from '../../idempotency/idempotency.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import { authorityWithdrawn } from '../../tenancy/tenant-controls.js';
import { mintDecisionToken } from '../../tokens/decision-token.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import { intentStatus } from '../domain/escalation-views.js';
import { tokenIssuedEvent } from '../domain/intent-events.js';
import type { IntentRecord } from '../domain/intent-record.js';
import { intentRepository } from '../repositories/intent-repository.js';
import type { IntentResponse } from './decision-loop.js';
import { executeApproved, executionPending, initialExecution, planExecution } from './execution-plan.js';
import type { ThresholdsStore } from './thresholds-store.js';

/** The answer of `POST /intent/:id/token`: the intent response shape with the token. */
export type IntentTokenResponse = IntentResponse & { authorityDecisionToken: string };

/** Idempotency scope of `POST /intent/:id/token` (`POST /intent` uses scope `intent`). */
export const TOKEN_IDEMPOTENCY_SCOPE = 'intent-token';

/** 409 for a token the kill switch or the actor's block withholds. */
const withheld = (reason: 'kill_switch' | 'actor_blocked', actorId: string, status: string) =>
  new AppError(
    'CONFLICT',
    reason === 'kill_switch' ? 'The tenant kill switch is on' : `The actor ${actorId} is blocked`,
    { status, reason },
  );

/**
 * The one token an approved escalation earns (contract §4.8), minted for the principal that
 * submitted the intent and executed through its connector when one serves the target.
 */
export function createEscalationTokens(deps: {
  storage: Storage;
  clock: Clock;
  thresholds: ThresholdsStore;
  signingKeys: SigningKeyService;
  connectors: ConnectorService;
  idempotency: Idempotency;
}) {
  const { storage, clock } = deps;

  /**
   * Mints the one token of an approved escalation: signed before the transaction, attached to the
   * intent with its `token.issued` entry (and the answer under the idempotency key) in one commit,
   * then executed through the target's connector when it has autoExecute.
   */
  async function mintToken(
    record: IntentRecord,
    idempotencyKey: ClaimedKey | undefined,
  ): Promise<IntentTokenResponse> {
    const { tenantId, id: intentId } = record;
    const now = clock();
    const status = intentStatus(record, now);
    if (status !== 'APPROVED_AFTER_REVIEW') {
      throw new AppError('CONFLICT', 'Only an approved escalation earns a token', { status });
    }
    if (record.token !== null) {
      throw new AppError('CONFLICT', 'The token of this intent was already issued', {
        status,
        reason: 'token_already_issued',
      });
    }
    const refused = await authorityWithdrawn(storage.db, tenantId, [record.actorId]);
    if (refused) throw withheld(refused, record.actorId, status);
    const thresholds = await deps.thresholds.read(tenantId);
    const request = record.request as { proposedAction: string; args?: unknown };
    const plan = await planExecution(deps.connectors, tenantId, record.targetSystem);
    const minted = await mintDecisionToken(
      await deps.signingKeys.signer(tenantId),
      {
        intentId,
        tenantId,
        ...plan.binding,
        targetSystem: record.targetSystem,
        proposedAction: request.proposedAction,
        ttlSeconds: thresholds.tokenTtlSeconds,
      },
      now,
    );
    const execution = initialExecution(plan);
    const response = await storage.writeTransaction(async (trx) => {
      const claimed = await intentRepository.attachToken(
        trx,
        tenantId,
        intentId,
        minted.token,
        execution,
        now,
      );
      if (!claimed) {
        throw new AppError('CONFLICT', 'The token of this intent was already issued', {
          status,
          reason: 'token_already_issued',
        });
      }
      const appended = await chainRepository.append(
        trx,
        tenantId,
        [
          tokenIssuedEvent(
            {
              correlationId: record.correlationId,
              intentId,
              actorId: record.actorId,
              actorType: (record.request as { actor: { type: string } }).actor.type,
            },
            record.targetSystem,
            minted,
          ),
        ],
        now,
      );
      // The switch or the block read above may have changed since: read again where they must wait.
      const withdrawn = await authorityWithdrawn(trx, tenantId, [record.actorId]);
      if (withdrawn) throw withheld(withdrawn, record.actorId, status);
      const committed: IntentTokenResponse = {
        intentId,
        correlationId: record.correlationId,
        authorityDecision: { ...record.authorityDecision, decision: 'APPROVED' },
        audit: { entriesWritten: appended.entries.length, latestHash: appended.latestHash },
        execution,
        authorityDecisionToken: minted.token,
      };
      if (idempotencyKey !== undefined) {
        const stored = { statusCode: 200, body: committed };
        await deps.idempotency.complete(trx, tenantId, TOKEN_IDEMPOTENCY_SCOPE, idempotencyKey, stored);
      }
      return committed;
    });
    if (!plan.executes) return response;
    const executed = await executeApproved(
      deps.connectors,
      plan,
      tenantId,
      { proposedAction: request.proposedAction, targetSystem: record.targetSystem, args: request.args },
      response,
    );
    if (idempotencyKey !== undefined) {
      // A replay answers what the caller saw, the outcome of the execution included.
      const stored = { statusCode: 200, body: executed };
      await deps.idempotency.complete(storage.db, tenantId, TOKEN_IDEMPOTENCY_SCOPE, idempotencyKey, stored);
    }
    return executed;
  }

  return {
    /**
     * `POST /intent/:id/token`: the one token of an approved escalation, for the principal that
     * submitted the intent (anyone else: 404, before the key is looked at). A second call, a
     * pending or refused escalation and an engaged kill switch answer 409, except that a call with
     * the `Idempotency-Key` of the call that minted replays its stored 200 (contract §13.1), so a
     * caller that lost the reply still gets its token. A refusal releases the key.
     */
    async issueToken(
      principal: Principal,
      intentId: string,
      idempotencyKey?: string,
    ): Promise<IntentTokenResponse> {
      const tenantId = principal.tenantId;
      const record = await intentRepository.get(storage.db, tenantId, intentId);
      if (!record || record.principalId !== principal.id) throw new AppError('NOT_FOUND', 'No such intent');
      if (idempotencyKey === undefined) return mintToken(record, undefined);
      const hash = requestHash({ intentId });
      const claim = await deps.idempotency.claim(
        tenantId,
        TOKEN_IDEMPOTENCY_SCOPE,
        idempotencyKey,
        hash,
        executionPending,
      );
      if (claim.kind === 'replay') return claim.body as IntentTokenResponse;
      try {
        return await mintToken(record, claim.claimed);
      } catch (error) {
        await deps.idempotency.release(tenantId, TOKEN_IDEMPOTENCY_SCOPE, claim.claimed).catch(() => {});
        throw error;
      }
    },
  };
}

export type EscalationTokens = ReturnType<typeof createEscalationTokens>;
