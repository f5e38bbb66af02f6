import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chainBreakRepository } from '../../../src/audit/chain-break-repository.js';
import { checkpointRepository } from '../../../src/audit/checkpoint-repository.js';
import { chainRepository } from '../../../src/chain/chain-repository.js';
import { subtreeHashRepository } from '../../../src/chain/subtree-hash-repository.js';
import { connectorRepository } from '../../../src/connectors/connector-repository.js';
import { idempotencyRepository } from '../../../src/idempotency/idempotency-repository.js';
import { approvalRepository } from '../../../src/intent/repositories/approval-repository.js';
import { gateContextRepository } from '../../../src/intent/repositories/gate-context-repository.js';
import { intentRepository } from '../../../src/intent/repositories/intent-repository.js';
import { policyRepository } from '../../../src/intent/repositories/policy-repository.js';
import { actorRepository } from '../../../src/physical/repositories/actor-repository.js';
import { decisionRepository } from '../../../src/physical/repositories/decision-repository.js';
import { issuanceContextRepository } from '../../../src/physical/repositories/issuance-context-repository.js';
import { physicalKeyRepository } from '../../../src/physical/repositories/physical-key-repository.js';
import { physicalPolicyRepository } from '../../../src/physical/repositories/physical-policy-repository.js';
import { revocationRepository } from '../../../src/physical/repositories/revocation-repository.js';
import { snapshotRepository } from '../../../src/physical/repositories/snapshot-repository.js';
import { ticketRepository } from '../../../src/physical/repositories/ticket-repository.js';
import { verificationRepository } from '../../../src/physical/repositories/verification-repository.js';
import { portalSessionRepository } from '../../../src/portal/portal-session-repository.js';
import { portalUserRepository } from '../../../src/portal/portal-user-repository.js';
import type { SqlDialect, Storage } from '../../../src/storage/database.js';
import { apiKeyRepository } from '../../../src/tenancy/api-key-repository.js';
import { authorityActorRepository } from '../../../src/tenancy/authority-actor-repository.js';
import { tenantRepository } from '../../../src/tenancy/tenant-repository.js';
import { tenantSettingsRepository } from '../../../src/tenancy/tenant-settings-repository.js';
import { signingKeyRepository } from '../../../src/tokens/signing-key-repository.js';
import { tenantSecretRepository } from '../../../src/tokens/tenant-secret-repository.js';
import { tokenNonceRepository } from '../../../src/tokens/token-nonce-repository.js';
import { witnessRepository } from '../../../src/transparency/witness-repository.js';
import { deliveryRepository } from '../../../src/webhooks/delivery-repository.js';
import { endpointRepository } from '../../../src/webhooks/endpoint-repository.js';
import type { manualClock } from '../../helpers/app.js';

/** Every repository of the service, by its exported name; the suite calls them through `repos`. */
const REPOSITORIES = {
  apiKeyRepository,
  approvalRepository,
  authorityActorRepository,
  chainBreakRepository,
  chainRepository,
  checkpointRepository,
  connectorRepository,
  gateContextRepository,
  decisionRepository,
  deliveryRepository,
  endpointRepository,
  idempotencyRepository,
  intentRepository,
  issuanceContextRepository,
  physicalKeyRepository,
  physicalPolicyRepository,
  policyRepository,
  portalSessionRepository,
  portalUserRepository,
  revocationRepository,
  signingKeyRepository,
  snapshotRepository,
  subtreeHashRepository,
  actorRepository,
  tenantRepository,
  tenantSecretRepository,
  tenantSettingsRepository,
  ticketRepository,
  tokenNonceRepository,
  verificationRepository,
  witnessRepository,
};

export type Repositories = typeof REPOSITORIES;

/** What every section of the suite works with: one engine's database and the tracked repositories. */
export interface Conformance {
  engine: SqlDialect;
  storage: Storage;
  clock: ReturnType<typeof manualClock>;
  repos: Repositories;
}

/** `repository.method` of every call the suite made, per engine. */
export type CallLog = Set<string>;

/** The repositories, each wrapped so that every method call is written to the log. */
export function trackedRepositories(log: CallLog): Repositories {
  const tracked: Record<string, unknown> = {};
  for (const [name, repository] of Object.entries(REPOSITORIES)) {
    tracked[name] = new Proxy(repository, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          log.add(`${name}.${property}`);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
  return tracked as Repositories;
}

const SOURCE = path.resolve(import.meta.dirname, '../../../src');

function repositoryFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return repositoryFiles(file);
    return name.endsWith('-repository.ts') ? [file] : [];
  });
}

/**
 * Every method of every repository in the source tree, found by reading the tree (each
 * `*-repository.ts` and its exported `…Repository` objects), not from the list above: a new
 * repository or method is in this set the moment it is written.
 */
export async function repositoryMethods(): Promise<{ methods: Set<string>; unlisted: string[] }> {
  const methods = new Set<string>();
  const unlisted: string[] = [];
  for (const file of repositoryFiles(SOURCE)) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (!name.endsWith('Repository') || typeof value !== 'object' || value === null) continue;
      if (!(name in REPOSITORIES)) unlisted.push(`${name} (${path.relative(SOURCE, file)})`);
      for (const [method, fn] of Object.entries(value)) {
        if (typeof fn === 'function') methods.add(`${name}.${method}`);
      }
    }
  }
  return { methods, unlisted };
}
