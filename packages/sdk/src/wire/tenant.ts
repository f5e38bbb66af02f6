import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable, TenantId } from './common.js';
import { PLANS } from './constants.js';
import { IssuedApiKey, Role } from './keys.js';

/** Tenants, the IP allowlist, operator (admin) and console (portal) routes, health (contract §2, §10). */

export const Tenant = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Type.Enum(PLANS),
  rateLimitPerMinute: Nullable(Type.Integer()),
  killSwitch: Type.Object({
    enabled: Type.Boolean(),
    reason: Nullable(Type.String()),
    changedBy: Nullable(Type.String()),
    changedAt: Nullable(IsoDateTime),
  }),
  ipAllowlist: Type.Array(Type.String({ description: 'CIDR' })),
  createdAt: IsoDateTime,
});
export type Tenant = Static<typeof Tenant>;

/** `PUT /tenant/ip-allowlist`: addresses or CIDR blocks; empty allows all; never one that excludes the caller. */
export const IpAllowlistRequest = Type.Object(
  { cidrs: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }) },
  Closed,
);
export type IpAllowlistRequest = Static<typeof IpAllowlistRequest>;

export const TenantCreateRequest = Type.Object(
  {
    id: TenantId,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    plan: Type.Enum(PLANS),
    rateLimitPerMinute: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Required for enterprise' }),
    ),
  },
  Closed,
);
export type TenantCreateRequest = Static<typeof TenantCreateRequest>;

export const TenantCreated = Type.Object({ tenant: Tenant, ownerKey: IssuedApiKey });
export type TenantCreated = Static<typeof TenantCreated>;

export const TenantUpdateRequest = Type.Object(
  {
    plan: Type.Optional(Type.Enum(PLANS)),
    rateLimitPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  Closed,
);
export type TenantUpdateRequest = Static<typeof TenantUpdateRequest>;

export const PortalLoginRequest = Type.Object(
  {
    tenantId: TenantId,
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  Closed,
);
export type PortalLoginRequest = Static<typeof PortalLoginRequest>;

export const PortalSession = Type.Object({
  sessionId: Type.String({ description: 'Send as x-portal-session-id; shown only here' }),
  mfaRequired: Type.Boolean({ description: 'The session must pass POST /portal/mfa first' }),
  mfaEnrolled: Type.Boolean(),
  expiresAt: IsoDateTime,
  user: Type.Object({ id: Type.String(), email: Type.String(), role: Role }),
});
export type PortalSession = Static<typeof PortalSession>;

export const MfaEnrollment = Type.Object({
  otpauthUri: Type.String(),
  secret: Type.String({ description: 'The same secret in base32, for manual entry' }),
});
export type MfaEnrollment = Static<typeof MfaEnrollment>;

export const MfaRequest = Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }, Closed);
export type MfaRequest = Static<typeof MfaRequest>;

export const MfaVerified = Type.Object({
  mfaVerified: Type.Literal(true),
  enrolled: Type.Boolean(),
  sessionId: Type.String({ description: 'The session from now on: the id used for this request has ended' }),
});
export type MfaVerified = Static<typeof MfaVerified>;

export const Health = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  uptimeSeconds: Type.Number(),
});
export type Health = Static<typeof Health>;

const CheckState = Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]);

export const Readiness = Type.Object({
  ready: Type.Boolean(),
  checks: Type.Object({ database: CheckState, redis: Type.Optional(CheckState) }),
});
export type Readiness = Static<typeof Readiness>;
