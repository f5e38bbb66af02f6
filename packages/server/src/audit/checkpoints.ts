import type { KeyObject } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { chainTimestamp } from '../chain/audit-entry.js';
import { readHead } from '../chain/audit-log.js';
import { canonicalJson } from '../crypto/canonical-json.js';
import { type JwsSigner, parseCompact, signCompact, verifyParsed } from '../crypto/jws.js';
import type { SigningAlg } from '../crypto/signing-algorithms.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';

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

/** True when the checkpoint's JWS verifies under the tenant key it names and states exactly its fields. */
export async function checkpointSignatureValid(
  checkpoint: Checkpoint,
  lookup: PublicKeyLookup,
): Promise<boolean> {
  const parsed = parseCompact(checkpoint.signature);
  if (!parsed || parsed.header.kid !== checkpoint.kid) return false;
  const key = await lookup(checkpoint.kid);
  if (!key || !verifyParsed(parsed, key.alg, key.key)) return false;
  const expected = canonicalJson({
    tenantId: checkpoint.tenantId,
    index: checkpoint.index,
    entryHash: checkpoint.entryHash,
    issuedAt: checkpoint.issuedAt,
  });
  return parsed.payloadText === expected;
}

export async function listCheckpoints(
  db: Kysely<Database>,
  tenantId: string,
  range: { from?: number; to?: number; limit?: number } = {},
): Promise<Checkpoint[]> {
  let query = db.selectFrom('audit_checkpoints').selectAll().where('tenant_id', '=', tenantId);
  if (range.from !== undefined) query = query.where('idx', '>=', range.from);
  if (range.to !== undefined) query = query.where('idx', '<=', range.to);
  if (range.limit !== undefined) query = query.limit(range.limit);
  const rows = await query.orderBy('idx').execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    index: r.idx,
    entryHash: r.entry_hash,
    issuedAt: chainTimestamp(r.issued_at),
    kid: r.kid,
    signature: r.signature,
  }));
}

/**
 * Signs the chain head every CHECKPOINT_EVERY_ENTRIES entries or every interval, whichever comes
 * first. Signing happens outside any transaction; the insert is idempotent per (tenant, index).
 */
export function createCheckpointer(deps: {
  storage: Storage;
  clock: Clock;
  intervalMs: number;
  signer: (tenantId: string) => Promise<JwsSigner>;
}) {
  const { storage, clock } = deps;

  async function checkpoint(tenantId: string, force: boolean): Promise<Checkpoint | undefined> {
    const head = await readHead(storage.db, tenantId);
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
    const signature = await signCompact(signer, canonicalJson(fields), 'authority-checkpoint+jws');
    await storage.writeTransaction(async (trx) => {
      await trx
        .insertInto('audit_checkpoints')
        .values({
          tenant_id: tenantId,
          idx: fields.index,
          entry_hash: fields.entryHash,
          issued_at: now,
          kid: signer.kid,
          signature,
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'idx']).doNothing())
        .execute();
      await trx
        .updateTable('audit_heads')
        .set({ last_checkpoint_index: fields.index, last_checkpoint_at: now })
        .where('tenant_id', '=', tenantId)
        .where('last_checkpoint_index', '<', fields.index)
        .execute();
    });
    return { ...fields, kid: signer.kid, signature };
  }

  return {
    /** Checkpoints the head if one is due (called after appends). */
    maybeCheckpoint: (tenantId: string) => checkpoint(tenantId, false),
    /** Checkpoints the head now if it moved since the last checkpoint. */
    checkpointNow: (tenantId: string) => checkpoint(tenantId, true),
    /** One pass over every tenant with a checkpoint due, by count or by time (run on a short timer). */
    async sweep(): Promise<number> {
      const now = clock();
      const due = await storage.db
        .selectFrom('audit_heads')
        .select('tenant_id')
        .whereRef('last_index', '>', 'last_checkpoint_index')
        .where((eb) =>
          eb.or([
            eb('last_checkpoint_at', '<=', now - deps.intervalMs),
            sql<boolean>`last_index - last_checkpoint_index >= ${CHECKPOINT_EVERY_ENTRIES}`,
          ]),
        )
        .execute();
      let made = 0;
      for (const { tenant_id } of due) if (await checkpoint(tenant_id, false)) made += 1;
      return made;
    },
  };
}

export type Checkpointer = ReturnType<typeof createCheckpointer>;
