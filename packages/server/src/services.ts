import { createAuditService } from './audit/audit-service.js';
import { createCheckpointer } from './audit/checkpoints.js';
import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import { createSecretBox } from './crypto/secret-box.js';
import { createEgressClient, type Resolver } from './egress/egress-client.js';
import { createAuthorityEvaluate } from './intent/authority-evaluate.js';
import { createDecisionLoop } from './intent/decision-loop.js';
import { createIdempotency } from './intent/idempotency.js';
import { createIntentEvidence } from './intent/intent-evidence.js';
import { createIntentReads } from './intent/intent-reads.js';
import { createPolicyStore } from './intent/policy-store.js';
import { createThresholdsStore } from './intent/thresholds-store.js';
import type { Storage } from './storage/database.js';
import { createAuthenticator } from './tenancy/authenticator.js';
import { createKeyService } from './tenancy/key-service.js';
import { createTenantControls } from './tenancy/tenant-controls.js';
import { createTenantService } from './tenancy/tenant-service.js';
import { createSigningKeyService } from './tokens/signing-keys.js';
import { createTenantSecrets } from './tokens/tenant-secrets.js';
import { createTokenConsumption } from './tokens/token-consumption.js';

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
  const tenants = createTenantService(storage, clock);
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
  const thresholds = createThresholdsStore({ storage, clock });
  const controls = createTenantControls({
    storage,
    clock,
    floorAgreementVersion: config.floorAgreementVersion,
  });
  const policies = createPolicyStore({ storage, clock });
  const idempotency = createIdempotency({ storage, clock, waitMs: config.idempotencyWaitMs });
  return {
    authenticator,
    tenants,
    thresholds,
    controls,
    policies,
    idempotency,
    decisionLoop: createDecisionLoop({
      storage,
      clock,
      tenants,
      controls,
      policies,
      signingKeys,
      idempotency,
    }),
    intentReads: createIntentReads({ storage }),
    authorityEvaluate: createAuthorityEvaluate({
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
    intentEvidence: createIntentEvidence({ storage, clock, audit, signingKeys, secrets }),
    checkpointer: createCheckpointer({
      storage,
      clock,
      intervalMs: config.checkpointIntervalMs,
      signer: (tenantId) => signingKeys.signer(tenantId),
    }),
    tokenConsumption: createTokenConsumption({
      storage,
      clock,
      keys: signingKeys,
      killSwitchOn: async (tenantId) => (await tenants.get(tenantId))?.killSwitch.enabled === true,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
