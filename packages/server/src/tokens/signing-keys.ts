import type { JsonWebKey, KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import type { JwsSigner } from '../crypto/jws.js';
import type { SecretBox } from '../crypto/secret-box.js';
import {
  generateSigningKeyPair,
  isSigningAlg,
  kidPattern,
  newKid,
  privateKeyFromPem,
  publicKeyFromJwk,
  type SigningAlg,
  signJwsInput,
} from '../crypto/signing-algorithms.js';
import type { EgressClient } from '../egress/egress-client.js';
import { AppError, validationError } from '../errors/app-error.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Principal } from '../identity/principal.js';
import type { Executor, Storage } from '../storage/database.js';
import type { SigningKeysTable } from '../storage/schema.js';
import { signExternally } from './external-signer.js';
import { type KeyStatus, signingKeyRepository } from './signing-key-repository.js';

/** A key as the API lists it (contract §5); never the private key, the sign URL's headers, nor secrets. */
export interface SigningKeyView {
  kid: string;
  tenantId: string;
  alg: SigningAlg;
  status: KeyStatus;
  publicJwk: JsonWebKey;
  createdAt: string;
  rotatedAt: string | null;
  retiredAt: string | null;
  source: 'local' | 'external';
  signUrl?: string;
}

export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: SigningAlg;
  use: 'sig';
}

/** A rotation may not demote a key that stopped being ACTIVE less than this long ago (token TTL + skew). */
export const ROTATION_GUARD_MS = 305_000;

export interface ExternalKeyRequest {
  kid: string;
  alg: string;
  publicJwk: Record<string, unknown>;
  signUrl: string;
  headers?: Record<string, string> | undefined;
}

export interface SigningKeyService {
  /** The tenant's ACTIVE key, creating an EdDSA one on first use. */
  ensureActive(tenantId: string): Promise<SigningKeyView>;
  list(tenantId: string): Promise<SigningKeyView[]>;
  /** New ACTIVE key (of `alg`, default the current key's); ACTIVE → PREVIOUS → RETIRED; audited. */
  rotate(tenantId: string, principal: Principal, alg?: SigningAlg): Promise<SigningKeyView>;
  registerExternal(
    tenantId: string,
    principal: Principal,
    request: ExternalKeyRequest,
  ): Promise<SigningKeyView>;
  /** ACTIVE and PREVIOUS public keys: the keys that verify tokens. */
  jwks(tenantId: string): Promise<{ keys: PublicJwk[] }>;
  /** RETIRED public keys, kept for receipts and checkpoints. */
  archive(tenantId: string): Promise<{ keys: PublicJwk[] }>;
  /**
   * Every public key of the tenant, whatever its status, in one read (a receipt embeds them: read
   * as jwks then archive, a rotation between the two would list a key twice or not at all).
   */
  allPublicKeys(tenantId: string): Promise<{ keys: PublicJwk[] }>;
  /** A signer bound to the ACTIVE key; signing never happens inside a database transaction. */
  signer(tenantId: string): Promise<JwsSigner>;
  /** The public key of any kid of the tenant (any status), for verifying the tenant's own records. */
  publicKey(
    tenantId: string,
    kid: string,
  ): Promise<{ alg: SigningAlg; key: KeyObject; status: KeyStatus } | undefined>;
}

