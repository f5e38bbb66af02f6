import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { AppError, validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import type { Principal } from '../identity/principal.js';
import type { Executor, Storage } from '../storage/database.js';
import { authorityActorRepository } from './authority-actor-repository.js';
import type { KillSwitch } from './tenant.js';
import { tenantRepository } from './tenant-repository.js';
import { type TenantSettings, tenantSettingsRepository } from './tenant-settings-repository.js';

export interface FloorSetting {
  tenantId: string;
  enabled: boolean;
  agreementVersion: string | null;
  changedBy: string | null;
  changedAt: string | null;
}

export interface ActorRecord {
  actorId: string;
  status: 'active' | 'blocked';
  reason: string | null;
  updatedAt: string;
  updatedBy: string;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The floor setting of a tenant's settings (or of none: enabled). */
export function floorSetting(tenantId: string, settings: TenantSettings | undefined): FloorSetting {
  return {
    tenantId,
    enabled: settings ? settings.floorEnabled : true,
    agreementVersion: settings?.floorAgreementVersion ?? null,
    changedBy: settings?.floorChangedBy ?? null,
    changedAt: iso(settings?.floorChangedAtMs ?? null),
  };
}

/**
 * Whether authority was withdrawn from a write that releases it (a token issued or consumed), and
 * why: the tenant's kill switch is on, or one of `actorIds` is blocked. A write calls it in its
 * transaction after its chain append, which holds the tenant's chain head lock: turning the switch
 * on and blocking an actor take the same lock before they commit, so either the change committed
 * first and is seen here, or it waits for this transaction and answers after it. Nothing is
 * issued or consumed after the change's answer, though the decision may have read the switch off.
 * Read outside a transaction (`storage.db`), it is a first check that saves signing in vain.
 */
export async function authorityWithdrawn(
  executor: Executor,
  tenantId: string,
  actorIds: readonly string[] = [],
): Promise<'kill_switch' | 'actor_blocked' | undefined> {
  const { killSwitchOn, actorBlocked } = await tenantRepository.withdrawn(executor, tenantId, actorIds);
  return killSwitchOn ? 'kill_switch' : actorBlocked ? 'actor_blocked' : undefined;
}

/**
 * Thrown in a write that would release authority when the kill switch went on, or the actor was
 * blocked (on the physical surface: left the roster), after its decision read them: the write
 * rolls back and the decision is made again.
 */
export class AuthorityWithdrawn extends Error {
  constructor(readonly tenantId: string) {
    super(`the kill switch or an actor of ${tenantId} changed before this write could commit`);
    this.name = 'AuthorityWithdrawn';
  }
}

/**
 * How often a decision is made when authority was withdrawn between it and its commit: the second
 * attempt reads the change and refuses; a third is needed only if the change was undone and made
 * again meanwhile. After that the last AuthorityWithdrawn is thrown, and the loop fails closed.
 */
const DECISION_ATTEMPTS = 3;

/** Runs `decide` (a decision and its commit) again while its commit finds authority withdrawn. */
export async function decideUntilCurrent<T>(decide: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await decide();
    } catch (error) {
      if (!(error instanceof AuthorityWithdrawn) || attempt === DECISION_ATTEMPTS) throw error;
    }
  }
}

/**
 * Tenant-wide switches that feed the decision gates: the kill switch (gate `kill_switch`), the
 * catastrophic floor setting (gate `structural`) and the actor list (gate `rbac`). Every change
 * commits with its audit entry.
 */
export function createTenantControls(deps: {
  storage: Storage;
  clock: Clock;
  floorAgreementVersion: string;
}) {
  const { storage, clock } = deps;

  return {
    async setKillSwitch(
      tenantId: string,
      principal: Principal,
      change: { enabled: boolean; reason?: string | undefined },
    ): Promise<KillSwitch> {
      const reason = change.reason?.trim() ?? '';
      if (change.enabled && reason === '') {
        throw validationError([
          { path: '/reason', message: 'a reason is required to turn the kill switch on' },
        ]);
      }
      const now = clock();
      await storage.writeTransaction(async (trx) => {
        // Under the chain head's lock: switches at once each record the state they replaced.
        await chainRepository.lockHead(trx, tenantId, now);
        const before = await tenantRepository.setKillSwitch(trx, tenantId, {
          enabled: change.enabled,
          reason: reason === '' ? null : reason,
          changedBy: principal.id,
          changedAtMs: now,
        });
        if (!before) throw new AppError('NOT_FOUND', 'No such tenant');
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'killswitch.changed', {
              enabled: change.enabled,
              reason: reason === '' ? null : reason,
              previous: before,
            }),
          ],
          now,
        );
      });
      return {
        enabled: change.enabled,
        reason: reason === '' ? null : reason,
        changedBy: principal.id,
        changedAt: iso(now),
      };
    },

    async floor(tenantId: string): Promise<FloorSetting> {
      return floorSetting(tenantId, await tenantSettingsRepository.get(storage.db, tenantId));
    },

    /** Disabling needs the current agreement version; enabling never does. */
    async setFloor(
      tenantId: string,
      principal: Principal,
      change: { enabled: boolean; agreementVersion?: string | undefined },
    ): Promise<FloorSetting> {
      if (!change.enabled && change.agreementVersion !== deps.floorAgreementVersion) {
        throw validationError([
          {
            path: '/agreementVersion',
            message: `disabling the catastrophic floor requires accepting agreement version ${deps.floorAgreementVersion}`,
          },
        ]);
      }
      const now = clock();
      const agreementVersion = change.enabled ? null : deps.floorAgreementVersion;
      await storage.writeTransaction(async (trx) => {
        await tenantSettingsRepository.setFloor(trx, tenantId, {
          enabled: change.enabled,
          agreementVersion,
          changedBy: principal.id,
          changedAtMs: now,
        });
        await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'floor.changed', { enabled: change.enabled, agreementVersion })],
          now,
        );
      });
      return {
        tenantId,
        enabled: change.enabled,
        agreementVersion,
        changedBy: principal.id,
        changedAt: iso(now),
      };
    },

    async setActor(
      tenantId: string,
      principal: Principal,
      actorId: string,
      change: { status: 'active' | 'blocked'; reason?: string | undefined },
    ): Promise<ActorRecord> {
      const now = clock();
      const reason = change.reason?.trim() || null;
      await storage.writeTransaction(async (trx) => {
        await authorityActorRepository.set(trx, tenantId, {
          actorId,
          status: change.status,
          reason,
          updatedAtMs: now,
          updatedBy: principal.id,
        });
        await chainRepository.append(
          trx,
          tenantId,
          [principalEvent(principal, 'actor.changed', { actorId, status: change.status, reason })],
          now,
        );
      });
      return {
        actorId,
        status: change.status,
        reason,
        updatedAt: new Date(now).toISOString(),
        updatedBy: principal.id,
      };
    },

    async isBlocked(tenantId: string, actorId: string): Promise<boolean> {
      return (await authorityActorRepository.status(storage.db, tenantId, actorId)) === 'blocked';
    },

    async actors(tenantId: string): Promise<ActorRecord[]> {
      const actors = await authorityActorRepository.list(storage.db, tenantId);
      return actors.map((a) => ({
        actorId: a.actorId,
        status: a.status,
        reason: a.reason,
        updatedAt: new Date(a.updatedAtMs).toISOString(),
        updatedBy: a.updatedBy,
      }));
    },
  };
}

export type TenantControls = ReturnType<typeof createTenantControls>;
