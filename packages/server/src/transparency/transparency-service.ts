import { randomBytes } from 'node:crypto';
import {
  ed25519NoteSigner,
  formatCheckpoint,
  hashToHex,
  type NoteSigner,
  parseVerifierKey,
  planConsistencyProof,
  planInclusionProof,
  planTreeHash,
  signNote,
} from '@authority-runtime/sdk';
import { chainRepository } from '../chain/chain-repository.js';
import { subtreeHashRepository } from '../chain/subtree-hash-repository.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { validationError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';
import { logCheckpointRepository } from './log-checkpoint-repository.js';
import { logKeyRepository, type StoredLogKey } from './log-key-repository.js';
import { witnessRepository } from './witness-repository.js';

/** A tenant's log key ready to sign: its origin (the key's name), verifier key text and signer. */
export interface LogKey {
  origin: string;
  verifierKey: string;
  signer: NoteSigner;
}

export interface InclusionProof {
  index: number;
  treeSize: number;
  leafHash: string;
  proof: string[];
}

export interface ConsistencyProof {
  from: number;
  to: number;
  proof: string[];
}

/**
 * Told, synchronously, of every checkpoint note this service signs and stores (on the cadence, on
 * demand, for a receipt). It must return at once and never throw: it runs in the signing request.
 */
export type CheckpointSignedListener = (tenantId: string, treeSize: number) => void;

const sealContext = (tenantId: string) => `log-key:${tenantId}`;

/** A 400 naming the query parameter, as contract §15 asks for every refused proof request. */
function badParameter(name: string, message: string): Error {
  return validationError([{ path: `querystring/${name}`, message }], `querystring/${name}: ${message}`);
}

/**
 * The transparency log of each tenant's chain (contract §15): the log key, the signed checkpoint
 * notes and the proofs, all answered from the subtree hashes the appends store.
 */
