import { LRUCache } from 'lru-cache';
import { principalEvent } from '../../chain/audit-entry.js';
import { chainRepository } from '../../chain/chain-repository.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { isUniqueViolation } from '../../errors/database-errors.js';
import type { Clock } from '../../foundation/clock.js';
import { pointerOf } from '../../foundation/json-pointer.js';
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
import { activationRefusal, type PolicyVersionStatus, versionStatus } from '../domain/policy-review.js';
import { policyRepository, type StoredPolicyVersion } from '../repositories/policy-repository.js';
import {
  type PolicyReviewRecord,
  type PolicyReviewSetting,
  policyReviewRepository,
} from '../repositories/policy-review-repository.js';

export interface PolicyVersion {
  tenantId: string;
  version: number;
  rules: Rule[];
  packs: string[];
  active: boolean;
  createdAt: string;
  createdBy: string;
  activatedAt: string | null;
  status: PolicyVersionStatus;
  author: string;
  reviews: Array<{ principalId: string; decision: 'approve' | 'reject'; comment: string; createdAt: string }>;
  requiredApprovals: number | null;
}

export interface ActivePolicy {
  version: number;
  packs: string[];
  compiled: CompiledPolicy;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** What a policy version holds: its rules and the packs they came from. */
interface PolicyContent {
  rules: Rule[];
  packs: string[];
}

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
          reviewApprovals: null,
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

  function toView(
    stored: StoredPolicyVersion,
    activeVersion: number | null,
    reviews: readonly PolicyReviewRecord[],
    setting: PolicyReviewSetting,
  ): PolicyVersion {
    const own = reviews.filter((r) => r.version === stored.version);
    return {
      tenantId: stored.tenantId,
      version: stored.version,
      rules: stored.rules,
      packs: stored.packs,
      active: stored.version === activeVersion,
      createdAt: new Date(stored.createdAtMs).toISOString(),
      createdBy: stored.createdBy,
      activatedAt: iso(stored.activatedAtMs),
      status: versionStatus(stored, activeVersion, own, setting),
      author: stored.createdBy,
      reviews: own.map((r) => ({
        principalId: r.principalId,
        decision: r.decision,
        comment: r.comment,
        createdAt: new Date(r.createdAtMs).toISOString(),
      })),
      requiredApprovals: stored.reviewApprovals,
    };
  }

  /** One version as the API shows it, with its reviews, read with the executor. */
  async function viewOf(executor: Executor, tenantId: string, version: number): Promise<PolicyVersion> {
    const row = await policyRepository.get(executor, tenantId, version);
    if (!row) throw new AppError('NOT_FOUND', `No policy version ${version}`);
    const [current, reviews, setting] = await Promise.all([
      activeVersionNumber(executor, tenantId),
      policyReviewRepository.list(executor, tenantId, version),
      policyReviewRepository.setting(executor, tenantId),
    ]);
    return toView(row, current, reviews, setting);
  }

  /**
   * The limits of a policy (§4.5: rule count, bare-`args` MATCHES conditions, summed MATCHES cost)
   * hold for the version as it would be stored: the rules sent with the pack rules kept, or the
   * active rules with a pack's. Each part may pass alone and the whole exceed them.
   */
  function checkComposed(rules: Rule[]): void {
    if (rules.length > MAX_RULES) {
      throw validationError([
        { path: '/rules', message: `a policy holds at most ${MAX_RULES} rules (got ${rules.length})` },
      ]);
    }
    const checked = validatePolicy({ rules }, { allowPackIds: true });
    if (!checked.ok) {
      throw validationError(
        checked.issues.map((issue) => ({
          path: '/rules',
          message: `with the pack rules it keeps, the policy is over a limit (${issue.path}): ${issue.message}`,
        })),
      );
    }
  }

