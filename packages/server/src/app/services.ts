import { createAuditService } from '../audit/audit-service.js';
import { createCheckpointer } from '../audit/checkpointer.js';
import type { Config } from '../config/config.js';
import { createConnectorService } from '../connectors/connector-service.js';
import { createHealthChecker } from '../connectors/health-checker.js';
import { createSecretBox } from '../crypto/secret-box.js';
import { createEgressClient, type Resolver } from '../egress/egress-client.js';
import type { Clock } from '../foundation/clock.js';
import { createIdempotency } from '../idempotency/idempotency.js';
import { intentRepository } from '../intent/repositories/intent-repository.js';
import { createApprovals } from '../intent/use-cases/approvals.js';
import { createBudgetStore } from '../intent/use-cases/budget-store.js';
import { createDecisionLoop } from '../intent/use-cases/decision-loop.js';
import { createIntentEvidence } from '../intent/use-cases/intent-evidence.js';
import { createIntentReads } from '../intent/use-cases/intent-reads.js';
import { createPermissionEvaluation } from '../intent/use-cases/permission-evaluation.js';
import { createPolicyReviews } from '../intent/use-cases/policy-reviews.js';
import { createPolicySimulation } from '../intent/use-cases/policy-simulation.js';
import { createPolicyStore } from '../intent/use-cases/policy-store.js';
import { createThresholdsStore } from '../intent/use-cases/thresholds-store.js';
import { createPhysicalIssuance } from '../physical/use-cases/physical-issuance.js';
import { createPhysicalPolicyStore } from '../physical/use-cases/physical-policy-store.js';
import { createPhysicalServices } from '../physical/use-cases/physical-services.js';
import { createPortalService } from '../portal/portal-service.js';
import type { Storage } from '../storage/database.js';
import { createAuthenticator } from '../tenancy/authenticator.js';
import { createKeyService } from '../tenancy/key-service.js';
import { createTenantAccess } from '../tenancy/tenant-access.js';
import { createTenantControls } from '../tenancy/tenant-controls.js';
import { createTenantService } from '../tenancy/tenant-service.js';
import { createSigningKeyService } from '../tokens/signing-keys.js';
import { createTenantSecrets } from '../tokens/tenant-secrets.js';
import { createTokenConsumption } from '../tokens/token-consumption.js';
import { checkpointSourceOf } from '../transparency/checkpoint-source.js';
import { createTransparencyService } from '../transparency/transparency-service.js';
import { createWitnessPusher } from '../transparency/witness-push.js';
import { createWitnessSettings } from '../transparency/witness-settings.js';
import { createDeliveryWorker } from '../webhooks/delivery-worker.js';
import { createWebhookEndpoints } from '../webhooks/endpoint-service.js';

export interface ServiceDeps {
  config: Config;
  storage: Storage;
  clock: Clock;
  /** 32 bytes; encrypts private keys and secrets at rest. */
  masterKey: Buffer;
  /** DNS resolver of the egress guard; tests inject one. */
  resolver?: Resolver | undefined;
  onBackgroundError: (error: unknown) => void;
}

