import { createHmac } from 'node:crypto';
import type { AuditEntry } from '../chain/audit-entry.js';
import { chainTimestamp } from '../chain/audit-entry.js';
import { canonicalJson, sha256Hex } from '../crypto/canonical-json.js';
import type { JwsSigner } from '../crypto/jws.js';
import { signCompact } from '../crypto/jws.js';

export interface EvidenceBundle {
  intentId: string;
  tenantId: string;
  events: AuditEntry[];
  integrityHash: string;
  signature: string;
  secretId: string;
  generatedAt: string;
}

/** The evidence bundle of contract §6: verifiable only with the tenant's evidence secret. Pure. */
export function buildEvidenceBundle(
  tenantId: string,
  intentId: string,
  events: AuditEntry[],
  secret: { id: string; secret: Buffer },
  nowMs: number,
): EvidenceBundle {
  const integrityHash = `sha256:${sha256Hex(canonicalJson(events))}`;
  const signature = createHmac('sha256', secret.secret)
    .update(`${intentId}:${integrityHash}`, 'utf8')
    .digest('base64url');
  return {
    intentId,
    tenantId,
    events,
    integrityHash,
    signature,
    secretId: secret.id,
    generatedAt: chainTimestamp(nowMs),
  };
}

export interface ReceiptSeal {
  tenantId: string;
  intentId: string;
  entryHashes: string[];
  headIndex: number;
  headHash: string;
  issuedAt: string;
  signature: string;
}

export interface Receipt {
  receiptVersion: 2;
  intentId: string;
  tenantId: string;
  decision: string;
  token: string | null;
  entries: AuditEntry[];
  seal: ReceiptSeal;
  jwks: { keys: Record<string, unknown>[] };
  checkpoint: string;
  inclusion: { index: number; proof: string[] }[];
}

/**
 * A receipt (contract §15, version 2) whose seal binds the intent's entries to a signed statement
 * of the chain head, and whose checkpoint and inclusion proofs put those entries in the tenant's
 * transparency log at the tree of `head.index + 1` entries.
 */
export async function buildReceipt(input: {
  tenantId: string;
  intentId: string;
  decision: string;
  token: string | null;
  entries: AuditEntry[];
  head: { index: number; hash: string };
  signer: JwsSigner;
  jwks: { keys: Record<string, unknown>[] };
  /** The checkpoint note for the tree of `head.index + 1` entries. */
  checkpoint: string;
  /** The inclusion proof of each entry in that tree, in the entries' order. */
  inclusion: { index: number; proof: string[] }[];
  nowMs: number;
}): Promise<Receipt> {
  const sealFields = {
    tenantId: input.tenantId,
    intentId: input.intentId,
    entryHashes: input.entries.map((e) => e.entryHash),
    headIndex: input.head.index,
    headHash: input.head.hash,
    issuedAt: chainTimestamp(input.nowMs),
  };
  const signature = await signCompact(input.signer, canonicalJson(sealFields), 'authority-receipt-seal+jws');
  return {
    receiptVersion: 2,
    intentId: input.intentId,
    tenantId: input.tenantId,
    decision: input.decision,
    token: input.token,
    entries: input.entries,
    seal: { ...sealFields, signature },
    jwks: input.jwks,
    checkpoint: input.checkpoint,
    inclusion: input.inclusion,
  };
}
