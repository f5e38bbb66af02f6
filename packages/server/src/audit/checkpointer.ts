import { chainTimestamp } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { type JwsSigner, signCompact } from '../crypto/jws.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';
import { CHECKPOINT_EVERY_ENTRIES, type Checkpoint, checkpointPayload } from './checkpoint.js';
import { checkpointRepository } from './checkpoint-repository.js';

/**
 * Signs the chain head every CHECKPOINT_EVERY_ENTRIES entries or every interval, whichever comes
 * first: a JWS checkpoint (contract §6), then the log's checkpoint note (§15). Signing happens outside any transaction; the insert is idempotent per (tenant, index).
 */
export function createCheckpointer(deps: {
  storage: Storage;
  clock: Clock;
  intervalMs: number;
  signer: (tenantId: string) => Promise<JwsSigner>;
  /** Signs the transparency log's checkpoint note of the head (contract §15) on the same cadence. */
  signNote: (tenantId: string) => Promise<unknown>;
}) {
  const { storage, clock } = deps;

  async function checkpoint(tenantId: string, force: boolean): Promise<Checkpoint | undefined> {
    const head = await chainRepository.head(storage.db, tenantId);
    if (!head || head.lastIndex <= head.lastCheckpointIndex) return undefined;
    const now = clock();
    const due =
      force ||
      head.lastIndex - head.lastCheckpointIndex >= CHECKPOINT_EVERY_ENTRIES ||
      now - head.lastCheckpointAt >= deps.intervalMs;
    if (!due) return undefined;
    const signer = await deps.signer(tenantId);
    const fields = {
      tenantId,
      index: head.lastIndex,
      entryHash: head.lastHash,
      issuedAt: chainTimestamp(now),
    };
    const signature = await signCompact(signer, checkpointPayload(fields), 'authority-checkpoint+jws');
    const signed = { ...fields, kid: signer.kid, signature };
    await storage.writeTransaction(async (trx) => {
      await checkpointRepository.insert(trx, { ...signed, issuedAtMs: now });
      await chainRepository.markCheckpointed(trx, tenantId, fields.index, now);
    });
    await deps.signNote(tenantId);
    return signed;
  }

  return {
    /** Checkpoints the head if one is due (called after appends). */
    maybeCheckpoint: (tenantId: string) => checkpoint(tenantId, false),
    /** Checkpoints the head now if it moved since the last checkpoint. */
    checkpointNow: (tenantId: string) => checkpoint(tenantId, true),
    /** One pass over every tenant with a checkpoint due, by count or by time (run on a short timer). */
    async sweep(): Promise<number> {
      const due = await chainRepository.dueForCheckpoint(storage.db, {
        dueBefore: clock() - deps.intervalMs,
        everyEntries: CHECKPOINT_EVERY_ENTRIES,
      });
      let made = 0;
      for (const tenantId of due) if (await checkpoint(tenantId, false)) made += 1;
      return made;
    },
  };
}

export type Checkpointer = ReturnType<typeof createCheckpointer>;