export interface SigningKeyDeps {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  egress: EgressClient;
  externalSignerTimeoutMs: number;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function toView(row: SigningKeysTable): SigningKeyView {
  const view: SigningKeyView = {
    kid: row.kid,
    tenantId: row.tenant_id,
    alg: row.alg as SigningAlg,
    status: row.status as KeyStatus,
    publicJwk: JSON.parse(row.public_jwk) as JsonWebKey,
    createdAt: new Date(row.created_at).toISOString(),
    rotatedAt: iso(row.rotated_at),
    retiredAt: iso(row.retired_at),
    source: row.source as 'local' | 'external',
  };
  if (row.sign_url !== null) view.signUrl = row.sign_url;
  return view;
}

function toPublicJwk(view: SigningKeyView): PublicJwk {
  return { ...view.publicJwk, kid: view.kid, alg: view.alg, use: 'sig' };
}

/**
 * 409 while the PREVIOUS key stopped being ACTIVE less than 305 s ago (its tokens may be live);
 * `label` names the key in the message ("key", "physical key").
 */
export function guardPrevious(rotatedAt: number | null, now: number, label = 'key'): void {
  if (rotatedAt === null || now - rotatedAt >= ROTATION_GUARD_MS) return;
  const retryAfterSeconds = Math.ceil((ROTATION_GUARD_MS - (now - rotatedAt)) / 1000);
  throw new AppError(
    'CONFLICT',
    `The previous ${label} may still have live tokens; rotate again in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/** The context a tenant signing key's private key is sealed under. */
export const privateContext = (tenantId: string, kid: string) => `signing-key:${tenantId}:${kid}`;
const headersContext = (tenantId: string, kid: string) => `signer-headers:${tenantId}:${kid}`;

export function createSigningKeyService(deps: SigningKeyDeps): SigningKeyService {
  const { storage, clock, secretBox } = deps;
  const db = storage.db;
  /** Decrypted private keys and parsed public keys by kid; keys never change once written. */
  const privateKeys = new Map<string, KeyObject>();
  /**
   * The ACTIVE signer per tenant, for at most 5 s: a rotation elsewhere makes this key PREVIOUS,
   * which still verifies for at least 305 s, so a briefly stale signer never yields a bad token.
   */
  const signers = new LRUCache<string, JwsSigner>({ max: 10_000, ttl: 5_000 });
  const publicKeys = new Map<string, KeyObject>();

  const rows = (tenantId: string, statuses?: KeyStatus[]) =>
    signingKeyRepository.list(db, tenantId, statuses);

  async function activeRow(tenantId: string): Promise<SigningKeysTable | undefined> {
    return (await rows(tenantId, ['ACTIVE']))[0];
  }

  async function newLocalKeyRow(tenantId: string, alg: SigningAlg, now: number): Promise<SigningKeysTable> {
    const pair = await generateSigningKeyPair(alg);
    const kid = newKid(tenantId, now);
    return {
      tenant_id: tenantId,
      kid,
      alg,
      status: 'ACTIVE',
      public_jwk: JSON.stringify(pair.publicJwk),
      private_key: secretBox.seal(pair.privateKeyPem, privateContext(tenantId, kid)),
      source: 'local',
      sign_url: null,
      sign_headers: null,
      created_at: now,
      rotated_at: null,
      retired_at: null,
    };
  }

  /** Demotes the current keys and inserts the new ACTIVE one, in the caller's transaction. */
  async function installActive(trx: Executor, row: SigningKeysTable, principal: Principal, now: number) {
    const current = await signingKeyRepository.list(trx, row.tenant_id, ['ACTIVE', 'PREVIOUS']);
    const previous = current.find((k) => k.status === 'PREVIOUS');
    const active = current.find((k) => k.status === 'ACTIVE');
    if (previous) {
      guardPrevious(previous.rotated_at, now);
      await signingKeyRepository.retire(trx, row.tenant_id, previous.kid, now);
    }
    if (active) await signingKeyRepository.demote(trx, row.tenant_id, active.kid, now);
    await signingKeyRepository.insert(trx, row);
    await chainRepository.append(
      trx,
      row.tenant_id,
      [
        principalEvent(principal, 'keys.rotated', {
          kid: row.kid,
          alg: row.alg,
          source: row.source,
          previousKid: active?.kid ?? null,
          retiredKid: previous?.kid ?? null,
        }),
      ],
      now,
    );
  }

  async function assertRotationAllowed(tenantId: string, now: number): Promise<void> {
    const previous = (await rows(tenantId, ['PREVIOUS']))[0];
    if (previous) guardPrevious(previous.rotated_at, now);
  }

  async function rotateTo(row: SigningKeysTable, principal: Principal, now: number): Promise<SigningKeyView> {
    try {
      await storage.writeTransaction((trx) => installActive(trx, row, principal, now));
    } catch (error) {
      // A concurrent rotation committed first (one ACTIVE key per tenant): this one rolled back, and
      // the guard now applies to the winner's PREVIOUS key.
      if (isUniqueViolation(error)) {
        throw new AppError('CONFLICT', 'Another rotation happened at the same time; rotate again later', {
          retryAfterSeconds: Math.ceil(ROTATION_GUARD_MS / 1000),
        });
      }
      throw error;
    }
    signers.delete(row.tenant_id);
    return toView(row);
  }

  function publicKeyOf(row: SigningKeysTable): KeyObject {
    let key = publicKeys.get(row.kid);
    if (!key) {
      key = publicKeyFromJwk(row.alg as SigningAlg, JSON.parse(row.public_jwk) as JsonWebKey);
      publicKeys.set(row.kid, key);
    }
    return key;
  }

  async function buildSigner(tenantId: string): Promise<JwsSigner> {
    let row = await activeRow(tenantId);
    if (!row) {
      await service.ensureActive(tenantId);
      row = await activeRow(tenantId);
    }
    if (!row) throw new Error(`tenant ${tenantId} has no ACTIVE signing key`);
    const alg = row.alg as SigningAlg;
    const kid = row.kid;
    if (row.source === 'external') {
      const target = {
        signUrl: row.sign_url ?? '',
        headers: JSON.parse(
          secretBox.open(row.sign_headers ?? '', headersContext(tenantId, kid)).toString('utf8'),
        ) as Record<string, string>,
        alg,
        publicKey: publicKeyOf(row),
      };
      return {
        kid,
        alg,
        sign: (input) => signExternally(deps.egress, target, input, deps.externalSignerTimeoutMs),
      };
    }
    let privateKey = privateKeys.get(kid);
    if (!privateKey) {
      privateKey = privateKeyFromPem(
        secretBox.open(row.private_key ?? '', privateContext(tenantId, kid)).toString('utf8'),
      );
      privateKeys.set(kid, privateKey);
    }
    const key = privateKey;
    return { kid, alg, sign: (input) => signJwsInput(alg, key, input) };
  }

  const service: SigningKeyService = {
    async ensureActive(tenantId) {
      const existing = await activeRow(tenantId);
      if (existing) return toView(existing);
      const now = clock();
      const row = await newLocalKeyRow(tenantId, 'EdDSA', now);
      try {
        await signingKeyRepository.insert(db, row);
        return toView(row);
      } catch (error) {
        // Another request created the first key at the same moment: use theirs.
        if (!isUniqueViolation(error)) throw error;
        const winner = await activeRow(tenantId);
        if (!winner) throw error;
        return toView(winner);
      }
    },

    async list(tenantId) {
      await service.ensureActive(tenantId);
      return (await rows(tenantId)).map(toView);
    },

    async rotate(tenantId, principal, alg) {
      const current = await service.ensureActive(tenantId);
      const now = clock();
      // Refuse early: generating an RSA-4096 key takes a second; the transaction checks again.
      await assertRotationAllowed(tenantId, now);
      return rotateTo(await newLocalKeyRow(tenantId, alg ?? current.alg, now), principal, now);
    },

    async registerExternal(tenantId, principal, request) {
      const issues: { path: string; message: string }[] = [];
      if (!kidPattern(tenantId).test(request.kid)) {
        issues.push({
          path: '/kid',
          message: `kid must be ${tenantId}-<unix seconds>-<8 base32 characters>`,
        });
      }
      if (!isSigningAlg(request.alg))
        issues.push({ path: '/alg', message: 'alg must be EdDSA, RS256 or ES256' });
      let publicKey: KeyObject | undefined;
      if (isSigningAlg(request.alg)) {
        try {
          if (PRIVATE_JWK_MEMBERS.some((member) => member in request.publicJwk)) {
            throw new Error('it contains private key material; send only the public key');
          }
          publicKey = publicKeyFromJwk(request.alg, request.publicJwk as JsonWebKey);
        } catch (error) {
          issues.push({
            path: '/publicJwk',
            message: `publicJwk is not a usable ${request.alg} public key: ${(error as Error).message}`,
          });
        }
      }
      let signUrl: URL | undefined;
      try {
        signUrl = new URL(request.signUrl);
        if (signUrl.protocol !== 'https:' && signUrl.protocol !== 'http:') throw new Error('protocol');
      } catch {
        issues.push({ path: '/signUrl', message: 'signUrl must be an http(s) URL' });
      }
      if (issues.length > 0 || !publicKey || !signUrl || !isSigningAlg(request.alg))
        throw validationError(issues);
      const alg = request.alg;
      const headers = request.headers ?? {};
      await assertRotationAllowed(tenantId, clock());
      // Prove the signer works before it becomes the tenant's only way to sign.
      try {
        await signExternally(
          deps.egress,
          { signUrl: signUrl.toString(), headers, alg, publicKey },
          Buffer.from(`authority-runtime signer check ${request.kid}`),
          deps.externalSignerTimeoutMs,
        );
      } catch (error) {
        throw validationError([
          { path: '/signUrl', message: `the signer check failed: ${(error as Error).message}` },
        ]);
      }
      const existing = await signingKeyRepository.get(db, tenantId, request.kid);
      if (existing) throw new AppError('CONFLICT', `kid ${request.kid} is already registered`);
      await service.ensureActive(tenantId);
      const now = clock();
      const exported = publicKey.export({ format: 'jwk' });
      return rotateTo(
        {
          tenant_id: tenantId,
          kid: request.kid,
          alg,
          status: 'ACTIVE',
          public_jwk: JSON.stringify(exported),
          private_key: null,
          source: 'external',
          sign_url: signUrl.toString(),
          sign_headers: secretBox.seal(JSON.stringify(headers), headersContext(tenantId, request.kid)),
          created_at: now,
          rotated_at: null,
          retired_at: null,
        },
        principal,
        now,
      );
    },

    async jwks(tenantId) {
      await service.ensureActive(tenantId);
      return { keys: (await rows(tenantId, ['ACTIVE', 'PREVIOUS'])).map((r) => toPublicJwk(toView(r))) };
    },

    async archive(tenantId) {
      return { keys: (await rows(tenantId, ['RETIRED'])).map((r) => toPublicJwk(toView(r))) };
    },

    async allPublicKeys(tenantId) {
      return { keys: (await rows(tenantId)).map((r) => toPublicJwk(toView(r))) };
    },

    async signer(tenantId) {
      const cached = signers.get(tenantId);
      if (cached) return cached;
      const built = await buildSigner(tenantId);
      signers.set(tenantId, built);
      return built;
    },

    async publicKey(tenantId, kid) {
      const row = await signingKeyRepository.get(db, tenantId, kid);
      if (!row) return undefined;
      return { alg: row.alg as SigningAlg, key: publicKeyOf(row), status: row.status as KeyStatus };
    },
  };
  return service;
}
