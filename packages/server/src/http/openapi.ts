import type { RouteSecurity, WireRoute } from '@authority-runtime/sdk/wire';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TSchema } from 'typebox';
import { OPERATION_EXAMPLES } from './openapi-examples.js';

/**
 * The OpenAPI 3.1 document of the service (contract §13.4), generated from the SDK's wire contract:
 * the route catalogue gives the operations, and every schema the wire exports under a name becomes
 * a component that operations refer to with `$ref`. Nothing here is written by hand but prose.
 */

type JsonObject = { [key: string]: unknown };
type SwaggerDocument = ReturnType<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>;

export interface OpenApiInput {
  readonly version: string;
  /** The routes to document (those the server registers). */
  readonly routes: readonly WireRoute[];
  /** The wire's named schemas (`WIRE_COMPONENTS`). */
  readonly components: Readonly<Record<string, TSchema>>;
}

const REF = '#/components/schemas/';

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  400: 'Bad request: `VALIDATION_ERROR` / `validation_error` with `details.issues`, or a malformed header',
  401: 'No valid credential (`details.reason` on the physical surface)',
  403: 'Not allowed: tenant mismatch, missing permission (`details.permission`), IP allowlist or MFA',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Body over 1 MiB',
  415: 'Body not `application/json`',
  429: 'Rate limited; `retry-after` says when to try again',
  500: 'Internal error (`AUTHORITY_LOOP_FAILED` when a decision could not be made; never a token)',
  502: 'Upstream failure',
  503: 'Service unavailable (database unreachable, or shutting down)',
};

const TAGS: Readonly<Record<string, string>> = {
  intents: 'Submit intents and read their decisions, tokens, receipts and evidence',
  approvals: 'Escalations waiting for a human decision',
  evaluate: 'Evaluate without recording an intent, and permission tokens',
  tokens: 'Single-use consumption of decision tokens',
  policy: 'Intent policies, versions, packs, thresholds and tenant controls',
  audit: 'The per-tenant hash-chained audit log, checkpoints and exports',
  keys: 'API keys, signing keys and tenant secrets',
  webhooks: 'Webhook endpoints and deliveries',
  connectors: 'Connectors that execute approved intents',
  tenancy: "The calling credential's tenant and its controls",
  portal: 'Web console sessions',
  admin: 'Operator routes (`x-admin-token`)',
  health: 'Liveness, readiness, metrics and public key sets',
  physical: 'The physical surface: classification, tokens, verification, tickets and policy',
};

const SECURITY: Readonly<Record<RouteSecurity, ReadonlyArray<Record<string, string[]>>>> = {
  tenant: [{ bearer: [] }, { apiKey: [] }, { portalSession: [] }],
  admin: [{ adminToken: [] }],
  portal: [{ portalSession: [] }],
  public: [],
};

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`service_live_…`) as `Authorization: Bearer`, with `x-tenant-id`',
  },
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key, with `x-tenant-id`' },
  portalSession: {
    type: 'apiKey',
    in: 'header',
    name: 'x-portal-session-id',
    description: 'A web console session, with `x-tenant-id`',
  },
  adminToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-admin-token',
    description: 'The operator token (`AUTHORITY_ADMIN_TOKEN`)',
  },
} as const;

/** The security schemes the routes use: the operator's only when its routes are documented. */
function usedSchemes(routes: readonly WireRoute[]): Partial<typeof SECURITY_SCHEMES> {
  const used = new Set(routes.flatMap((route) => SECURITY[route.security].flatMap(Object.keys)));
  return Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => used.has(name)));
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Turns wire schemas into document schemas: named ones become `$ref`s, cyclic ones components. */
class SchemaNamer {
  readonly names = new Map<object, string>();
  readonly schemas: Record<string, unknown> = {};