  /**
   * Writes a new version (and optionally activates it) with its audit entries, in one transaction.
   * `compose` builds it from the active version as read under the chain head's lock, so two
   * changes made at once (a pack installed while rules are saved) each build on the other instead
   * of both on what was active before them; it throws to refuse (a pack installed already, limits).
   */
  async function writeVersion(
    tenantId: string,
    principal: Principal,
    compose: (current: PolicyContent) => PolicyContent,
    activate: boolean,
    reason: Record<string, unknown>,
  ): Promise<PolicyVersion> {
    await active(tenantId);
    const now = clock();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await storage.writeTransaction(async (trx) => {
          // Under the chain head's lock, so that the active version and the review setting read
          // here are the ones in force.
          await chainRepository.lockHead(trx, tenantId, now);
          const { rules, packs } = compose(await activeContent(trx, tenantId));
          const version = (await policyRepository.latestVersion(trx, tenantId)) + 1;
          // While review is required (§16) a new version is a draft, whatever `activate` says.
          const review = await policyReviewRepository.setting(trx, tenantId);
          const activateNow = activate && !review.required;
          await policyRepository.insert(trx, {
            tenantId,
            version,
            rules,
            packs,
            createdAtMs: now,
            createdBy: principal.id,
            reviewApprovals: review.required ? review.approvals : null,
          });
          const events = [
            principalEvent(principal, 'policy.saved', {
              version,
              ruleCount: rules.length,
              packs,
              ...reason,
              ...(review.required ? { status: 'draft', requiredApprovals: review.approvals } : {}),
            }),
          ];
          if (activateNow) {
            await setActive(trx, tenantId, version, now);
            events.push({
              ...events[0],
              eventType: 'policy.activated',
              payload: { version, ruleCount: rules.length, packs, ...reason },
            } as (typeof events)[number]);
          }
          await chainRepository.append(trx, tenantId, events, now);
          return viewOf(trx, tenantId, version);
        });
      } catch (error) {
        // Two saves raced for the same version number: take the next one.
        if (isUniqueViolation(error) && attempt < 3) continue;
        throw error;
      }
    }
  }

  /** The rules and packs of the active version, read with the executor. */
  async function activeContent(executor: Executor, tenantId: string): Promise<PolicyContent> {
    const version = await activeVersionNumber(executor, tenantId);
    const row = version === null ? undefined : await policyRepository.get(executor, tenantId, version);
    if (!row) throw new Error(`tenant ${tenantId} has no active policy version`);
    return { rules: row.rules, packs: row.packs };
  }

  async function activeRules(tenantId: string): Promise<PolicyContent> {
    const { version } = await active(tenantId);
    const row = await readVersion(tenantId, version);
    if (!row) throw new Error(`policy version ${version} of ${tenantId} is missing`);
    return { rules: row.rules, packs: row.packs };
  }

  /** The rules of a `POST /authority/policy` body, validated (400 naming rule and field). */
  function validRules(body: { rules: unknown }): Rule[] {
    const checked = validatePolicy({ rules: body.rules });
    if (!checked.ok)
      throw validationError(checked.issues.map((i) => ({ path: pointerOf(i.path), message: i.message })));
    return checked.rules;
  }

  /** The version saving `rules` makes of `current`: its pack rules and packs kept unless replacePacks. */
  function composeDraft(
    rules: Rule[],
    current: PolicyContent,
    replacePacks: boolean | undefined,
  ): PolicyContent {
    if (replacePacks) return { rules, packs: [] };
    const composed = [...rules, ...current.rules.filter((r) => packIdOfRule(r.id) !== undefined)];
    checkComposed(composed);
    return { rules: composed, packs: current.packs };
  }

  /**
   * The version `POST /authority/policy` would store for this body: the rules validated (400 naming
   * rule and field), the active version's pack rules and packs kept unless replacePacks, the whole
   * within the policy's limits. A simulation's draft is this one, so it is refused alike.
   */
  async function draftOf(
    tenantId: string,
    body: { rules: unknown; replacePacks?: boolean | undefined },
  ): Promise<PolicyContent> {
    const rules = validRules(body);
    return composeDraft(rules, await activeRules(tenantId), body.replacePacks);
  }

  return {
    active,
    activeAt,

    async activeView(tenantId: string): Promise<PolicyVersion> {
      const { version } = await active(tenantId);
      return viewOf(db, tenantId, version);
    },

    /** One version with its reviews (404 when the tenant has no such version). */
    version: (tenantId: string, version: number) => viewOf(db, tenantId, version),

    /** Every version, newest first, and the tenant's review setting. */
    async versions(tenantId: string): Promise<{ versions: PolicyVersion[]; review: PolicyReviewSetting }> {
      const current = (await active(tenantId)).version;
      const [rows, reviews, review] = await Promise.all([
        policyRepository.list(db, tenantId),
        policyReviewRepository.list(db, tenantId),
        policyReviewRepository.setting(db, tenantId),
      ]);
      return { versions: rows.map((row) => toView(row, current, reviews, review)), review };
    },

    draftOf,

    /** The rules of a stored version (404 when the tenant has no such version). */
    async storedRules(tenantId: string, version: number): Promise<Rule[]> {
      const row = await readVersion(tenantId, version);
      if (!row) throw new AppError('NOT_FOUND', `No policy version ${version}`);
      return row.rules;
    },

    /** `POST /authority/policy`: pack rules are kept unless replacePacks. */
    async save(
      tenantId: string,
      principal: Principal,
      body: { rules: unknown; activate?: boolean | undefined; replacePacks?: boolean | undefined },
    ): Promise<PolicyVersion> {
      const rules = validRules(body);
      const compose = (current: PolicyContent) => composeDraft(rules, current, body.replacePacks);
      return writeVersion(tenantId, principal, compose, body.activate === true, {
        source: 'save',
        replacePacks: body.replacePacks === true,
      });
    },

    async activate(tenantId: string, principal: Principal, version: number): Promise<PolicyVersion> {
      await active(tenantId);
      const now = clock();
      return storage.writeTransaction(async (trx) => {
        // Under the chain head's lock: a review or a setting change cannot slip in between.
        await chainRepository.lockHead(trx, tenantId, now);
        const row = await policyRepository.get(trx, tenantId, version);
        if (!row) throw new AppError('NOT_FOUND', `No policy version ${version}`);
        // Activating the active version changes nothing, so it records nothing either.
        if ((await activeVersionNumber(trx, tenantId)) === version) return viewOf(trx, tenantId, version);
        const setting = await policyReviewRepository.setting(trx, tenantId);
        const reviews = await policyReviewRepository.list(trx, tenantId, version);
        const refusal = activationRefusal(row, reviews, setting);
        if (refusal !== undefined) throw new AppError('CONFLICT', refusal, { reason: 'review_required' });
        const rollback = row.activatedAtMs !== null;
        await setActive(trx, tenantId, version, now);
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'policy.activated', {
              version,
              source: rollback ? 'rollback' : 'activate',
            }),
          ],
          now,
        );
        return viewOf(trx, tenantId, version);
      });
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
      const compose = (current: PolicyContent): PolicyContent => {
        if (current.packs.includes(packId))
          throw new AppError('CONFLICT', `Pack ${packId} is already installed`);
        const rules = [...current.rules, ...packRules(pack)];
        checkComposed(rules);
        return { rules, packs: [...current.packs, packId] };
      };
      const policy = await writeVersion(tenantId, principal, compose, activate, {
        source: 'pack',
        pack: packId,
      });
      return { pack, policy };
    },

    installedPacks: async (tenantId: string) => (await activeRules(tenantId)).packs,
  };
}

export type PolicyStore = ReturnType<typeof createPolicyStore>;
