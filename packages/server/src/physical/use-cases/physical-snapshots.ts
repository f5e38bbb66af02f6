/**
 * Snapshots of attested physical state (`POST /v1/physical/snapshots`, and the `physicalState` of an
 * issuance request). A snapshot is stored under a `physicalStateRef` (UUIDv7) and recorded in the
 * tenant's audit chain with the full state, in the same transaction.
 *
 * `asOfTimestampMs` is the server time at which the snapshot was recorded: the values inside keep
 * their own `asOfTimestampMs`, and a snapshot mixes readings of different ages.
 */
import { v7 as uuidv7 } from 'uuid';
import { chainRepository } from '../../chain/chain-repository.js';
import type { Clock } from '../../foundation/clock.js';
import type { Principal } from '../../identity/principal.js';
import type { Executor, Storage } from '../../storage/database.js';
import type { PhysicalState } from '../domain/index.js';
import { type EventSource, physicalEvent } from '../domain/physical-events.js';
import { snapshotRepository } from '../repositories/snapshot-repository.js';
import type { IdempotencyScope } from './physical-idempotency.js';

/** A fresh snapshot reference (UUIDv7). */
export const newPhysicalStateRef = (): string => uuidv7();

export interface RecordedSnapshot {
  physicalStateRef: string;
  asOfTimestampMs: number;
}

export interface PhysicalSnapshots {
  /**
   * Stores `physicalState` (already normalized: `normalizePhysicalState`) and appends a
   * `physical.snapshot` entry, inside the caller's write transaction. An issuance mints the
   * reference first (`newPhysicalStateRef`) so that the token is signed before the transaction.
   */
  record(
    trx: Executor,
    tenantId: string,
    physicalState: PhysicalState,
    source: EventSource,
    physicalStateRef?: string,
  ): Promise<RecordedSnapshot>;
  /**
   * `POST /v1/physical/snapshots`: records in its own transaction, with the idempotent outcome
   * (`scope`) committed alongside.
   */
  submit(
    tenantId: string,
    principal: Principal,
    physicalState: PhysicalState,
    scope: IdempotencyScope,
  ): Promise<{ statusCode: 200; body: RecordedSnapshot }>;
  /** The stored state of a reference of the tenant. */
  get(tenantId: string, physicalStateRef: string): Promise<PhysicalState | undefined>;
}

export function createPhysicalSnapshots(deps: { storage: Storage; clock: Clock }): PhysicalSnapshots {
  const { storage, clock } = deps;
  const service: PhysicalSnapshots = {
    async record(trx, tenantId, physicalState, source, physicalStateRef = newPhysicalStateRef()) {
      const now = clock();
      await snapshotRepository.insert(trx, {
        tenantId,
        ref: physicalStateRef,
        state: physicalState,
        createdAtMs: now,
      });
      await chainRepository.append(
        trx,
        tenantId,
        [
          physicalEvent(source, 'physical.snapshot', {
            physicalStateRef,
            asOfTimestampMs: now,
            physicalState,
          }),
        ],
        now,
      );
      return { physicalStateRef, asOfTimestampMs: now };
    },

    async get(tenantId, physicalStateRef) {
      return (await snapshotRepository.states(storage.db, tenantId, [physicalStateRef])).get(
        physicalStateRef,
      );
    },

    submit(tenantId, principal, physicalState, scope) {
      return storage.writeTransaction(async (trx) => {
        const outcome = {
          statusCode: 200 as const,
          body: await service.record(trx, tenantId, physicalState, { principal }),
        };
        await scope.complete(trx, outcome);
        return outcome;
      });
    },
  };
  return service;
}