  constructor(components: Readonly<Record<string, TSchema>>) {
    // The definitions inside cyclic schemas (a rule inside a policy version) are components too,
    // under their definition's name.
    for (const schema of Object.values(components)) {
      const defs = (schema as JsonObject).$defs;
      if (isObject(defs)) for (const [name, def] of Object.entries(defs)) this.nameOnce(def as object, name);
    }
    for (const [name, schema] of Object.entries(components)) this.nameOnce(schema, name);
    for (const [name, schema] of Object.entries(components)) this.emit(name, schema);
  }

  private nameOnce(schema: object, name: string): void {
    if (!this.names.has(schema)) this.names.set(schema, name);
  }

  private emit(name: string, schema: unknown): void {
    if (name in this.schemas) return;
    this.schemas[name] = {};
    const node = schema as JsonObject;
    if (isObject(node.$defs) && typeof node.$ref === 'string') {
      const defs = node.$defs;
      for (const [defName, def] of Object.entries(defs)) {
        this.nameOnce(def as object, defName);
        if (defName !== name) this.emit(defName, def);
      }
      this.schemas[name] = this.convert(defs[node.$ref], true);
      return;
    }
    this.schemas[name] = this.convert(schema, true);
  }

  /** The document form of a schema; `root` keeps a named schema whole instead of referring to it. */
  convert(schema: unknown, root = false): unknown {
    if (Array.isArray(schema)) return schema.map((item) => this.convert(item));
    if (!isObject(schema)) return schema;
    const name = this.names.get(schema);
    if (name !== undefined && !root) {
      this.emit(name, schema);
      return { $ref: REF + name };
    }
    if (isObject(schema.$defs) && typeof schema.$ref === 'string') {
      const target = schema.$ref;
      this.emit(target, schema);
      return { $ref: REF + target };
    }
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(schema)) {
      // A definition's `$id` would make it the base of the `#/components/...` references inside
      // it (JSON Schema 2020-12), which then resolve against the wrong document.
      if (key === '$id') continue;
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out.$ref = REF + value;
      else if (key === 'properties' && isObject(value)) {
        out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.convert(v)]));
      } else out[key] = this.convert(value);
    }
    return out;
  }
}

/**
 * A route's path in the document: OpenAPI's `{param}` form, and the physical surface under `/v1`,
 * as the contract names it (`/v1/physical/*`; the service strips a leading `/v1` on every path).
 *
 * @example
 * ```ts
 * documentedPath('/physical/authority-tokens/:jti/revoke'); // '/v1/physical/authority-tokens/{jti}/revoke'
 * ```
 */
export function documentedPath(path: string): string {
  const surface = path.startsWith('/physical/') ? `/v1${path}` : path;
  return surface.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parametersOf(namer: SchemaNamer, route: WireRoute): JsonObject[] {
  const out: JsonObject[] = [];
  const add = (location: 'path' | 'query' | 'header', schema: TSchema | undefined) => {
    if (schema === undefined) return;
    const object = schema as JsonObject;
    const required = new Set(Array.isArray(object.required) ? (object.required as string[]) : []);
    for (const [name, property] of Object.entries((object.properties ?? {}) as Record<string, JsonObject>)) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: namer.convert(rest),
      });
    }
  };
  add('path', route.schema.params);
  add('query', route.schema.querystring);
  add('header', route.schema.headers);
  return out;
}

function responsesOf(namer: SchemaNamer, route: WireRoute): JsonObject {
  const responses: JsonObject = {};
  for (const [code, schema] of Object.entries(route.schema.response)) {
    const status = Number(code);
    const description = (schema as JsonObject).description;
    const response: JsonObject = {
      description:
        status < 300 && typeof description === 'string' ? description : (STATUS_TEXT[status] ?? 'Answer'),
      headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
    };
    if (status === 429) {
      (response.headers as JsonObject)['retry-after'] = { $ref: '#/components/headers/RetryAfter' };
    }
    if (status !== 204) {
      const mediaType = status < 300 ? route.produces : 'application/json';
      const examples = OPERATION_EXAMPLES[route.operationId]?.responses?.[status];
      response.content = {
        [mediaType]: {
          schema: mediaType === 'application/json' ? namer.convert(schema) : { type: 'string' },
          ...(examples === undefined ? {} : { examples }),
        },
      };
    }
    responses[code] = response;
  }
  responses['405'] = { $ref: '#/components/responses/MethodNotAllowed' };
  return responses;
}

