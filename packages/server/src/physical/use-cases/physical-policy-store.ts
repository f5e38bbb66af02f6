/**
 * Tenant physical policies (02-physical-api.md "Policy", contract §9): uploads versioned per tenant
 * (1, 2, …), at most one active, and the default policy (version 0) until an upload is activated.
 *
 * - An upload is validated and compiled by the domain (`compilePhysicalPolicy`): a bad document is
 *   400 `validation_error` whose issues name the clause path (`/policy/clauses/3/safeDefault`).
 *   The stored document is the validated one: known fields only.
 * - `activate` (default false) makes the new version the active one; the previously active
 *   version becomes inactive in the same transaction. Uploads of one tenant are serialized (the
 *   tenant row locked on PostgreSQL, `BEGIN IMMEDIATE` on SQLite), so version numbers follow the
 *   commit order; the primary key and a partial unique index (one active version per tenant) back
 *   this up.
 * - Uploads and activations are recorded in the tenant's chain (`physical.policy.saved`,
 *   `physical.policy.activated`) with the SHA-256 of the document's canonical JSON, so the chain
 *   pins the exact clauses that decided.
 * - A version never changes once written, so its compiled form is cached per (tenant, version).
 */
import { LRUCache } from 'lru-cache';
import { v7 as uuidv7 } from 'uuid';
import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { canonicalJson, sha256Hex } from '../../crypto/canonical-json.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import { tenantRepository } from '../../tenancy/tenant-repository.js';
import {
  type CompiledPhysicalPolicy,
  compilePhysicalPolicy,
  compileValidatedPolicy,
  DEFAULT_POLICY_VERSION,
  defaultCompiledPolicy,
  type PhysicalPolicyDocument,
} from '../domain/index.js';
import { physicalPolicyRepository } from '../repositories/physical-policy-repository.js';

export interface PhysicalPolicyUpload {
  /** The document `{clauses: [...], description?}`; validated here. */
  policy: unknown;
  /** Default false. */
  activate?: boolean | undefined;
}

/** The answer of `POST /physical/policy`. */
export interface UploadedPhysicalPolicy {
  id: string;
  version: number;
  active: boolean;
}

/** The answer of `GET /physical/policy`. */
export interface ActivePhysicalPolicyView {
  active: PhysicalPolicyDocument;
  version: number;
  /** When the version was activated (ms); null for the default policy. */
  activatedAt: number | null;
}

export interface ActivePhysicalPolicy {
  version: number;
  compiled: CompiledPhysicalPolicy;
}

export interface PhysicalPolicyStore {
  /** The active uploaded version of the tenant, or null when the default applies. */
  activeVersion(tenantId: string): Promise<number | null>;
  /** The compiled policy of a version read with the rest of a decision's context (null: the default). */
  compiledAt(tenantId: string, version: number | null): Promise<ActivePhysicalPolicy>;
  activeView(tenantId: string): Promise<ActivePhysicalPolicyView>;
  upload(
    tenantId: string,
    principal: Principal,
    upload: PhysicalPolicyUpload,
  ): Promise<UploadedPhysicalPolicy>;
}

export function createPhysicalPolicyStore(deps: { storage: Storage; clock: Clock }): PhysicalPolicyStore {
  const { storage, clock } = deps;
  const db = storage.db;
  const compiled = new LRUCache<string, CompiledPhysicalPolicy>({ max: 2_000 });

  async function compiledAt(tenantId: string, version: number | null): Promise<ActivePhysicalPolicy> {
    if (version === null) return { version: DEFAULT_POLICY_VERSION, compiled: defaultCompiledPolicy() };
    const key = `${tenantId}:${version}`;
    const cached = compiled.get(key);
    if (cached) return { version, compiled: cached };
    const document = await physicalPolicyRepository.document(db, tenantId, version);
    if (!document) throw new Error(`physical policy version ${version} of ${tenantId} is missing`);
    // Stored documents passed validation at upload.
    const policy = compileValidatedPolicy(document);
    compiled.set(key, policy);
    return { version, compiled: policy };
  }

  async function write(
    tenantId: string,
    principal: Principal,
    policy: CompiledPhysicalPolicy,
    activate: boolean,
  ): Promise<UploadedPhysicalPolicy> {
    const documentSha256 = sha256Hex(canonicalJson(policy.document));
    const id = uuidv7();
    return storage.writeTransaction(async (trx) => {
      await tenantRepository.lock(trx, tenantId);
      const now = clock();
      const version = (await physicalPolicyRepository.latestVersion(trx, tenantId)) + 1;
      const previous = activate ? await physicalPolicyRepository.active(trx, tenantId) : undefined;
      if (previous) await physicalPolicyRepository.deactivate(trx, tenantId, previous.version);
      await physicalPolicyRepository.insert(trx, {
        tenantId,
        version,
        id,
        document: policy.document,
        active: activate,
        createdAtMs: now,
        createdBy: principal.id,
      });
      const summary = { id, version, clauseCount: policy.document.clauses.length, documentSha256 };
      const saved = principalEvent(principal, 'physical.policy.saved', { ...summary, activate });
      const events = [saved];
      if (activate) {
        events.push({
          ...principalEvent(principal, 'physical.policy.activated', {
            ...summary,
            previousVersion: previous?.version ?? DEFAULT_POLICY_VERSION,
          }),
          correlationId: saved.correlationId,
        });
      }
      await chainRepository.append(trx, tenantId, events, now);
      return { id, version, active: activate };
    });
  }

  return {
    async activeVersion(tenantId) {
      return (await physicalPolicyRepository.active(db, tenantId))?.version ?? null;
    },

    compiledAt,

    async activeView(tenantId) {
      const active = await physicalPolicyRepository.active(db, tenantId);
      const { version, compiled: policy } = await compiledAt(tenantId, active?.version ?? null);
      return { active: policy.document, version, activatedAt: active?.activatedAtMs ?? null };
    },

    async upload(tenantId, principal, upload) {
      return write(tenantId, principal, compilePhysicalPolicy(upload.policy), upload.activate === true);
    },
  };
}
