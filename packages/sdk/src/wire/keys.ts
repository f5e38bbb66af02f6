import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, JsonObject, Nullable } from './common.js';
import { KEY_SOURCES, KEY_STATUSES, PERMISSIONS, ROLES, SECRET_KINDS, SIGNING_ALGS } from './constants.js';

/** Signing keys and secrets (contract §5) and API keys (contract §2). */

export const Role = Type.Enum(ROLES);
export type Role = Static<typeof Role>;
export const Permission = Type.Enum(PERMISSIONS);
export type Permission = Static<typeof Permission>;

/** A tenant signing key; never private material. */
export const SigningKey = Type.Object({
  kid: Type.String({ description: '<tenantId>-<unix seconds>-<8 base32 chars>' }),
  tenantId: Type.String(),
  alg: Type.Enum(SIGNING_ALGS),
  status: Type.Enum(KEY_STATUSES),
  publicJwk: JsonObject,
  createdAt: IsoDateTime,
  rotatedAt: Nullable(IsoDateTime),
  retiredAt: Nullable(IsoDateTime),
  source: Type.Enum(KEY_SOURCES),
  signUrl: Type.Optional(Type.String({ description: 'External keys only' })),
});
export type SigningKey = Static<typeof SigningKey>;

export const SigningKeyList = Type.Object({ keys: Type.Array(SigningKey) });
export type SigningKeyList = Static<typeof SigningKeyList>;

export const AlgorithmRequest = Type.Object({ alg: Type.Enum(SIGNING_ALGS) }, Closed);
export type AlgorithmRequest = Static<typeof AlgorithmRequest>;

/** A customer-managed key: the service signs through `signUrl` (HashiCorp Vault transit `sign` shape). */
export const ExternalKeyRequest = Type.Object(
  {
    kid: Type.String({ maxLength: 200, description: '<tenantId>-<unix seconds>-<8 base32 chars>' }),
    alg: Type.Enum(SIGNING_ALGS),
    publicJwk: JsonObject,
    signUrl: Type.String({ maxLength: 2000 }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 4096 }), {
        maxProperties: 20,
        description: 'Sent to the signer (e.g. X-Vault-Token); stored encrypted, never returned',
      }),
    ),
  },
  Closed,
);
export type ExternalKeyRequest = Static<typeof ExternalKeyRequest>;

/** A rotated evidence or permission secret, shown once. */
export const RotatedSecret = Type.Object({
  secretId: Type.String(),
  secret: Type.String({ description: 'base64url; shown only in this answer' }),
  kind: Type.Enum(SECRET_KINDS),
  createdAt: IsoDateTime,
});
export type RotatedSecret = Static<typeof RotatedSecret>;

export const ApiKeyRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: Role,
    scopes: Type.Optional(
      Type.Array(Permission, { maxItems: 64, description: "A subset of the role's permissions" }),
    ),
    expiresAt: Type.Optional(IsoDateTime),
  },
  Closed,
);
export type ApiKeyRequest = Static<typeof ApiKeyRequest>;

/** A new API key with its secret, shown only in this answer. */
export const IssuedApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: 'service_live_…; shown only in this answer' }),
  displayPrefix: Type.String(),
  role: Role,
  scopes: Nullable(Type.Array(Permission)),
  expiresAt: Nullable(IsoDateTime),
  createdAt: IsoDateTime,
});
export type IssuedApiKey = Static<typeof IssuedApiKey>;

export const ApiKeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  displayPrefix: Type.String(),
  role: Role,
  scopes: Nullable(Type.Array(Permission)),
  expiresAt: Nullable(IsoDateTime),
  createdAt: IsoDateTime,
  lastUsedAt: Nullable(IsoDateTime),
  revokedAt: Nullable(IsoDateTime),
});
export type ApiKeySummary = Static<typeof ApiKeySummary>;

export const ApiKeyList = Type.Object({ keys: Type.Array(ApiKeySummary) });
export type ApiKeyList = Static<typeof ApiKeyList>;
