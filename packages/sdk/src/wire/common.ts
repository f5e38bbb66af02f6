import { type Static, type TSchema, Type } from 'typebox';
import { INTENT_ERROR_CODES, PHYSICAL_ERROR_CODES, TENANT_ID_PATTERN } from './constants.js';

/**
 * Building blocks shared by the schemas of every resource. Request schemas refuse unknown members
 * (`additionalProperties: false`, as the service does); answer schemas list every member the
 * service sends and leave the set open, so that a later addition is not a breaking change.
 */

/** An ISO 8601 UTC instant with milliseconds, `YYYY-MM-DDTHH:mm:ss.sssZ` (the intent surface's times). */
export const IsoDateTime = Type.String({ format: 'date-time' });

/** Integer milliseconds since the epoch (the physical surface's times). */
export const Millis = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'ms since the epoch',
});

/**
 * A schema that may also be `null`.
 *
 * @example
 * ```ts
 * const NextCursor = Nullable(Type.String()); // string | null
 * ```
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A closed object: unknown members are refused (request bodies, query strings). */
export const Closed = { additionalProperties: false } as const;

/** One problem of a 400 `VALIDATION_ERROR` / `validation_error`: a JSON Pointer and what is wrong. */
export const ValidationIssue = Type.Object({ path: Type.String(), message: Type.String() });
export type ValidationIssue = Static<typeof ValidationIssue>;

/**
 * The one error envelope of both surfaces (contract §1). `code` is an upper-case code on the intent
 * surface and a lower-snake code on the physical surface. `details` depends on the code:
 * `issues` for validation errors, `permission` for FORBIDDEN, `status` for conflicts, `reason`
 * for 401s, the decision for a physical `policy_denied`.
 */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String({
        description: `Intent surface: ${INTENT_ERROR_CODES.join(', ')}. Physical surface: ${PHYSICAL_ERROR_CODES.join(', ')}.`,
      }),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      requestId: Type.String(),
    }),
  },
  { description: 'The error envelope of every non-2xx answer that is not a decision' },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

/** The body of a 204 answer. */
export const NoContent = Type.Null({ description: 'No content' });

/** A JSON object whose members are free (`args`, results, metadata). */
export const JsonObject = Type.Record(Type.String(), Type.Unknown());

/** `:id` of a tenant resource; longer values name nothing. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** `:tenantId` of the routes that repeat the tenant in their path (must equal `x-tenant-id`). */
export const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });

/**
 * The tenant of a public `/.well-known/authority/:tenantId/…` document: any id, since an id no
 * tenant can have is an unknown tenant, 404 (contract §5), like any other.
 */
export const PublicTenantParams = Type.Object({ tenantId: Type.String() });

/** A tenant id as written in bodies. */
export const TenantId = Type.String({ pattern: TENANT_ID_PATTERN });

/** `nextCursor` of a page: pass it as `cursor` to get the next one; `null` on the last page. */
export const NextCursor = Nullable(Type.String());

/** `limit` (1..200, default 50) and an opaque `cursor`, as the keyset-paginated lists take them. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 50' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page' })),
};

/** The error answers every authenticated route can give. */
export const tenantErrors = {
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  403: ErrorEnvelope,
  404: ErrorEnvelope,
  429: ErrorEnvelope,
  500: ErrorEnvelope,
  503: ErrorEnvelope,
} as const;

/** The error answers of an authenticated route that can also conflict with the current state. */
export const conflictErrors = { ...tenantErrors, 409: ErrorEnvelope } as const;

/** The error answers of an authenticated route that reads a body (size and media type included). */
export const bodyErrors = { ...tenantErrors, 413: ErrorEnvelope, 415: ErrorEnvelope } as const;

/** {@link bodyErrors} plus 409. */
export const bodyConflictErrors = { ...bodyErrors, 409: ErrorEnvelope } as const;