export function createTransparencyService(deps: {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  /** `<host of PUBLIC_BASE_URL>` or LOG_ORIGIN_PREFIX. */
  originPrefix: string;
}) {
  const { storage, clock, secretBox } = deps;
  const signedListeners = new Set<CheckpointSignedListener>();

  function toLogKey(stored: StoredLogKey): LogKey {
    const seed = secretBox.open(stored.sealedSeed, sealContext(stored.tenantId));
    const signer = ed25519NoteSigner({ name: stored.origin, seed: new Uint8Array(seed) });
    return { origin: stored.origin, verifierKey: signer.verifierKey, signer };
  }

  /** The tenant's log key, created on first use; its origin is fixed then. The tenant must exist. */
  async function logKey(tenantId: string): Promise<LogKey> {
    const existing = await logKeyRepository.get(storage.db, tenantId);
    if (existing) return toLogKey(existing);
    const origin = `${deps.originPrefix}/audit/${tenantId}`;
    const seed = randomBytes(32);
    const signer = ed25519NoteSigner({ name: origin, seed: new Uint8Array(seed) });
    await logKeyRepository.insertIfAbsent(storage.db, {
      tenantId,
      origin,
      publicKey: Buffer.from(parseVerifierKey(signer.verifierKey).publicKey).toString('base64'),
      sealedSeed: secretBox.seal(seed, sealContext(tenantId)),
      createdAt: clock(),
    });
    seed.fill(0);
    const stored = await logKeyRepository.get(storage.db, tenantId);
    if (!stored) throw new Error(`the log key of ${tenantId} could not be stored`);
    return toLogKey(stored);
  }

  /** The number of entries in the chain, with the tree brought up to it first when it lags. */
  async function treeSize(tenantId: string): Promise<number> {
    const head = await chainRepository.head(storage.db, tenantId);
    if (!head) return 0;
    if (head.tree.treeSize === head.lastIndex + 1) return head.tree.treeSize;
    const synced = await storage.writeTransaction((trx) => chainRepository.syncTree(trx, tenantId, clock()));
    return synced.tree.treeSize;
  }

  /** The note for the tree of `size` leaves (size ≤ the chain length): the stored one, or a new one. */
  async function noteAt(tenantId: string, size: number): Promise<string> {
    const stored = await logCheckpointRepository.atSize(storage.db, tenantId, size);
    if (stored) return stored.note;
    const key = await logKey(tenantId);
    const plan = planTreeHash(size);
    const rootHash = plan.assemble(await subtreeHashRepository.read(storage.db, tenantId, plan.addresses));
    const note = signNote(formatCheckpoint({ origin: key.origin, size, rootHash }), [key.signer]);
    await logCheckpointRepository.insertIfAbsent(storage.db, {
      tenantId,
      treeSize: size,
      rootHash: hashToHex(rootHash),
      note,
      createdAt: clock(),
    });
    for (const listener of signedListeners) listener(tenantId, size);
    return (await logCheckpointRepository.atSize(storage.db, tenantId, size))?.note ?? note;
  }

  return {
    /**
     * Calls `listener` after each note this service signs and stores (the witness pusher pushes it
     * at once, contract §15); returns the function that stops the calls.
     */
    onCheckpointSigned(listener: CheckpointSignedListener): () => void {
      signedListeners.add(listener);
      return () => {
        signedListeners.delete(listener);
      };
    },

    /** The verifier key text `<origin>+<key ID>+<base64(0x01 ‖ public key)>`. */
    async verifierKey(tenantId: string): Promise<string> {
      return (await logKey(tenantId)).verifierKey;
    },

    /**
     * The note of the current chain length, signed now when the latest does not cover the head,
     * followed by the cosignature lines its witnesses gave that tree (contract §15), in the order
     * the witnesses are configured.
     */
    async checkpoint(tenantId: string): Promise<string> {
      const size = await treeSize(tenantId);
      const latest = await logCheckpointRepository.latest(storage.db, tenantId);
      const note = latest?.treeSize === size ? latest.note : await noteAt(tenantId, size);
      const stored =
        latest?.treeSize === size ? latest : await logCheckpointRepository.atSize(storage.db, tenantId, size);
      if (stored === undefined) return note;
      const cosignatures = await witnessRepository.cosignatureLines(
        storage.db,
        tenantId,
        size,
        stored.rootHash,
      );
      return note + cosignatures.join('');
    },

    /** The note of the tree of exactly `size` leaves (receipts sign the intent's head). */
    async checkpointAt(tenantId: string, size: number): Promise<string> {
      if (size > (await treeSize(tenantId))) throw new RangeError(`the chain has fewer than ${size} entries`);
      return noteAt(tenantId, size);
    },

    async inclusionProof(tenantId: string, index: number, size: number): Promise<InclusionProof> {
      const length = await treeSize(tenantId);
      if (size < 1 || size > length) {
        throw badParameter('treeSize', `must be between 1 and the chain length ${length}`);
      }
      if (index >= size) throw badParameter('index', `must be below treeSize ${size}`);
      const plan = planInclusionProof(index, size);
      const hashes = await subtreeHashRepository.read(storage.db, tenantId, [
        { level: 0, index },
        ...plan.addresses,
      ]);
      const [leaf, ...path] = hashes as [Uint8Array, ...Uint8Array[]];
      return { index, treeSize: size, leafHash: hashToHex(leaf), proof: plan.assemble(path).map(hashToHex) };
    },

    async consistencyProof(tenantId: string, from: number, to: number): Promise<ConsistencyProof> {
      const length = await treeSize(tenantId);
      if (to < 1 || to > length) throw badParameter('to', `must be between 1 and the chain length ${length}`);
      if (from < 1 || from > to) throw badParameter('from', `must be between 1 and to (${to})`);
      const plan = planConsistencyProof(from, to);
      const hashes = await subtreeHashRepository.read(storage.db, tenantId, plan.addresses);
      return { from, to, proof: plan.assemble(hashes).map(hashToHex) };
    },
  };
}

export type TransparencyService = ReturnType<typeof createTransparencyService>;
