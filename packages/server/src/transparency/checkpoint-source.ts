import { hashFromHex, parseCheckpoint, parseSignedNote } from '@authority-runtime/sdk';
import type { TransparencyService } from './transparency-service.js';
import type { CheckpointSource } from './witness-push.js';

/** The tenant's log as the witness pusher reads it: the current checkpoint note and stored proofs. */
export function checkpointSourceOf(transparency: TransparencyService): CheckpointSource {
  return {
    async latest(tenantId) {
      const note = await transparency.checkpoint(tenantId);
      const { size, rootHash } = parseCheckpoint(parseSignedNote(note).text);
      return size === 0 ? undefined : { note, size, rootHash };
    },
    async consistencyProof(tenantId, from, to) {
      return (await transparency.consistencyProof(tenantId, from, to)).proof.map(hashFromHex);
    },
  };
}
