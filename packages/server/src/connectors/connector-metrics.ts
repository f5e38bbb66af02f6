import { Counter, type Registry } from 'prom-client';
import type { Connector } from './connector.js';
import type { Execution } from './connector-execution.js';
import type { ConnectorService } from './connector-service.js';

/** `authority_connector_executions_total{type, status}`: executions by adapter and outcome, never by tenant. */
export function countConnectorExecutions(registry: Registry, connectors: ConnectorService): void {
  const counter = new Counter({
    name: 'authority_connector_executions_total',
    help: 'Executions through connectors by adapter type and outcome (executed, failed, rejected), never by tenant',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
  });
  const types: Connector['type'][] = ['http', 'github', 'noop'];
  const statuses: Execution['status'][] = ['executed', 'failed', 'rejected'];
  for (const type of types) for (const status of statuses) counter.inc({ type, status }, 0);
  connectors.onExecution((type, status) => counter.inc({ type, status }));
}
