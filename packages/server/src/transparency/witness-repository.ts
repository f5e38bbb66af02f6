import { clipText } from '../foundation/text.js';
import type { Executor } from '../storage/database.js';
import type { AuditWitnessesTable } from '../storage/witness-schema.js';

/** A witness as configured (contract §15). */
export interface WitnessSetting {
  name: string;
  url: string;
  verifierKey: string;
}

/** A tenant's witnesses, in configuration order, and the quorum. */
export interface WitnessSet {
  quorum: number;
  witnesses: AuditWitnessesTable[];
}

/** A cosignature a witness returned, verified, for the checkpoint of `treeSize` and `rootHash` (hex). */
export interface CosignatureRecord {
  treeSize: number;
  rootHash: string;
  signatureLine: string;
  at: number;
}

/** `audit_witness_sets`, `audit_witnesses`, `audit_witness_cosignatures`: each tenant's log witnesses. */
export const witnessRepository = {
  /**
   * Replaces the tenant's witness set. A witness kept under the same name and verifier key keeps
   * its push state and cosignatures; one removed or given another key loses both.
   */
  async replace(
    trx: Executor,
    tenantId: string,
    setting: { quorum: number; witnesses: readonly WitnessSetting[] },
    now: number,
  ): Promise<void> {
    await trx
      .insertInto('audit_witness_sets')
      .values({ tenant_id: tenantId, quorum: setting.quorum, updated_at: now })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ quorum: setting.quorum, updated_at: now }))
      .execute();
    const existing = await trx
      .selectFrom('audit_witnesses')
      .select(['name', 'verifier_key'])
      .where('tenant_id', '=', tenantId)
      .execute();
    const kept = new Map(setting.witnesses.map((w) => [w.name, w.verifierKey]));
    const dropped = existing.filter((row) => kept.get(row.name) !== row.verifier_key).map((row) => row.name);
    if (dropped.length > 0) {
      await trx
        .deleteFrom('audit_witness_cosignatures')
        .where('tenant_id', '=', tenantId)
        .where('witness_name', 'in', dropped)
        .execute();
      await trx
        .deleteFrom('audit_witnesses')
        .where('tenant_id', '=', tenantId)
        .where('name', 'in', dropped)
        .execute();
    }
    const remaining = new Set(existing.map((row) => row.name).filter((name) => !dropped.includes(name)));
    for (const [position, witness] of setting.witnesses.entries()) {
      if (remaining.has(witness.name)) {
        await trx
          .updateTable('audit_witnesses')
          .set({ position, url: witness.url, updated_at: now })
          .where('tenant_id', '=', tenantId)
          .where('name', '=', witness.name)
          .execute();
        continue;
      }
      await trx
        .insertInto('audit_witnesses')
        .values({
          tenant_id: tenantId,
          name: witness.name,
          position,
          url: witness.url,
          verifier_key: witness.verifierKey,
          cosigned_size: 0,
          cosigned_root: null,
          attempts: 0,
          next_attempt_at: now,
          last_error: null,
          updated_at: now,
        })
        .execute();
    }
  },

  /** The tenant's witness set, or undefined when none was ever configured. */
  async get(db: Executor, tenantId: string): Promise<WitnessSet | undefined> {
    const set = await db
      .selectFrom('audit_witness_sets')
      .select('quorum')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!set) return undefined;
    const witnesses = await db
      .selectFrom('audit_witnesses')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('position')
      .execute();
    return { quorum: set.quorum, witnesses };
  },

  /** Tenants after `after` (by id) with a witness whose next push may be tried now, at most `limit`. */
  async dueTenants(db: Executor, now: number, limit: number, after = ''): Promise<string[]> {
    const rows = await db
      .selectFrom('audit_witnesses')
      .select('tenant_id')
      .distinct()
      .where('next_attempt_at', '<=', now)
      .where('tenant_id', '>', after)
      .orderBy('tenant_id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.tenant_id);
  },

  /**
   * Records a verified cosignature and moves the witness's cosigned size forward (never back),
   * provided the witness still has `verifierKey`; false when it was removed or rekeyed meanwhile.
   */
  async recordCosignature(
    trx: Executor,
    tenantId: string,
    witness: { name: string; verifierKey: string },
    cosignature: CosignatureRecord,
  ): Promise<boolean> {
    const updated = await trx
      .updateTable('audit_witnesses')
      .set({
        cosigned_size: cosignature.treeSize,
        cosigned_root: cosignature.rootHash,
        attempts: 0,
        next_attempt_at: cosignature.at,
        last_error: null,
        updated_at: cosignature.at,
      })
      .where('tenant_id', '=', tenantId)
      .where('name', '=', witness.name)
      .where('verifier_key', '=', witness.verifierKey)
      .where('cosigned_size', '<=', cosignature.treeSize)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    const row = {
      tenant_id: tenantId,
      tree_size: cosignature.treeSize,
      witness_name: witness.name,
      root_hash: cosignature.rootHash,
      signature_line: cosignature.signatureLine,
      cosigned_at: cosignature.at,
    };
    await trx
      .insertInto('audit_witness_cosignatures')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'tree_size', 'witness_name']).doUpdateSet({
          root_hash: row.root_hash,
          signature_line: row.signature_line,
          cosigned_at: row.cosigned_at,
        }),
      )
      .execute();
    return true;
  },

  /** Records a failed push: the error, the attempts so far and when to try again. */
  async recordFailure(
    db: Executor,
    tenantId: string,
    name: string,
    failure: { attempts: number; nextAttemptAt: number; error: string; now: number },
  ): Promise<void> {
    await db
      .updateTable('audit_witnesses')
      .set({
        attempts: failure.attempts,
        next_attempt_at: failure.nextAttemptAt,
        last_error: clipText(failure.error, 500),
        updated_at: failure.now,
      })
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .execute();
  },

  /**
   * The cosignature lines of the tenant's current witnesses for the checkpoint of `treeSize` with
   * root `rootHash` (hex), in configuration order.
   */
  async cosignatureLines(
    db: Executor,
    tenantId: string,
    treeSize: number,
    rootHash: string,
  ): Promise<string[]> {
    const rows = await db
      .selectFrom('audit_witness_cosignatures as c')
      .innerJoin('audit_witnesses as w', (join) =>
        join.onRef('w.tenant_id', '=', 'c.tenant_id').onRef('w.name', '=', 'c.witness_name'),
      )
      .select('c.signature_line')
      .where('c.tenant_id', '=', tenantId)
      .where('c.tree_size', '=', treeSize)
      .where('c.root_hash', '=', rootHash)
      .orderBy('w.position')
      .execute();
    return rows.map((row) => row.signature_line);
  },
};
