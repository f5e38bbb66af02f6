import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { principalEvent } from '../../chain/audit-entry.js';
import { appendAudit } from '../../chain/audit-log.js';
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
import type { Storage } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';

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

  async function activeVersionNumber(executor: Kysely<Database>, tenantId: string): Promise<number | null> {
    const row = await executor
      .selectFrom('tenant_settings')
      .select('active_policy_version')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.active_policy_version ?? null;
  }

  async function setActive(
    trx: Kysely<Database>,
    tenantId: string,
    version: number,
    now: number,
  ): Promise<void> {
    await trx
      .insertInto('tenant_settings')
      .values({
        tenant_id: tenantId,
        floor_enabled: 1,
        floor_agreement_version: null,
        floor_changed_by: null,
        floor_changed_at: null,
        thresholds: null,
        thresholds_updated_at: null,
        thresholds_updated_by: null,
        active_policy_version: version,
      })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ active_policy_version: version }))
      .execute();
    await trx
      .updateTable('policy_versions')
      .set({ activated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('version', '=', version)
      .execute();
  }

  async function readVersion(tenantId: string, version: number) {
    return db
      .selectFrom('policy_versions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('version', '=', version)
      .executeTakeFirst();
  }

  /** Installs the starter pack as version 1 when the tenant has no policy yet. */
  async function ensureStarter(tenantId: string): Promise<void> {
    const now = clock();
    try {
      await storage.writeTransaction(async (trx) => {
        await trx
          .insertInto('policy_versions')
          .values({
            tenant_id: tenantId,
            version: 1,
            rules: JSON.stringify(starterRules()),
            packs: JSON.stringify([STARTER_PACK_ID]),
            created_at: now,
            created_by: 'system',
            activated_at: null,
          })
          .execute();
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
    const entry: ActivePolicy = {
      version,
      packs: JSON.parse(row.packs) as string[],
      compiled: compilePolicy(JSON.parse(row.rules) as Rule[]),
    };
    compiled.set(key, entry);
    return entry;
  }

  async function nextVersion(trx: Kysely<Database>, tenantId: string): Promise<number> {
    const row = await trx
      .selectFrom('policy_versions')
      .select((eb) => eb.fn.max('version').as('max'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return Number(row?.max ?? 0) + 1;
  }

  function toView(
    row: {
      tenant_id: string;
      version: number;
      rules: string;
      packs: string;
      created_at: number;
      created_by: string;
      activated_at: number | null;
    },
    activeVersion: number | null,
  ): PolicyVersion {
    return {
      tenantId: row.tenant_id,
      version: row.version,
      rules: JSON.parse(row.rules) as Rule[],
      packs: JSON.parse(row.packs) as string[],
      active: row.version === activeVersion,
      createdAt: new Date(row.created_at).toISOString(),
      createdBy: row.created_by,
      activatedAt: iso(row.activated_at),
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
          const version = await nextVersion(trx, tenantId);
          await trx
            .insertInto('policy_versions')
            .values({
              tenant_id: tenantId,
              version,
              rules: JSON.stringify(rules),
              packs: JSON.stringify(packs),
              created_at: now,
              created_by: principal.id,
              activated_at: null,
            })
            .execute();
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
          await appendAudit(trx, storage.dialect, tenantId, events, now);
          const row = await trx
            .selectFrom('policy_versions')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('version', '=', version)
            .executeTakeFirstOrThrow();
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
    return { rules: JSON.parse(row.rules) as Rule[], packs: JSON.parse(row.packs) as string[] };
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
      const rows = await db
        .selectFrom('policy_versions')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('version', 'desc')
        .execute();
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
        await appendAudit(
          trx,
          storage.dialect,
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
