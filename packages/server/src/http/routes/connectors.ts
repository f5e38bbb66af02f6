import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CONNECTOR_TYPES } from '../../connectors/adapters/connector-config.js';
import { HEALTH_STATUSES } from '../../connectors/connector.js';
import type { ConnectorService } from '../../connectors/connector-service.js';
import { TARGET_SYSTEM_PATTERN } from '../../foundation/target-system.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { ErrorResponse, IdParams, IsoDateTime, Nullable, tenantErrors, tenantSecurity } from '../schemas.js';

/**
 * The settings of a connector's config as responses show them. Listing the members (rather than
 * passing the object through) means a secret can never be serialized, even by mistake.
 */
const ConfigView = Type.Object(
  {
    url: Type.Optional(Type.String()),
    healthUrl: Type.Optional(Nullable(Type.String())),
    baseUrl: Type.Optional(Type.String()),
  },
  { description: 'The settings of config; secrets (token, headers) are never returned' },
);

const ConnectorSchema = Type.Object({
  id: Type.String({ description: 'Also the adapterId of the tokens minted for this connector' }),
  type: Type.Enum([...CONNECTOR_TYPES]),
  name: Type.String(),
  targetSystem: Type.String(),
  status: Type.Enum([...HEALTH_STATUSES]),
  lastCheckedAt: Nullable(IsoDateTime),
  latencyMs: Nullable(Type.Integer()),
  autoExecute: Type.Boolean(),
  config: ConfigView,
  lastError: Nullable(Type.String()),
  createdAt: IsoDateTime,
});

const TestResultSchema = Type.Object({
  connectorId: Type.String(),
  ok: Type.Boolean(),
  latencyMs: Type.Integer(),
  checkedAt: IsoDateTime,
  error: Type.Optional(Type.String()),
});

export const connectorRoutes: FastifyPluginAsyncTypebox<{ connectors: ConnectorService }> = async (
  app,
  { connectors },
) => {
  app.post(
    '/connectors',
    {
      config: needs('connectors:write'),
      schema: {
        tags: ['connectors'],
        summary: 'Register a connector for a target system; its secrets are sealed and never returned',
        security: tenantSecurity,
        body: Type.Object(
          {
            type: Type.Enum([...CONNECTOR_TYPES]),
            name: Type.String({ minLength: 1, maxLength: 100 }),
            targetSystem: Type.String({
              pattern: TARGET_SYSTEM_PATTERN,
              description: '<github_owner>/<github_repo>, as in IntentRequest',
            }),
            config: Type.Record(Type.String(), Type.Unknown(), {
              description:
                'http: {url, healthUrl?, headers?}; github: {token, baseUrl?}; noop: {}. Headers and token are secrets.',
            }),
            autoExecute: Type.Optional(
              Type.Boolean({
                description:
                  'Execute approved intents for the target after their decision commits (default false)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: ConnectorSchema, 409: ErrorResponse, ...tenantErrors },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const created = await connectors.create(principal.tenantId, principal, request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/connectors',
    {
      config: needs('connectors:read'),
      schema: {
        tags: ['connectors'],
        summary: "The tenant's connectors with their health (never their secrets)",
        security: tenantSecurity,
        response: { 200: Type.Object({ connectors: Type.Array(ConnectorSchema) }), ...tenantErrors },
      },
    },
    async (request) => ({ connectors: await connectors.list(principalOf(request).tenantId) }),
  );

  app.delete(
    '/connectors/:id',
    {
      config: needs('connectors:write'),
      schema: {
        tags: ['connectors'],
        summary: 'Delete the connector; approved intents for its target are no longer executed',
        security: tenantSecurity,
        params: IdParams,
        response: { 204: Type.Null(), ...tenantErrors },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await connectors.remove(principal.tenantId, principal, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/connectors/:id/test',
    {
      config: needs('connectors:test'),
      schema: {
        tags: ['connectors'],
        summary: 'One real round trip to the connected system now, with its measured latency',
        security: tenantSecurity,
        params: IdParams,
        response: { 200: TestResultSchema, ...tenantErrors },
      },
    },
    async (request) => connectors.test(principalOf(request).tenantId, request.params.id),
  );
};
