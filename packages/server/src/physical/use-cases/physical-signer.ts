/**
 * The physical surface's RS256 signer (contract §9 "Signing"): one key for every tenant, which is
 * why every verifier must check `service.tenantId`.
 *
 * - The key is persisted sealed under the master key (the tenant keys' secret box), so every
 *   instance and every restart signs with the same key. It is created on first use; a partial
 *   unique index admits one ACTIVE key, so two instances starting at once agree on the winner.
 * - Rotation (`authority keys rotate-physical`, or `rotate()`): a new ACTIVE key, the old ACTIVE
 *   becomes PREVIOUS (still published, still verifies), the old PREVIOUS becomes RETIRED. Like the
 *   tenant keys, a rotation is refused (409) while the PREVIOUS key stopped being ACTIVE less than
 *   305 s ago: physical tokens live at most 300 s, so no rotation ever strands a live token.
 * - `PHYSICAL_SIGNER_EPHEMERAL=1` (embedded development only) keeps the keys in process memory:
 *   a restart makes a new key and verifiers holding the old JWKS refresh on the unknown kid.
 * - Signing uses the callback form of `crypto.sign`, which runs on libuv's thread pool, so RSA
 *   work never blocks the event loop.
 */
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { signCompact } from '../../crypto/jws.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import {
  generateSigningKeyPair,
  newKid,
  privateKeyFromPem,
  signJwsInput,
} from '../../crypto/signing-algorithms.js';
import { AppError } from '../../errors/app-error.js';
import { isUniqueViolation } from '../../errors/database-errors.js';
import type { Clock } from '../../foundation/clock.js';
import type { Storage } from '../../storage/database.js';
import type { PhysicalSigningKeysTable } from '../../storage/physical-schema.js';
import { guardPrevious, ROTATION_GUARD_MS } from '../../tokens/signing-keys.js';
import type { PhysicalTokenClaims } from '../domain/index.js';
import { type PhysicalKeyStatus, physicalKeyRepository } from '../repositories/physical-key-repository.js';

/** A physical key as the CLI and the service report it; never the private key. */
export interface PhysicalKeyView {
  kid: string;
  alg: 'RS256';
  bits: number;
  status: PhysicalKeyStatus;
  createdAtMs: number;
  rotatedAtMs: number | null;
  retiredAtMs: number | null;
}

/** One key of `GET /.well-known/jwks.json`. */
export interface PhysicalPublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

export interface PhysicalRotation {
  active: PhysicalKeyView;
  /** The key that was ACTIVE and now is PREVIOUS (null on the very first key). */
  previous: PhysicalKeyView | null;
  /** The key that was PREVIOUS and now is RETIRED. */
  retired: PhysicalKeyView | null;
}

export interface PhysicalSigner {
  /** Whether keys live in process memory only (PHYSICAL_SIGNER_EPHEMERAL=1). */
  readonly ephemeral: boolean;
  /** Signs a physical token's claims with the ACTIVE key (created on first use): compact JWS, kid. */
  sign(claims: PhysicalTokenClaims): Promise<{ token: string; kid: string }>;
  /** ACTIVE and PREVIOUS public keys, with `kid`, `alg: "RS256"` and `use: "sig"`. */
  jwks(): Promise<{ keys: PhysicalPublicJwk[] }>;
  /** New ACTIVE key; ACTIVE → PREVIOUS → RETIRED. 409 within 305 s of the previous rotation. */
  rotate(): Promise<PhysicalRotation>;
  /** The ACTIVE key, creating it on first use. */
  ensureActive(): Promise<PhysicalKeyView>;
  /** Every key, newest first. */
  list(): Promise<PhysicalKeyView[]>;
}

export interface PhysicalSignerDeps {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  /** RSA modulus of keys made from now on. */
  bits: number;
  ephemeral: boolean;
}

type KeyRow = PhysicalSigningKeysTable;

/** Where the key rows live: the database, or (development flag) this process. */
interface KeyStore {
  rows(statuses?: readonly PhysicalKeyStatus[]): Promise<KeyRow[]>;
  /** Inserts the first ACTIVE key unless one exists; the existing or inserted ACTIVE row. */
  insertFirst(row: KeyRow): Promise<KeyRow>;
  /** Demotes ACTIVE and PREVIOUS and inserts `row` as ACTIVE, atomically; the demoted rows. */
  rotate(row: KeyRow, now: number): Promise<{ previous: KeyRow | null; retired: KeyRow | null }>;
}

/** Signer cache lifetime: a rotation on another instance makes the cached key PREVIOUS, which still verifies. */
const SIGNER_CACHE_MS = 5_000;

const newestFirst = (a: KeyRow, b: KeyRow) => b.created_at - a.created_at || (a.kid < b.kid ? 1 : -1);

function byStatus(rows: readonly KeyRow[]) {
  return {
    active: rows.find((row) => row.status === 'ACTIVE') ?? null,
    previous: rows.find((row) => row.status === 'PREVIOUS') ?? null,
  };
}

