import { type Static, type TSchema, Type } from 'typebox';
import { ErrorEnvelope } from './common.js';
import { IDEMPOTENCY_KEY_PATTERN, TENANT_HEADER, TENANT_ID_PATTERN } from './constants.js';

/** HTTP methods of the API. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: `tenant` (an API key as `Authorization: Bearer` or `x-api-key`, or a console
 * session as `x-portal-session-id`, always with `x-tenant-id`), `public` (no credential), `admin`
 * (`x-admin-token`), `portal` (a console session only).
 */
export type RouteSecurity = 'tenant' | 'public' | 'admin' | 'portal';

/**
 * The schemas of one route, in the shape Fastify route options take (`schema: {params, querystring,
 * headers, body, response}`), so that the service can validate with them as they are.
 */
export interface WireRouteSchema {
  params?: TSchema;
  querystring?: TSchema;
  headers?: TSchema;
  body?: TSchema;
  /** Every status the route can answer, each with its body schema. */
  response: Readonly<Record<number, TSchema>>;
}

/** One route of the API: its identity, documentation and schemas. */
export interface WireRoute<S extends WireRouteSchema = WireRouteSchema> {
  /** Unique, stable: the OpenAPI `operationId` and the route's key in {@link WIRE_ROUTES}. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** The path as the service registers it (Fastify form, `:param`), without the optional `/v1` prefix. */
  readonly path: string;
  /** The OpenAPI tag (resource group). */
  readonly tag: string;
  readonly summary: string;
  readonly security: RouteSecurity;
  /** Whether the route honours `Idempotency-Key` (the same key and body replay the stored answer). */
  readonly idempotent: boolean;
  /** The media type of the 2xx body (JSON unless said otherwise). */
  readonly produces: 'application/json' | 'application/x-ndjson' | 'text/plain';
  readonly schema: S;
}

/**
 * The `x-tenant-id` header every tenant and console-session route requires (contract §2): 401 when
 * missing, 400 when malformed.
 */
export const TenantHeaders = Type.Object({
  [TENANT_HEADER]: Type.String({ pattern: TENANT_ID_PATTERN, description: "The credential's tenant" }),
});

/** {@link TenantHeaders} plus the optional `Idempotency-Key`. */
export const IdempotentTenantHeaders = Type.Object({
  ...TenantHeaders.properties,
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        '1 to 255 visible ASCII characters, scoped to the tenant for 24 h: the same key and body replay the stored answer; another body is 409',
    }),
  ),
});

const BODY_CAPABLE: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type RouteInit<S extends WireRouteSchema> = Omit<WireRoute<S>, 'idempotent' | 'produces' | 'schema'> & {
  idempotent?: boolean;
  produces?: WireRoute['produces'];
  schema: S;
};

/**
 * Declares a route. Tenant and portal routes get the `x-tenant-id` header (tenant routes also
 * `Idempotency-Key` when `idempotent`) in their header schema.
 *
 * @example
 * ```ts
 * const getTenant = route({
 *   operationId: 'getTenant',
 *   method: 'GET',
 *   path: '/tenant',
 *   tag: 'tenancy',
 *   summary: "The calling credential's tenant",
 *   security: 'tenant',
 *   schema: { response: { 200: Tenant, ...tenantErrors } },
 * });
 * ```
 */
export function route<const S extends WireRouteSchema>(init: RouteInit<S>): WireRoute<S> {
  const idempotent = init.idempotent ?? false;
  // Any route that can be sent a body answers one of another media type with 415 and one over
  // 1 MiB with 413, routes that take no body included (contract §1).
  const response = BODY_CAPABLE.has(init.method)
    ? { 413: ErrorEnvelope, 415: ErrorEnvelope, ...init.schema.response }
    : init.schema.response;
  const headers =
    init.schema.headers ??
    (init.security === 'tenant'
      ? idempotent
        ? IdempotentTenantHeaders
        : TenantHeaders
      : init.security === 'portal'
        ? TenantHeaders
        : undefined);
  return {
    ...init,
    idempotent,
    produces: init.produces ?? 'application/json',
    // The same schema with the statuses added: S names the route's own members only.
    schema: (headers === undefined
      ? { ...init.schema, response }
      : { ...init.schema, response, headers }) as S,
  };
}

/** The static type of an optional schema member, `undefined` when the route has none. */
export type StaticOf<T> = T extends TSchema ? Static<T> : undefined;

/** The body type of a route's answer with the given status. */
export type ResponseOf<R extends WireRoute, Status extends number> =
  R['schema']['response'] extends Record<Status, infer T> ? StaticOf<T> : never;

/** The request body type of a route. */
export type BodyOf<R extends WireRoute> = StaticOf<R['schema']['body']>;

/** The query type of a route. */
export type QueryOf<R extends WireRoute> = StaticOf<R['schema']['querystring']>;

/** The path parameter type of a route. */
export type ParamsOf<R extends WireRoute> = StaticOf<R['schema']['params']>;
