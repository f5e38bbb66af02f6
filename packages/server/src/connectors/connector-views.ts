import type { Probe } from './adapter-runner.js';
import type { ConnectorType } from './adapters/connector-config.js';
import type { ConnectorWithHealth, HealthStatus } from './connector.js';

/**
 * A connector as the API shows it (contract §8), with the settings of its `config` but never its
 * secrets (the GitHub token, the http headers).
 */
export interface ConnectorView {
  id: string;
  type: ConnectorType;
  name: string;
  targetSystem: string;
  status: HealthStatus;
  lastCheckedAt: string | null;
  latencyMs: number | null;
  autoExecute: boolean;
  config: Record<string, unknown>;
  /** Why the last check failed, else null. */
  lastError: string | null;
  createdAt: string;
}

/** `POST /connectors/:id/test` (contract §8). */
export interface ConnectorTestResult {
  connectorId: string;
  ok: boolean;
  latencyMs: number;
  checkedAt: string;
  error?: string;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function connectorView(entry: ConnectorWithHealth): ConnectorView {
  const { connector } = entry;
  return {
    id: connector.id,
    type: connector.type,
    name: connector.name,
    targetSystem: connector.targetSystem,
    status: entry.status,
    lastCheckedAt: iso(entry.lastCheckedAt),
    latencyMs: entry.latencyMs,
    autoExecute: connector.autoExecute,
    config: { ...connector.settings },
    lastError: entry.lastError,
    createdAt: new Date(connector.createdAt).toISOString(),
  };
}

/**
 * The health status a probe earns: `healthy` when the peer answered as it should, `degraded` when
 * it answered otherwise (an error status, a token without access), `down` when nothing answered.
 */
export function healthOf(probe: Pick<Probe, 'answered' | 'ok'>): Exclude<HealthStatus, 'unknown'> {
  if (probe.ok) return 'healthy';
  return probe.answered ? 'degraded' : 'down';
}
