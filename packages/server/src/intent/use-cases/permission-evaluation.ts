import { v7 as uuidv7 } from 'uuid';
import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { loopFailed } from '../../errors/fail-closed.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import { EVALUATION_BUDGET_STEPS } from '../../policy/evaluation-budget.js';
import { packIdOfRule } from '../../policy/packs.js';
import { SEVERITY } from '../../policy/rule.js';
import type { Storage } from '../../storage/database.js';
import type { TenantControls } from '../../tenancy/tenant-controls.js';
import type { TenantService } from '../../tenancy/tenant-service.js';
import type { TenantSecrets } from '../../tokens/tenant-secrets.js';
import { evaluateIntent, type IntentEvaluation } from '../domain/evaluate-intent.js';
import type { IntentRequest } from '../domain/intent-request.js';
import {
  type PermissionToken,
  type PermissionVerification,
  permissionDecision,
  signPermissionToken,
  verifyPermissionToken,
} from '../domain/permission-token.js';
import { loadGateContext } from './gate-context.js';
import type { PolicyStore } from './policy-store.js';

export type EvaluateRequest = Omit<IntentRequest, 'tenantId'> & { oiCode?: string | undefined };

export interface EvaluateResponse {
  evaluationId: string;
  decision: IntentEvaluation['effect'];
  riskScore: number;
  matchedRules: IntentEvaluation['matchedRules'];
  decidingRule: IntentEvaluation['decidingRule'];
  rationale: string[];
  gateTrace: string[];
  explanation: NonNullable<IntentEvaluation['explanation']>;
  evaluatedAt: string;
  permissionToken: PermissionToken;
}

/**
 * `POST /authority/evaluate` (contract §4.9): the same gates as `POST /intent` in the four-valued
 * vocabulary, always with the explanation; a supplied `oiCode` is a second pass that can only raise
 * severity. Records `authority.evaluated`; never mints a decision token nor executes anything.
 */
export function createPermissionEvaluation(deps: {
  storage: Storage;
  clock: Clock;
  tenants: TenantService;
  controls: TenantControls;
  policies: PolicyStore;
  secrets: TenantSecrets;
}) {
  const { storage, clock } = deps;

  return {
    async evaluate(principal: Principal, request: EvaluateRequest): Promise<EvaluateResponse> {
      const tenantId = principal.tenantId;
      const now = clock();
      const [context, secret] = await Promise.all([
        loadGateContext(deps, tenantId, request.actor.id, now),
        deps.secrets.active(tenantId, 'permission'),
      ]);
      let evaluation: IntentEvaluation;
      try {
        const input = { ...context, request: { ...request, tenantId }, explain: true };
        evaluation = evaluateIntent(input);
        if (request.oiCode !== undefined) {
          // One budget for both passes: the second gets what the first left.
          const second = evaluateIntent({
            ...input,
            oiCodeOverride: request.oiCode,
            budgetSteps: EVALUATION_BUDGET_STEPS - evaluation.evaluationSteps,
          });
          if (SEVERITY[second.effect] > SEVERITY[evaluation.effect]) evaluation = second;
        }
      } catch (error) {
        throw loopFailed(error);
      }
      const evaluationId = uuidv7();
      const permissionToken = signPermissionToken(
        {
          tokenId: uuidv7(),
          tenantId,
          intentId: evaluationId,
          policyPack: packIdOfRule(evaluation.decidingRule.id) ?? 'custom',
          ruleId: evaluation.decidingRule.id,
          decision: permissionDecision(evaluation.effect),
          riskScore: evaluation.riskScore,
        },
        secret,
        now,
      );
      await storage.writeTransaction((trx) =>
        chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'authority.evaluated', {
              evaluationId,
              targetSystem: request.targetSystem,
              actorId: request.actor.id,
              decision: evaluation.effect,
              riskScore: evaluation.riskScore,
              decidingRule: evaluation.decidingRule,
              oiCode: evaluation.interpretation.primary.oiCode,
              permissionTokenId: permissionToken.tokenId,
            }),
          ],
          now,
        ),
      );
      return {
        evaluationId,
        decision: evaluation.effect,
        riskScore: evaluation.riskScore,
        matchedRules: evaluation.matchedRules,
        decidingRule: evaluation.decidingRule,
        rationale: evaluation.rationale,
        gateTrace: evaluation.gateTrace,
        explanation: evaluation.explanation ?? [],
        evaluatedAt: new Date(now).toISOString(),
        permissionToken,
      };
    },

    async verifyPermissionToken(principal: Principal, token: unknown): Promise<PermissionVerification> {
      const secretId =
        typeof token === 'object' && token !== null ? (token as { secretId?: unknown }).secretId : undefined;
      const secret =
        typeof secretId === 'string' ? await deps.secrets.byId(principal.tenantId, secretId) : undefined;
      return verifyPermissionToken(
        token,
        principal.tenantId,
        (id) => (id === secret?.id ? secret.secret : undefined),
        clock(),
      );
    },
  };
}

export type PermissionEvaluation = ReturnType<typeof createPermissionEvaluation>;
