import { principalEvent } from '../chain/audit-entry.js';
import { appendAudit } from '../chain/audit-log.js';
import { AppError, validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import type { Principal } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import type { TenantSettingsTable } from '../storage/schema.js';
import type { KillSwitch } from './tenant.js';

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

/** The floor setting of a tenant_settings row (or of none: enabled). */
export function floorFromRow(
  tenantId: string,
  row:
    | Pick<
        TenantSettingsTable,
        'floor_enabled' | 'floor_agreement_version' | 'floor_changed_by' | 'floor_changed_at'
      >
    | undefined,
): FloorSetting {
  return {
    tenantId,
    enabled: row ? row.floor_enabled === 1 : true,
    agreementVersion: row?.floor_agreement_version ?? null,
    changedBy: row?.floor_changed_by ?? null,
    changedAt: iso(row?.floor_changed_at ?? null),
  };
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
        const before = await trx
          .selectFrom('tenants')
          .select(['kill_switch_enabled', 'kill_switch_reason'])
          .where('id', '=', tenantId)
          .executeTakeFirst();
        if (!before) throw new AppError('NOT_FOUND', 'No such tenant');
        await trx
          .updateTable('tenants')
          .set({
            kill_switch_enabled: change.enabled ? 1 : 0,
            kill_switch_reason: reason === '' ? null : reason,
            kill_switch_changed_by: principal.id,
            kill_switch_changed_at: now,
            updated_at: now,
          })
          .where('id', '=', tenantId)
          .execute();
        await appendAudit(
          trx,
          storage.dialect,
          tenantId,
          [
            principalEvent(principal, 'killswitch.changed', {
              enabled: change.enabled,
              reason: reason === '' ? null : reason,
              previous: { enabled: before.kill_switch_enabled === 1, reason: before.kill_switch_reason },
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
      const row = await storage.db
        .selectFrom('tenant_settings')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return floorFromRow(tenantId, row);
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
        await trx
          .insertInto('tenant_settings')
          .values({
            tenant_id: tenantId,
            floor_enabled: change.enabled ? 1 : 0,
            floor_agreement_version: agreementVersion,
            floor_changed_by: principal.id,
            floor_changed_at: now,
            thresholds: null,
            thresholds_updated_at: null,
            thresholds_updated_by: null,
            active_policy_version: null,
          })
          .onConflict((oc) =>
            oc.column('tenant_id').doUpdateSet({
              floor_enabled: change.enabled ? 1 : 0,
              floor_agreement_version: agreementVersion,
              floor_changed_by: principal.id,
              floor_changed_at: now,
            }),
          )
          .execute();
        await appendAudit(
          trx,
          storage.dialect,
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
        await trx
          .insertInto('authority_actors')
          .values({
            tenant_id: tenantId,
            actor_id: actorId,
            status: change.status,
            reason,
            updated_at: now,
            updated_by: principal.id,
          })
          .onConflict((oc) =>
            oc
              .columns(['tenant_id', 'actor_id'])
              .doUpdateSet({ status: change.status, reason, updated_at: now, updated_by: principal.id }),
          )
          .execute();
        await appendAudit(
          trx,
          storage.dialect,
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
      const row = await storage.db
        .selectFrom('authority_actors')
        .select('status')
        .where('tenant_id', '=', tenantId)
        .where('actor_id', '=', actorId)
        .executeTakeFirst();
      return row?.status === 'blocked';
    },

    async actors(tenantId: string): Promise<ActorRecord[]> {
      const rows = await storage.db
        .selectFrom('authority_actors')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('actor_id')
        .execute();
      return rows.map((r) => ({
        actorId: r.actor_id,
        status: r.status as 'active' | 'blocked',
        reason: r.reason,
        updatedAt: new Date(r.updated_at).toISOString(),
        updatedBy: r.updated_by,
      }));
    },
  };
}

export type TenantControls = ReturnType<typeof createTenantControls>;
