/**
 * The tenant's roster of physical actors (02-physical-api.md "Actor", contract §9). A token binds
 * to an `actorIdentity` only when that actor is registered and `active`; anything else is 403
 * `actor_not_registered`.
 *
 * `POST /actors` is idempotent on (tenant, actorIdentity): the first call registers, later calls
 * update the fields they name and keep the others (`status` starts `active`, `actorIdentityKind`
 * starts `ieee-802-1ar-devid`). A unique constraint decides concurrent first registrations. A
 * registration or a change is recorded in the chain (`physical.actor.registered`); a call that
 * changes nothing records nothing.
 */
import { v7 as uuidv7 } from 'uuid';
import { chainRepository } from '../../chain/chain-repository.js';
import { canonicalJson } from '../../crypto/canonical-json.js';
import { AppError } from '../../errors/app-error.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Storage } from '../../storage/database.js';
import type { PhysicalActorsTable } from '../../storage/physical-schema.js';
import { type ActorKind, DEFAULT_ACTOR_IDENTITY_KIND } from '../domain/index.js';
import { physicalEvent } from '../domain/physical-events.js';
import { actorRepository } from '../repositories/actor-repository.js';

export const ACTOR_STATUSES = ['active', 'disabled'] as const;
export type ActorStatus = (typeof ACTOR_STATUSES)[number];

export interface PhysicalActor {
  id: string;
  tenantId: string;
  actorIdentity: string;
  actorIdentityKind: string;
  actorKind: ActorKind;
  displayName: string | null;
  status: ActorStatus;
  metadata: Record<string, unknown> | null;
  createdAtMs: number;
  updatedAtMs: number;
}

export interface ActorRegistration {
  actorIdentity: string;
  actorKind: ActorKind;
  actorIdentityKind?: string | undefined;
  displayName?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  status?: ActorStatus | undefined;
}

export interface PhysicalActors {
  register(tenantId: string, principal: Principal, registration: ActorRegistration): Promise<PhysicalActor>;
  /** Most recently registered first; `before` is the id of the last actor of the previous page. */
  list(
    tenantId: string,
    page: { limit: number; before?: string | undefined },
  ): Promise<{ actors: PhysicalActor[]; hasMore: boolean }>;
  /** The roster entry, whatever its status. */
  find(tenantId: string, actorIdentity: string): Promise<PhysicalActor | undefined>;
  /** The active roster entry; 403 `actor_not_registered` when missing or disabled. */
  get(tenantId: string, actorIdentity: string): Promise<PhysicalActor>;
}

function toActor(row: PhysicalActorsTable): PhysicalActor {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    actorIdentity: row.actor_identity,
    actorIdentityKind: row.actor_identity_kind,
    actorKind: row.actor_kind as ActorKind,
    displayName: row.display_name,
    status: row.status as ActorStatus,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    createdAtMs: row.created_at,
    updatedAtMs: row.updated_at,
  };
}

const CHANGEABLE = ['actor_kind', 'actor_identity_kind', 'display_name', 'status', 'metadata'] as const;

export function createPhysicalActors(deps: { storage: Storage; clock: Clock }): PhysicalActors {
  const { storage, clock } = deps;
  const db = storage.db;

  const find = async (tenantId: string, actorIdentity: string) => {
    const row = await actorRepository.findByIdentity(db, tenantId, actorIdentity);
    return row && toActor(row);
  };

  return {
    async register(tenantId, principal, registration) {
      const metadata =
        registration.metadata === undefined
          ? undefined
          : registration.metadata === null
            ? null
            : canonicalJson(registration.metadata);
      return storage.writeTransaction(async (trx) => {
        const now = clock();
        const isNew = await actorRepository.insertIfAbsent(trx, {
          tenant_id: tenantId,
          id: uuidv7(),
          actor_identity: registration.actorIdentity,
          actor_identity_kind: registration.actorIdentityKind ?? DEFAULT_ACTOR_IDENTITY_KIND,
          actor_kind: registration.actorKind,
          display_name: registration.displayName ?? null,
          status: registration.status ?? 'active',
          metadata: metadata ?? null,
          created_at: now,
          updated_at: now,
        });
        const current = await actorRepository.findByIdentity(trx, tenantId, registration.actorIdentity, {
          forUpdate: true,
        });
        if (!current) throw new Error(`actor ${registration.actorIdentity} vanished inside its transaction`);
        let row = current;
        let changes: string[] = CHANGEABLE.map(String);
        if (!isNew) {
          const wanted = {
            actor_kind: registration.actorKind,
            actor_identity_kind: registration.actorIdentityKind ?? current.actor_identity_kind,
            display_name:
              registration.displayName === undefined ? current.display_name : registration.displayName,
            status: registration.status ?? current.status,
            metadata: metadata === undefined ? current.metadata : metadata,
          };
          changes = CHANGEABLE.filter((column) => wanted[column] !== current[column]);
          if (changes.length === 0) return toActor(current);
          row = { ...current, ...wanted, updated_at: now };
          await actorRepository.update(trx, tenantId, current.id, wanted, now);
        }
        const actor = toActor(row);
        await chainRepository.append(
          trx,
          tenantId,
          [
            physicalEvent({ principal }, 'physical.actor.registered', {
              actorIdentity: actor.actorIdentity,
              actorKind: actor.actorKind,
              actorIdentityKind: actor.actorIdentityKind,
              displayName: actor.displayName,
              status: actor.status,
              created: isNew,
              changed: changes.map((column) =>
                column.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase()),
              ),
            }),
          ],
          now,
        );
        return actor;
      });
    },

    async list(tenantId, page) {
      const rows = await actorRepository.list(db, tenantId, { before: page.before, limit: page.limit + 1 });
      return { actors: rows.slice(0, page.limit).map(toActor), hasMore: rows.length > page.limit };
    },

    find,

    async get(tenantId, actorIdentity) {
      const actor = await find(tenantId, actorIdentity);
      if (actor === undefined)
        throw new AppError(
          'ACTOR_NOT_REGISTERED',
          `The actor ${actorIdentity} is not on the tenant's roster`,
        );
      if (actor.status !== 'active') {
        throw new AppError(
          'ACTOR_NOT_REGISTERED',
          `The actor ${actorIdentity} is disabled on the tenant's roster`,
          {
            status: actor.status,
          },
        );
      }
      return actor;
    },
  };
}