function databaseStore(storage: Storage): KeyStore {
  const { db } = storage;
  return {
    rows: (statuses) => physicalKeyRepository.list(db, statuses),
    async insertFirst(row) {
      // The partial unique index turns a concurrent first use into a no-op; the winner is read back.
      await physicalKeyRepository.insertIfAbsent(db, row);
      const active = (await physicalKeyRepository.list(db, ['ACTIVE']))[0];
      if (!active) throw new Error('no ACTIVE physical signing key after inserting one');
      return active;
    },
    async rotate(row, now) {
      try {
        return await storage.writeTransaction(async (trx) => {
          const { active, previous } = byStatus(
            await physicalKeyRepository.list(trx, ['ACTIVE', 'PREVIOUS'], { forUpdate: true }),
          );
          guardPrevious(previous?.rotated_at ?? null, now, 'physical key');
          if (previous) await physicalKeyRepository.retire(trx, previous.kid, now);
          if (active) await physicalKeyRepository.demote(trx, active.kid, now);
          await physicalKeyRepository.insert(trx, row);
          return {
            previous: active && { ...active, status: 'PREVIOUS', rotated_at: now },
            retired: previous && { ...previous, status: 'RETIRED', retired_at: now },
          };
        });
      } catch (error) {
        // A concurrent rotation committed first (one ACTIVE key): this one rolled back.
        if (isUniqueViolation(error)) {
          throw new AppError('CONFLICT', 'Another rotation of the physical key happened at the same time', {
            retryAfterSeconds: Math.ceil(ROTATION_GUARD_MS / 1000),
          });
        }
        throw error;
      }
    },
  };
}

function memoryStore(): KeyStore {
  const rows: KeyRow[] = [];
  return {
    async rows(statuses) {
      return rows
        .filter((row) => !statuses || statuses.includes(row.status as PhysicalKeyStatus))
        .sort(newestFirst);
    },
    async insertFirst(row) {
      const existing = byStatus(rows).active;
      if (existing) return existing;
      rows.push(row);
      return row;
    },
    async rotate(row, now) {
      const { active, previous } = byStatus(rows);
      guardPrevious(previous?.rotated_at ?? null, now, 'physical key');
      if (previous) Object.assign(previous, { status: 'RETIRED', retired_at: now });
      if (active) Object.assign(active, { status: 'PREVIOUS', rotated_at: now });
      rows.push(row);
      return { previous: active && { ...active }, retired: previous && { ...previous } };
    },
  };
}

function toView(row: KeyRow): PhysicalKeyView {
  return {
    kid: row.kid,
    alg: 'RS256',
    bits: row.bits,
    status: row.status as PhysicalKeyStatus,
    createdAtMs: row.created_at,
    rotatedAtMs: row.rotated_at,
    retiredAtMs: row.retired_at,
  };
}

const KID_OWNER = 'physical';
/** The context a physical signing key's private key is sealed under. */
export const privateContext = (kid: string) => `physical-signing-key:${kid}`;

export function createPhysicalSigner(deps: PhysicalSignerDeps): PhysicalSigner {
  const { clock, secretBox } = deps;
  const store = deps.ephemeral ? memoryStore() : databaseStore(deps.storage);
  const privateKeys = new Map<string, KeyObject>();
  let cached: { kid: string; key: KeyObject; until: number } | undefined;
  /** One key generation at a time per process: concurrent first uses share it. */
  let creating: Promise<KeyRow> | undefined;

  async function newRow(now: number): Promise<KeyRow> {
    const pair = await generateSigningKeyPair('RS256', { rsaModulusLength: deps.bits });
    const kid = newKid(KID_OWNER, now);
    return {
      kid,
      alg: 'RS256',
      bits: deps.bits,
      status: 'ACTIVE',
      public_jwk: JSON.stringify(pair.publicJwk),
      private_key: secretBox.seal(pair.privateKeyPem, privateContext(kid)),
      created_at: now,
      rotated_at: null,
      retired_at: null,
    };
  }

  async function activeRow(): Promise<KeyRow> {
    const existing = (await store.rows(['ACTIVE']))[0];
    if (existing) return existing;
    creating ??= newRow(clock())
      .then((row) => store.insertFirst(row))
      .finally(() => {
        creating = undefined;
      });
    return creating;
  }

  function privateKeyOf(row: KeyRow): KeyObject {
    let key = privateKeys.get(row.kid);
    if (!key) {
      key = privateKeyFromPem(secretBox.open(row.private_key, privateContext(row.kid)).toString('utf8'));
      privateKeys.set(row.kid, key);
    }
    return key;
  }

  return {
    ephemeral: deps.ephemeral,

    async sign(claims) {
      const now = Date.now();
      if (!cached || cached.until <= now) {
        const row = await activeRow();
        cached = { kid: row.kid, key: privateKeyOf(row), until: now + SIGNER_CACHE_MS };
      }
      const { kid, key } = cached;
      const token = await signCompact(
        { kid, alg: 'RS256', sign: (input) => signJwsInput('RS256', key, input) },
        JSON.stringify(claims),
      );
      return { token, kid };
    },

    async jwks() {
      await activeRow();
      const rows = await store.rows(['ACTIVE', 'PREVIOUS']);
      return {
        keys: rows.map((row) => {
          const { n, e } = JSON.parse(row.public_jwk) as JsonWebKey;
          if (typeof n !== 'string' || typeof e !== 'string')
            throw new Error(`physical key ${row.kid} is not RSA`);
          return { kty: 'RSA' as const, n, e, kid: row.kid, alg: 'RS256' as const, use: 'sig' as const };
        }),
      };
    },

    async rotate() {
      await activeRow();
      const now = clock();
      // Refuse before generating (an RSA-4096 key takes a while); the store checks again atomically.
      guardPrevious(
        byStatus(await store.rows(['PREVIOUS'])).previous?.rotated_at ?? null,
        now,
        'physical key',
      );
      const row = await newRow(now);
      const { previous, retired } = await store.rotate(row, now);
      cached = undefined;
      return {
        active: toView(row),
        previous: previous && toView(previous),
        retired: retired && toView(retired),
      };
    },

    ensureActive: async () => toView(await activeRow()),

    list: async () => (await store.rows()).map(toView),
  };
}
