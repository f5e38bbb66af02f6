import { withoutQuery } from '../egress/egress-client.js';
import type {
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
