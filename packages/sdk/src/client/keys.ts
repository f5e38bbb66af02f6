import type { Jwks } from '../wire/audit.js';
import type { SecretKind } from '../wire/constants.js';
import type {
  AlgorithmRequest,
  ApiKeyRequest,
  ApiKeySummary,
  ExternalKeyRequest,
  IssuedApiKey,
  RotatedSecret,
  SigningKey,
} from '../wire/keys.js';
import { WIRE_ROUTES as R } from '../wire/routes.js';
import { Resource } from './resource.js';
import type { CallOptions } from './transport.js';

/** Signing keys, secrets and the public key sets (contract §5) and API keys (contract §2). */
export class KeysResource extends Resource {
  /**
   * `GET /authority/keys`: the tenant's signing keys with their statuses.
   *
   * @example
   * ```ts
   * const active = (await client.keys.signingKeys()).find((k) => k.status === 'ACTIVE');
   * ```
   */
  async signingKeys(options?: CallOptions): Promise<SigningKey[]> {
    const list = await this.expect<{ keys: SigningKey[] }>({
      route: R.listSigningKeys,
      retry: 'safe',
      options,
    });
    return list.keys;
  }

  /**
   * `POST /authority/keys/rotate`: a new ACTIVE key (409 within 305 s of the previous rotation).
   *
   * @example
   * ```ts
   * const key = await client.keys.rotate();
   * ```
   */
  rotate(options?: CallOptions): Promise<SigningKey> {
    return this.expect({ route: R.rotateSigningKey, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `PUT /authority/keys/algorithm`: rotate at once to a key of another algorithm.
   *
   * @example
   * ```ts
   * await client.keys.setAlgorithm({ alg: 'ES256' });
   * ```
   */
  setAlgorithm(request: AlgorithmRequest, options?: CallOptions): Promise<SigningKey> {
    // A PUT, but each call rotates: a repetition would meet the rotation guard, so it is not retried.
    return this.expect({ route: R.setSigningAlgorithm, body: request, retry: 'unprocessed', options });
  }

  /**
   * `POST /authority/keys/external`: register a customer-managed key (Vault transit `sign`); it becomes ACTIVE.
   *
   * @example
   * ```ts
   * await client.keys.registerExternal({ kid, alg: 'EdDSA', publicJwk, signUrl, headers: { 'X-Vault-Token': token } });
   * ```
   */
  registerExternal(request: ExternalKeyRequest, options?: CallOptions): Promise<SigningKey> {
    return this.expect({ route: R.registerExternalKey, body: request, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `POST /authority/secrets/{evidence|permission}/rotate`: a new HMAC secret, shown once.
   *
   * @example
   * ```ts
   * const { secretId, secret } = await client.keys.rotateSecret('evidence');
   * ```
   */
  rotateSecret(kind: SecretKind, options?: CallOptions): Promise<RotatedSecret> {
    const route = kind === 'evidence' ? R.rotateEvidenceSecret : R.rotatePermissionSecret;
    return this.expect({ route, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `GET /.well-known/authority/:tenantId/jwks.json`: the keys that verify tokens (public).
   *
   * @example
   * ```ts
   * import { staticJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
   *
   * const jwks = staticJwks(await client.keys.jwks());
   * ```
   */
  jwks(options?: CallOptions): Promise<Jwks> {
    return this.expect({
      route: R.getTenantJwks,
      params: { tenantId: this.tenantId },
      retry: 'safe',
      options,
    });
  }

  /**
   * `GET /.well-known/authority/:tenantId/jwks-archive.json`: RETIRED keys, for old receipts (public).
   *
   * @example
   * ```ts
   * const [current, archive] = await Promise.all([client.keys.jwks(), client.keys.jwksArchive()]);
   * const pinned = { keys: [...current.keys, ...archive.keys] };
   * ```
   */
  jwksArchive(options?: CallOptions): Promise<Jwks> {
    const params = { tenantId: this.tenantId };
    return this.expect({ route: R.getTenantJwksArchive, params, retry: 'safe', options });
  }

  /**
   * `POST /keys`: a new API key; the secret `key` is in this answer only.
   *
   * @example
   * ```ts
   * const { key } = await client.keys.createApiKey({ name: 'deploy-bot', role: 'agent' });
   * ```
   */
  createApiKey(request: ApiKeyRequest, options?: CallOptions): Promise<IssuedApiKey> {
    return this.expect({ route: R.createApiKey, body: request, retry: 'unprocessed', options }, [201]);
  }

  /**
   * `GET /keys`: the tenant's API keys (never the secrets).
   *
   * @example
   * ```ts
   * const keys = await client.keys.apiKeys();
   * ```
   */
  async apiKeys(options?: CallOptions): Promise<ApiKeySummary[]> {
    const list = await this.expect<{ keys: ApiKeySummary[] }>({
      route: R.listApiKeys,
      retry: 'safe',
      options,
    });
    return list.keys;
  }

  /**
   * `DELETE /keys/:id`: revoke an API key (idempotent).
   *
   * @example
   * ```ts
   * await client.keys.revokeApiKey(keyId);
   * ```
   */
  async revokeApiKey(keyId: string, options?: CallOptions): Promise<void> {
    await this.expect({ route: R.revokeApiKey, params: { id: keyId }, retry: 'safe', options }, [204]);
  }
}
