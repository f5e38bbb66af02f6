import { v7 as uuidv7 } from 'uuid';
import type { App } from '../../src/app/build-server.js';
import type { Services } from '../../src/app/services.js';
import { chainRepository } from '../../src/chain/chain-repository.js';
import type { IntentDecision } from '../../src/intent/domain/intent-record.js';
import { intentRepository } from '../../src/intent/repositories/intent-repository.js';
import type { Storage } from '../../src/storage/database.js';
import { mintDecisionToken } from '../../src/tokens/decision-token.js';

/**
 * Records an intent the way the decision loop will: the token is signed before the transaction,
 * then the intent row and its audit entries commit together.
 */
export async function recordIntent(
  storage: Storage,
  services: Services,
  now: number,
  input: {
    tenantId: string;
    decision: IntentDecision;
    pending?: boolean;
    targetSystem?: string;
    /** The submitting principal (default `test-principal`); a live token's receipt is its alone. */
    principalId?: string;
  },
): Promise<{ intentId: string; token: string | null }> {
  const intentId = uuidv7();
  const correlationId = uuidv7();
  const targetSystem = input.targetSystem ?? 'acme/payments';
  const token =
    input.decision === 'APPROVED'
      ? (
          await mintDecisionToken(
            await services.signingKeys.signer(input.tenantId),
            {
              intentId,
              tenantId: input.tenantId,
              adapterId: 'external',
              adapterTarget: targetSystem,
              targetSystem,
              proposedAction: 'merge pull request 42',
            },
            now,
          )
        ).token
      : null;
  await storage.writeTransaction(async (trx) => {
    await intentRepository.insert(trx, [
      {
        tenantId: input.tenantId,
        id: intentId,
        correlationId,
        principalId: input.principalId ?? 'test-principal',
        actorId: 'agent-7',
        targetSystem,
        status: input.decision,
        decision: input.decision,
        reviewState: input.pending ? 'PENDING' : 'DECIDED',
        request: {
          tenantId: input.tenantId,
          actor: { id: 'agent-7', type: 'agent' },
          targetSystem,
          proposedAction: 'merge pull request 42',
          riskContext: { baseRiskScore: 10 },
        },
        authorityDecision: {
          decision: input.decision,
          riskScore: 10,
          policyCompliant: input.decision === 'APPROVED',
          rationale: [],
          gateTrace: [],
          matchedRules: [],
          decidingRule: {
            id: 'recorded',
            effect: input.decision === 'DENIED' ? 'DENY' : 'ALLOW',
            priority: 100,
          },
          intent: { oiCode: 'OI-100', operationType: 'write', confidence: 1 },
        },
        hypotheses: [],
        execution: { attempted: false, status: 'skipped' },
        token,
        escalationId: null,
        approval: null,
        createdAt: now,
        updatedAt: now,
      },
    ]);
    const base = { correlationId, intentId, actorId: 'agent-7', actorType: 'service' };
    await chainRepository.append(
      trx,
      input.tenantId,
      [
        {
          ...base,
          eventType: 'intent.received',
          payload: { targetSystem, proposedAction: 'merge pull request 42' },
        },
        {
          ...base,
          eventType: 'intent.decided',
          payload: { targetSystem, decision: input.decision, riskScore: 30 },
        },
        ...(token
          ? [{ ...base, eventType: 'token.issued', payload: { targetSystem, adapterId: 'external' } }]
          : []),
      ],
      now,
    );
  });
  return { intentId, token };
}

/** An IntentRequest body of `agent-7` against `acme/payments` at base risk 10, with overrides. */
export function intentPayload(action: string, extra: Record<string, unknown> = {}, tenantId = 'acme') {
  return {
    tenantId,
    actor: { id: 'agent-7', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction: action,
    riskContext: { baseRiskScore: 10 },
    ...extra,
  };
}

/** Saves `rules` as a new version of the tenant's intent policy and activates it (`POST /authority/policy`). */
export function activatePolicy(app: App, headers: Record<string, string>, rules: readonly object[]) {
  return app.inject({
    method: 'POST',
    url: '/authority/policy',
    headers,
    payload: { activate: true, rules },
  });
}
