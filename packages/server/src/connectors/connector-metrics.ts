import { Counter, type Registry } from 'prom-client';
import type { ConnectorService } from './connector-service.js';

/** `authority_connector_executions_total{type, status}`: executions by adapter and outcome, never by tenant. */
export function countConnectorExecutions(registry: Registry, connectors: ConnectorService): void {
  const counter = new Counter({
    name: 'authority_connector_executions_total',
    help: 'Executions through connectors by adapter type and outcome (executed, failed, rejected), never by tenant',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
  });
  connectors.onExecution((type, status) => counter.inc({ type, status }));
}
