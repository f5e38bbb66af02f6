import type { KeyObject } from 'node:crypto';
import { canonicalJson } from '../crypto/canonical-json.js';
import { parseCompact, verifyParsed } from '../crypto/jws.js';
import type { SigningAlg } from '../crypto/signing-algorithms.js';

/** A signed statement of the chain head (contract §6). `signature` is a compact JWS over the JCS of the other fields. */
export interface Checkpoint {
  tenantId: string;
  index: number;
  entryHash: string;
  issuedAt: string;
  kid: string;
  signature: string;
}

export const CHECKPOINT_EVERY_ENTRIES = 1_000;

export type PublicKeyLookup = (kid: string) => Promise<{ alg: SigningAlg; key: KeyObject } | undefined>;

/** The checkpoint's signed fields, in the canonical text its JWS carries. Pure. */
export function checkpointPayload(checkpoint: Omit<Checkpoint, 'kid' | 'signature'>): string {
  return canonicalJson({
    tenantId: checkpoint.tenantId,
    index: checkpoint.index,
    entryHash: checkpoint.entryHash,
    issuedAt: checkpoint.issuedAt,
  });
}

/** True when the checkpoint's JWS verifies under the tenant key it names and states exactly its fields. */
export async function checkpointSignatureValid(
  checkpoint: Checkpoint,
  lookup: PublicKeyLookup,
): Promise<boolean> {
  const parsed = parseCompact(checkpoint.signature);
  if (!parsed || parsed.header.kid !== checkpoint.kid) return false;
  const key = await lookup(checkpoint.kid);
  if (!key || !verifyParsed(parsed, key.alg, key.key)) return false;
  return parsed.payloadText === checkpointPayload(checkpoint);
}
