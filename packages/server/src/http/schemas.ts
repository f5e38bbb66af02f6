import { Type } from 'typebox';
import { PERMISSIONS, ROLES } from '../identity/permissions.js';
import { PLANS } from '../tenancy/tenant.js';

/** Schemas shared by several routes; they validate requests, shape responses and feed /openapi.json. */
export const IsoDateTime = Type.String({ format: 'date-time' });

export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      requestId: Type.String(),
    }),
  },
  { description: 'The error envelope of every non-2xx response' },
);

export const TenantSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Type.Enum(PLANS),
  rateLimitPerMinute: Type.Union([Type.Integer(), Type.Null()]),
  killSwitch: Type.Object({
    enabled: Type.Boolean(),
    reason: Type.Union([Type.String(), Type.Null()]),
    changedBy: Type.Union([Type.String(), Type.Null()]),
    changedAt: Type.Union([IsoDateTime, Type.Null()]),
  }),
  ipAllowlist: Type.Array(Type.String()),
  createdAt: IsoDateTime,
});

export const RoleSchema = Type.Enum(ROLES);
export const PermissionSchema = Type.Enum(PERMISSIONS);

export const IssuedKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: 'The secret; shown only in this response' }),
  displayPrefix: Type.String(),
  role: RoleSchema,
  scopes: Type.Union([Type.Array(PermissionSchema), Type.Null()]),
  expiresAt: Type.Union([IsoDateTime, Type.Null()]),
  createdAt: IsoDateTime,
});

export const KeySummarySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  displayPrefix: Type.String(),
  role: RoleSchema,
  scopes: Type.Union([Type.Array(PermissionSchema), Type.Null()]),
  expiresAt: Type.Union([IsoDateTime, Type.Null()]),
  createdAt: IsoDateTime,
  lastUsedAt: Type.Union([IsoDateTime, Type.Null()]),
  revokedAt: Type.Union([IsoDateTime, Type.Null()]),
});

/** Standard error responses of an authenticated tenant route, for the OpenAPI document. */
export const tenantErrors = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  429: ErrorResponse,
  500: ErrorResponse,
  503: ErrorResponse,
};

export const tenantSecurity: Array<Record<string, string[]>> = [
  { bearer: [] },
  { apiKey: [] },
  { portalSession: [] },
];

/** Claims of an Authority Decision Token (intent document, contract §5). */
export const DecisionTokenClaimsSchema = Type.Object({
  intentId: Type.String(),
  tenantId: Type.String(),
  adapterId: Type.String(),
  adapterTarget: Type.String(),
  targetSystem: Type.String(),
  proposedAction: Type.String(),
  decision: Type.Literal('APPROVED'),
  issuedAt: Type.String(),
  expiresAt: Type.String(),
  nonce: Type.String(),
  iss: Type.String(),
  aud: Type.String(),
  iat: Type.Integer(),
  exp: Type.Integer(),
});

/** A schema that may also be null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** `:id` of a tenant resource; longer values name nothing. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