function operationOf(namer: SchemaNamer, route: WireRoute): JsonObject {
  const operation: JsonObject = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    security: SECURITY[route.security],
  };
  const parameters = parametersOf(namer, route);
  if (parameters.length > 0) operation.parameters = parameters;
  const body = route.schema.body as JsonObject | undefined;
  if (body !== undefined) {
    // A body with no required member may be left out (the POST routes that take no body).
    const required = Array.isArray(body.required) && body.required.length > 0;
    const examples = OPERATION_EXAMPLES[route.operationId]?.request;
    operation.requestBody = {
      required,
      content: {
        'application/json': {
          schema: namer.convert(body),
          ...(examples === undefined ? {} : { examples }),
        },
      },
    };
  }
  operation.responses = responsesOf(namer, route);
  return operation;
}

/**
 * Builds the document.
 *
 * @example
 * ```ts
 * const document = buildOpenApiDocument({ version: '1.0.0', routes: WIRE_ROUTE_LIST, components: WIRE_COMPONENTS });
 * document.paths['/intent'].post.operationId; // 'submitIntent'
 * ```
 */
export function buildOpenApiDocument(input: OpenApiInput): JsonObject {
  const namer = new SchemaNamer(input.components);
  const paths: Record<string, JsonObject> = {};
  for (const route of input.routes) {
    const path = documentedPath(route.path);
    paths[path] ??= {};
    (paths[path] as JsonObject)[route.method.toLowerCase()] = operationOf(namer, route);
  }
  const usedTags = [...new Set(input.routes.map((route) => route.tag))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Authority Runtime',
      version: input.version,
      description:
        'Authorization runtime for AI agents and physical machines. Agents propose actions; the service answers APPROVED with a signed single-use token, ESCALATED or DENIED, and records every outcome in a per-tenant hash-chained audit log. The physical surface is documented under `/v1/physical`, as the contract names it; a leading `/v1` on any other path is accepted too. Every answer carries `x-request-id`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // Relative (contract §13.4): "Try it out" in /docs works from whatever address serves it.
    servers: [{ url: '/' }],
    tags: usedTags.map((name) => ({ name, description: TAGS[name] ?? `The ${name} routes` })),
    paths,
    components: {
      schemas: namer.schemas,
      securitySchemes: usedSchemes(input.routes),
      headers: {
        RequestId: {
          description: "The request's id: the caller's `x-request-id` when valid, else a new one",
          schema: { type: 'string' },
        },
        RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
        Allow: { description: 'The methods the path takes', schema: { type: 'string' } },
      },
      responses: {
        MethodNotAllowed: {
          description:
            'The path was called with a method it does not take (`METHOD_NOT_ALLOWED` / `method_not_allowed`); `allow` lists the methods it takes',
          headers: {
            allow: { $ref: '#/components/headers/Allow' },
            'x-request-id': { $ref: '#/components/headers/RequestId' },
          },
          content: { 'application/json': { schema: { $ref: `${REF}ErrorEnvelope` } } },
        },
      },
    },
  };
}

/**
 * Options for `@fastify/swagger`: its document is replaced by the one built from the wire routes
 * the server has registered (admin routes only when the operator token is configured), so the
 * interactive reference at `/docs` and `GET /openapi.json` show the same document.
 */
export function openApiOptions(
  version: string,
  registered: () => readonly { method: string; url: string }[],
  wire: { routes: readonly WireRoute[]; components: Readonly<Record<string, TSchema>> },
): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Authority Runtime', version },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transformObject: () => {
      const present = new Set(registered().map((route) => `${route.method} ${route.url}`));
      const routes = wire.routes.filter((route) => present.has(`${route.method} ${route.path}`));
      return buildOpenApiDocument({ version, routes, components: wire.components }) as SwaggerDocument;
    },
  };
}