/** The composition root: every use case wired to storage, clock and configuration. */
export function createServices(deps: ServiceDeps) {
  const { config, storage, clock } = deps;
  const secretBox = createSecretBox(deps.masterKey);
  const egress = createEgressClient(config.egress, deps.resolver);
  const authenticator = createAuthenticator(storage, clock, deps.onBackgroundError);
  const tenantAccess = createTenantAccess({ storage, clock });
  const tenants = createTenantService(storage, clock, (tenantId) => tenantAccess.forget(tenantId));
  const signingKeys = createSigningKeyService({
    storage,
    clock,
    secretBox,
    egress,
    externalSignerTimeoutMs: config.externalSignerTimeoutMs,
  });
  const publicKeys = (tenantId: string) => (kid: string) => signingKeys.publicKey(tenantId, kid);
  const secrets = createTenantSecrets({ storage, clock, secretBox });
  const audit = createAuditService({ storage, clock, publicKeys });
  const transparency = createTransparencyService({
    storage,
    clock,
    secretBox,
    originPrefix: config.logOriginPrefix,
  });
  const thresholds = createThresholdsStore({ storage, clock });
  const controls = createTenantControls({
    storage,
    clock,
    floorAgreementVersion: config.floorAgreementVersion,
  });
  const policies = createPolicyStore({ storage, clock });
  const idempotency = createIdempotency({ storage, clock, waitMs: config.idempotencyWaitMs });
  const tokenConsumption = createTokenConsumption({
    storage,
    clock,
    keys: signingKeys,
    killSwitchOn: async (tenantId) => (await tenants.get(tenantId))?.killSwitch.enabled === true,
    intentCorrelationId: async (trx, tenantId, intentId) =>
      (await intentRepository.get(trx, tenantId, intentId))?.correlationId,
  });
  const connectors = createConnectorService({
    storage,
    clock,
    secretBox,
    egress,
    tokens: tokenConsumption,
    timeoutMs: config.connectorTimeoutMs,
    recordExecution: intentRepository.recordExecution,
    onError: deps.onBackgroundError,
  });
  const physical = createPhysicalServices({ storage, clock, secretBox, idempotency, config });
  const physicalPolicies = createPhysicalPolicyStore({ storage, clock });
  return {
    authenticator,
    tenantAccess,
    portal: createPortalService({ storage, clock, secretBox, tenantAccess }),
    tenants,
    thresholds,
    budgets: createBudgetStore({ storage, clock }),
    controls,
    policies,
    idempotency,
    physical,
    physicalPolicies,
    physicalIssuance: createPhysicalIssuance({
      storage,
      clock,
      ...physical,
      policies: physicalPolicies,
      issuer: config.publicBaseUrl,
    }),
    decisionLoop: createDecisionLoop({
      storage,
      clock,
      tenants,
      controls,
      policies,
      signingKeys,
      idempotency,
      connectors,
      approvalUrl: config.approvalUrl,
    }),
    intentReads: createIntentReads({ storage, clock }),
    policySimulation: createPolicySimulation({ storage, clock, policies }),
    policyReviews: createPolicyReviews({ storage, clock, policies }),
    approvals: createApprovals({
      storage,
      clock,
      tenants,
      thresholds,
      signingKeys,
      connectors,
      idempotency,
      approvalUrl: config.approvalUrl,
    }),
    permissionEvaluation: createPermissionEvaluation({
      storage,
      clock,
      tenants,
      controls,
      policies,
      secrets,
    }),
    apiKeys: createKeyService(storage, clock, (hash) => authenticator.forget(hash)),
    signingKeys,
    secrets,
    audit,
    intentEvidence: createIntentEvidence({ storage, clock, audit, signingKeys, secrets, transparency }),
    checkpointer: createCheckpointer({
      storage,
      clock,
      intervalMs: config.checkpointIntervalMs,
      signer: (tenantId) => signingKeys.signer(tenantId),
      signNote: (tenantId) => transparency.checkpoint(tenantId),
    }),
    transparency,
    webhooks: createWebhookEndpoints({ storage, clock, secretBox, egress }),
    witnessSettings: createWitnessSettings({ storage, clock, egress }),
    witnessPusher: createWitnessPusher({
      storage,
      clock,
      egress,
      source: checkpointSourceOf(transparency),
      retryScheduleMs: config.webhookRetryScheduleMs,
      timeoutMs: config.webhookTimeoutMs,
      onError: deps.onBackgroundError,
    }),
    webhookWorker: createDeliveryWorker({
      storage,
      clock,
      secretBox,
      egress,
      retryScheduleMs: config.webhookRetryScheduleMs,
      timeoutMs: config.webhookTimeoutMs,
      onError: deps.onBackgroundError,
    }),
    tokenConsumption,
    connectors,
    connectorHealth: createHealthChecker({
      storage,
      clock,
      intervalMs: config.connectorHealthIntervalMs,
      check: (connector) => connectors.checkHealth(connector),
      onError: deps.onBackgroundError,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
