import type { SecretBox } from '../crypto/secret-box.js';
import type { EgressClient } from '../egress/egress-client.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';
import type { TokenConsumption } from '../tokens/token-consumption.js';
import { createAdapterRunner } from './adapter-runner.js';
import { tokenBinding } from './connector.js';
import { createConnectorExecution, type RecordExecution } from './connector-execution.js';
import { createConnectorRegistry } from './connector-registry.js';

/**
 * Connectors as the rest of the service uses them: the registry behind the `/connectors` routes,
 * and for the decision loop `forTarget` (which connector serves a target), `tokenBinding` (the
 * token's adapterId and adapterTarget for it) and `execute` (after the decision committed).
 */
export function createConnectorService(deps: {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  egress: EgressClient;
  tokens: TokenConsumption;
  /** CONNECTOR_TIMEOUT_MS: the time an adapter has for a call or a probe. */
  timeoutMs: number;
  recordExecution: RecordExecution;
  onError: (error: unknown) => void;
}) {
  const runner = createAdapterRunner({
    egress: deps.egress,
    secretBox: deps.secretBox,
    timeoutMs: deps.timeoutMs,
    onError: deps.onError,
  });
  const registry = createConnectorRegistry({ ...deps, runner });
  const execution = createConnectorExecution({
    storage: deps.storage,
    clock: deps.clock,
    tokens: deps.tokens,
    runner,
    recordExecution: deps.recordExecution,
    onError: deps.onError,
  });
  return {
    ...registry,
    tokenBinding,
    execute: execution.execute,
    onExecution: execution.onExecution,
  };
}

export type ConnectorService = ReturnType<typeof createConnectorService>;
