import { LRUCache } from 'lru-cache';
import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { isUniqueViolation } from '../../errors/database-errors.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import { type CompiledPolicy, compilePolicy } from '../../policy/compile-policy.js';
import {
  getPack,
  type PolicyPack,
  packIdOfRule,
  packRules,
  STARTER_PACK_ID,
  starterRules,
} from '../../policy/packs.js';
import { MAX_RULES, type Rule } from '../../policy/rule.js';
import { validatePolicy } from '../../policy/validate-policy.js';
import type { Executor, Storage } from '../../storage/database.js';
import { tenantSettingsRepository } from '../../tenancy/tenant-settings-repository.js';
import { policyRepository, type StoredPolicyVersion } from '../repositories/policy-repository.js';

export interface PolicyVersion {
  tenantId: string;
  version: number;
  rules: Rule[];
  packs: string[];
  active: boolean;
  createdAt: string;
  createdBy: string;
  activatedAt: string | null;
}

export interface ActivePolicy {
  version: number;
  packs: string[];
  compiled: CompiledPolicy;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * Versioned tenant policies (contract §4.5): exactly one active version, the starter pack on first
 * use, pack installation, and the compiled form cached per (tenant, version) so rules compile once.
 */
export function createPolicyStore(deps: { storage: Storage; clock: Clock }) {
  const { storage, clock } = deps;
  const db = storage.db;
  /** Versions never change once written, so their compiled form is cached by (tenant, version). */
  const compiled = new LRUCache<string, ActivePolicy>({ max: 2_000 });

  /** Makes `version` the tenant's active one, in the caller's transaction. */
  async function setActive(trx: Executor, tenantId: string, version: number, now: number): Promise<void> {
    await tenantSettingsRepository.setActivePolicyVersion(trx, tenantId, version);
    await policyRepository.markActivated(trx, tenantId, version, now);
  }

  const readVersion = (tenantId: string, version: number) => policyRepository.get(db, tenantId, version);
  const activeVersionNumber = (executor: Executor, tenantId: string) =>
    tenantSettingsRepository.activePolicyVersion(executor, tenantId);

  /** Installs the starter pack as version 1 when the tenant has no policy yet. */
  async function ensureStarter(tenantId: string): Promise<void> {
    const now = clock();
    try {
      await storage.writeTransaction(async (trx) => {
        await policyRepository.insert(trx, {
          tenantId,
          version: 1,
          rules: starterRules(),
          packs: [STARTER_PACK_ID],
          createdAtMs: now,
          createdBy: 'system',
        });
        await setActive(trx, tenantId, 1, now);
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }

  async function active(tenantId: string): Promise<ActivePolicy> {
    return activeAt(tenantId, await activeVersionNumber(db, tenantId));
  }

  /** The compiled policy of a known active version (read with the tenant's other settings). */
  async function activeAt(tenantId: string, knownVersion: number | null): Promise<ActivePolicy> {
    let version = knownVersion;
    if (version === null) {
      await ensureStarter(tenantId);
      version = await activeVersionNumber(db, tenantId);
      if (version === null) throw new Error(`tenant ${tenantId} has no active policy`);
    }
    const key = `${tenantId}:${version}`;
    const cached = compiled.get(key);
    if (cached) return cached;
    const row = await readVersion(tenantId, version);
    if (!row) throw new Error(`policy version ${version} of ${tenantId} is missing`);
    const entry: ActivePolicy = { version, packs: row.packs, compiled: compilePolicy(row.rules) };
    compiled.set(key, entry);
    return entry;
  }

  function toView(stored: StoredPolicyVersion, activeVersion: number | null): PolicyVersion {
    return {
      tenantId: stored.tenantId,
      version: stored.version,
      rules: stored.rules,
      packs: stored.packs,
      active: stored.version === activeVersion,
      createdAt: new Date(stored.createdAtMs).toISOString(),
      createdBy: stored.createdBy,
      activatedAt: iso(stored.activatedAtMs),
    };
  }

  /** Writes a new version (and optionally activates it) with its audit entries, in one transaction. */
  async function writeVersion(
    tenantId: string,
    principal: Principal,
    rules: Rule[],
    packs: string[],
    activate: boolean,
    reason: Record<string, unknown>,
  ): Promise<PolicyVersion> {
    if (rules.length > MAX_RULES) {
      throw validationError([
        { path: '/rules', message: `a policy holds at most ${MAX_RULES} rules (got ${rules.length})` },
      ]);
    }
    const now = clock();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await storage.writeTransaction(async (trx) => {
          const version = (await policyRepository.latestVersion(trx, tenantId)) + 1;
          await policyRepository.insert(trx, {
            tenantId,
            version,
            rules,
            packs,
            createdAtMs: now,
            createdBy: principal.id,
          });
          const events = [
            principalEvent(principal, 'policy.saved', { version, ruleCount: rules.length, packs, ...reason }),
          ];
          if (activate) {
            await setActive(trx, tenantId, version, now);
            events.push({
              ...events[0],
              eventType: 'policy.activated',
              payload: { version, ruleCount: rules.length, packs, ...reason },
            } as (typeof events)[number]);
          }
          await chainRepository.append(trx, tenantId, events, now);
          const row = await policyRepository.get(trx, tenantId, version);
          if (!row) throw new Error(`policy version ${version} of ${tenantId} was not written`);
          return toView(row, activate ? version : await activeVersionNumber(trx, tenantId));
        });
      } catch (error) {
        // Two saves raced for the same version number: take the next one.
        if (isUniqueViolation(error) && attempt < 3) continue;
        throw error;
      }
    }
  }

  async function activeRules(tenantId: string): Promise<{ rules: Rule[]; packs: string[] }> {
    const { version } = await active(tenantId);
    const row = await readVersion(tenantId, version);
    if (!row) throw new Error(`policy version ${version} of ${tenantId} is missing`);
    return { rules: row.rules, packs: row.packs };
  }

  return {
    active,
    activeAt,

    async activeView(tenantId: string): Promise<PolicyVersion> {
      const { version } = await active(tenantId);
      const row = await readVersion(tenantId, version);
      if (!row) throw new Error(`policy version ${version} of ${tenantId} is missing`);
      return toView(row, version);
    },

    async versions(tenantId: string): Promise<PolicyVersion[]> {
      const current = (await active(tenantId)).version;
      const rows = await policyRepository.list(db, tenantId);
      return rows.map((row) => toView(row, current));
    },

    /** `POST /authority/policy`: pack rules are kept unless replacePacks. */
    async save(
      tenantId: string,
      principal: Principal,
      body: { rules: unknown; activate?: boolean | undefined; replacePacks?: boolean | undefined },
    ): Promise<PolicyVersion> {
      const checked = validatePolicy({ rules: body.rules });
      if (!checked.ok)
        throw validationError(
          checked.issues.map((i) => ({ path: `/${i.path.replace(/\./g, '/')}`, message: i.message })),
        );
      const current = await activeRules(tenantId);
      const keptPackRules = body.replacePacks
        ? []
        : current.rules.filter((r) => packIdOfRule(r.id) !== undefined);
      const packs = body.replacePacks ? [] : current.packs;
      return writeVersion(
        tenantId,
        principal,
        [...checked.rules, ...keptPackRules],
        packs,
        body.activate === true,
        {
          source: 'save',
          replacePacks: body.replacePacks === true,
        },
      );
    },

    async activate(tenantId: string, principal: Principal, version: number): Promise<PolicyVersion> {
      await active(tenantId);
      const row = await readVersion(tenantId, version);
      if (!row) throw new AppError('NOT_FOUND', `No policy version ${version}`);
      const now = clock();
      await storage.writeTransaction(async (trx) => {
        await setActive(trx, tenantId, version, now);
        await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'policy.activated', { version, source: 'activate' })],
          now,
        );
      });
      const updated = await readVersion(tenantId, version);
      if (!updated) throw new AppError('NOT_FOUND', `No policy version ${version}`);
      return toView(updated, version);
    },

    /** `POST /policy-packs/install`: a new version = active rules plus the pack's (409 if installed). */
    async installPack(
      tenantId: string,
      principal: Principal,
      packId: string,
      activate: boolean,
    ): Promise<{ pack: PolicyPack; policy: PolicyVersion }> {
      const pack = getPack(packId);
      if (!pack) throw new AppError('NOT_FOUND', `No policy pack ${packId}`);
      const current = await activeRules(tenantId);
      if (current.packs.includes(packId))
        throw new AppError('CONFLICT', `Pack ${packId} is already installed`);
      const rules = [...current.rules, ...packRules(pack)];
      const policy = await writeVersion(tenantId, principal, rules, [...current.packs, packId], activate, {
        source: 'pack',
        pack: packId,
      });
      return { pack, policy };
    },

    installedPacks: async (tenantId: string) => (await activeRules(tenantId)).packs,
  };
}

export type PolicyStore = ReturnType<typeof createPolicyStore>;
