import { type Static, Type } from 'typebox';
import { Closed, IsoDateTime, Nullable } from './common.js';
import { CONNECTOR_HEALTH_STATUSES, CONNECTOR_TYPES, TARGET_SYSTEM_PATTERN } from './constants.js';

/** Connectors: the adapters that execute approved intents (contract §8). */

// A config is open: contract §4.1 exempts it from the unknown-field rule, and the service ignores
// (and does not store) members its type does not know. The service checks it by its `type`.

/** `config` of an `http` connector: where it posts, where it checks health, and secret headers. */
export const HttpConnectorConfig = Type.Object(
  {
    url: Type.String({ maxLength: 2048 }),
    healthUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 4096 }), {
        maxProperties: 20,
        description: 'Sealed at rest, never returned',
      }),
    ),
  },
  { description: 'Other members are ignored' },
);

/** `config` of a `github` connector: the token (sealed, never returned) and the REST API root. */
export const GithubConnectorConfig = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 1024 }),
    baseUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Default https://api.github.com' })),
  },
  { description: 'Other members are ignored' },
);

/** `config` of a `noop` connector: nothing. */
export const NoopConnectorConfig = Type.Object({}, { description: 'Members are ignored' });

export const ConnectorCreateRequest = Type.Object(
  {
    type: Type.Enum(CONNECTOR_TYPES),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    targetSystem: Type.String({
      pattern: TARGET_SYSTEM_PATTERN,
      description: '<github_owner>/<github_repo>, as in IntentRequest; one connector per target',
    }),
    config: Type.Union([HttpConnectorConfig, GithubConnectorConfig, NoopConnectorConfig], {
      description: 'The config of the connector type',
    }),
    autoExecute: Type.Optional(
      Type.Boolean({ description: 'Execute approved intents after their decision commits (default false)' }),
    ),
  },
  Closed,
);
export type ConnectorCreateRequest = Static<typeof ConnectorCreateRequest>;

export const Connector = Type.Object({
  id: Type.String({ description: 'Also the adapterId of the tokens minted for this target' }),
  type: Type.Enum(CONNECTOR_TYPES),
  name: Type.String(),
  targetSystem: Type.String(),
  status: Type.Enum(CONNECTOR_HEALTH_STATUSES),
  lastCheckedAt: Nullable(IsoDateTime),
  latencyMs: Nullable(Type.Integer()),
  autoExecute: Type.Boolean(),
  config: Type.Object(
    {
      url: Type.Optional(Type.String()),
      healthUrl: Type.Optional(Nullable(Type.String())),
      baseUrl: Type.Optional(Type.String()),
    },
    { description: 'The settings of config; secrets (token, headers) are never returned' },
  ),
  lastError: Nullable(Type.String()),
  createdAt: IsoDateTime,
});
export type Connector = Static<typeof Connector>;

export const ConnectorList = Type.Object({ connectors: Type.Array(Connector) });
export type ConnectorList = Static<typeof ConnectorList>;

export const ConnectorTestResult = Type.Object({
  connectorId: Type.String(),
  ok: Type.Boolean(),
  latencyMs: Type.Integer(),
  checkedAt: IsoDateTime,
  error: Type.Optional(Type.String()),
});
export type ConnectorTestResult = Static<typeof ConnectorTestResult>;
