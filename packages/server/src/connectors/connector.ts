import { withoutQuery } from '../egress/egress-client.js';
import type {
  ConnectorConfig,
  ConnectorType,
  GithubSettings,
  HttpSettings,
  NoopSettings,
} from './adapters/connector-config.js';

/** The adapterId of a token minted when no connector serves the target (contract §5). */
export const EXTERNAL_ADAPTER_ID = 'external';

interface ConnectorBase {
  id: string;
  tenantId: string;
  name: string;
  /** `<github_owner>/<github_repo>`; one connector per tenant and target. */
  targetSystem: string;
  /** Execute approved intents for the target at once (contract §4.6). */
  autoExecute: boolean;
  /** The secrets of `config`, sealed under the master key; opened only to execute or probe. */
  sealedSecrets: string | null;
  createdAt: number;
}

/** A registered connector, as the registry hands it to the decision loop and the adapters. */
export type Connector = ConnectorBase &
  (
    | { type: 'http'; settings: HttpSettings }
    | { type: 'github'; settings: GithubSettings }
    | { type: 'noop'; settings: NoopSettings }
  );

/** The fields of a connector that do not depend on its type. */
export type ConnectorFields = Omit<Connector, 'type' | 'settings'>;

/** A connector of the fields and a validated config (whose secrets the caller sealed into the fields). Pure. */
export function connectorFrom(fields: ConnectorFields, config: ConnectorConfig): Connector {
  switch (config.type) {
    case 'http':
      return { ...fields, type: 'http', settings: config.settings };
    case 'github':
      return { ...fields, type: 'github', settings: config.settings };
    case 'noop':
      return { ...fields, type: 'noop', settings: {} };
  }
}

export type HealthStatus = 'healthy' | 'degraded' | 'down' | 'unknown';
export const HEALTH_STATUSES: readonly HealthStatus[] = ['healthy', 'degraded', 'down', 'unknown'];

/** A connector with its last health check, as `GET /connectors` lists it. */
export interface ConnectorWithHealth {
  connector: Connector;
  status: HealthStatus;
  lastCheckedAt: number | null;
  latencyMs: number | null;
  lastError: string | null;
}

/** The result of one check, written by the background checker and by `POST /connectors/:id/test`. */
export interface HealthRecord {
  status: Exclude<HealthStatus, 'unknown'>;
  checkedAt: number;
  latencyMs: number | null;
  error: string | null;
}

/** The token binding of contract §5: whom the token is for, and what that adapter acts on. */
export interface TokenBinding {
  adapterId: string;
  adapterTarget: string;
}

/**
 * The `adapterId` and `adapterTarget` claims of a token for `targetSystem` (contract §5): the id of
 * the connector serving the target, autoExecute or not, and what it acts on; else `external` with
 * the target itself. Pure.
 */
export function tokenBinding(connector: Connector | undefined, targetSystem: string): TokenBinding {
  if (connector === undefined) return { adapterId: EXTERNAL_ADAPTER_ID, adapterTarget: targetSystem };
  switch (connector.type) {
    case 'http':
      return { adapterId: connector.id, adapterTarget: withoutQuery(connector.settings.url) };
    case 'github':
      return {
        adapterId: connector.id,
        adapterTarget: `${connector.settings.baseUrl}/repos/${targetSystem}`,
      };
    case 'noop':
      return { adapterId: connector.id, adapterTarget: `noop:${targetSystem}` };
  }
}

/** The audit chain's actor type for what a connector does: `connector:http` and so on. */
export function connectorActorType(type: ConnectorType): string {
  return `connector:${type}`;
}
