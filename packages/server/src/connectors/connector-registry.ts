import { LRUCache } from 'lru-cache';
import { v7 as uuidv7 } from 'uuid';
import { principalEvent } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { type EgressClient, EgressRefusedError, withoutQuery } from '../egress/egress-client.js';
import { AppError, type ValidationIssue, validationError } from '../errors/app-error.js';
import { isUniqueViolation } from '../errors/database-errors.js';
import type { Clock } from '../foundation/clock.js';
import type { Principal } from '../identity/principal.js';
import type { Storage } from '../storage/database.js';
import { type AdapterRunner, type Probe, sealSecrets } from './adapter-runner.js';
import {
  type ConnectorConfig,
  type ConnectorType,
  outboundUrls,
  parseConnectorConfig,
} from './adapters/connector-config.js';
import { type Connector, connectorFrom } from './connector.js';
import { connectorRepository } from './connector-repository.js';
import { type ConnectorTestResult, type ConnectorView, connectorView, healthOf } from './connector-views.js';

/** Connectors per tenant: each is probed every CONNECTOR_HEALTH_INTERVAL_MS, so the work stays bounded. */
export const MAX_CONNECTORS_PER_TENANT = 50;
/**
 * How long `forTarget` trusts its per-tenant copy. A change made through this process is seen at
 * once; a change made through another instance within this many milliseconds.
 */
export const CONNECTOR_CACHE_TTL_MS = 5_000;
const CACHE_MAX_TENANTS = 10_000;

export interface ConnectorInput {
  type: ConnectorType;
  name: string;
  targetSystem: string;
  config: unknown;
  autoExecute?: boolean | undefined;
}

interface TenantConnectors {
  byTarget: Map<string, Connector>;
  fetchedAt: number;
}

/** What the chain records of a connector's config: settings and the names of secrets, never their values. */
function auditedConfig(config: ConnectorConfig): Record<string, unknown> {
  if (config.type === 'http') {
    return {
      url: withoutQuery(config.settings.url),
      healthUrl: config.settings.healthUrl === null ? null : withoutQuery(config.settings.healthUrl),
      headerNames: Object.keys(config.secrets.headers),
    };
  }
  if (config.type === 'github') return { ...config.settings, secrets: ['token'] };
  return {};
}

/**
 * The connector registry (contract §8): create (secrets sealed, never returned), list with health,
 * delete, test with a real round trip, and `forTarget` for the decision loop's hot path. Changes
 * commit with their audit entries.
 */
export function createConnectorRegistry(deps: {
  storage: Storage;
  clock: Clock;
  secretBox: SecretBox;
  egress: EgressClient;
  runner: AdapterRunner;
}) {
  const { storage, clock, secretBox, egress, runner } = deps;
  const cache = new LRUCache<string, TenantConnectors>({ max: CACHE_MAX_TENANTS });
  const loading = new Map<string, Promise<Map<string, Connector>>>();

  function forget(tenantId: string): void {
    cache.delete(tenantId);
    loading.delete(tenantId);
  }

  function load(tenantId: string, now: number): Promise<Map<string, Connector>> {
    const inFlight = loading.get(tenantId);
    if (inFlight) return inFlight;
    const promise = connectorRepository.listByTenant(storage.db, tenantId).then(
      (entries) => {
        const byTarget = new Map(entries.map(({ connector }) => [connector.targetSystem, connector]));
        // A change made while this read was in flight dropped it from `loading`: do not cache it.
        if (loading.get(tenantId) === promise) {
          cache.set(tenantId, { byTarget, fetchedAt: now });
          loading.delete(tenantId);
        }
        return byTarget;
      },
      (error: unknown) => {
        if (loading.get(tenantId) === promise) loading.delete(tenantId);
        throw error;
      },
    );
    loading.set(tenantId, promise);
    return promise;
  }

  /** Refuses (400) a URL the egress guard would not let the adapter reach. */
  async function checkReachable(config: ConnectorConfig): Promise<void> {
    const issues: ValidationIssue[] = [];
    for (const { path, url } of outboundUrls(config)) {
      try {
        await egress.checkTarget(url);
      } catch (error) {
        issues.push({
          path,
          message:
            error instanceof EgressRefusedError
              ? 'the URL points to a private, loopback or link-local address; the operator can allow it with EGRESS_ALLOW_CIDRS or ALLOW_PRIVATE_EGRESS'
              : 'the host of the URL could not be resolved',
        });
      }
    }
    if (issues.length > 0) throw validationError(issues);
  }

  async function existing(tenantId: string, id: string) {
    const entry = await connectorRepository.get(storage.db, tenantId, id);
    if (!entry) throw new AppError('NOT_FOUND', 'No such connector');
    return entry;
  }

  /** Probes the connector and records the outcome as its health. */
  async function checkHealth(connector: Connector): Promise<{ probe: Probe; checkedAt: number }> {
    const probe = await runner.probe(connector);
    const checkedAt = clock();
    await connectorRepository.recordHealth(storage.db, connector.tenantId, connector.id, {
      status: healthOf(probe),
      checkedAt,
      latencyMs: probe.answered ? probe.latencyMs : null,
      error: probe.ok ? null : (probe.error ?? 'the check failed'),
    });
    return { probe, checkedAt };
  }

  return {
    async create(tenantId: string, principal: Principal, input: ConnectorInput): Promise<ConnectorView> {
      const parsed = parseConnectorConfig(input.type, input.config);
      if (!parsed.ok) throw validationError(parsed.issues);
      const config = parsed.config;
      await checkReachable(config);
      const id = uuidv7();
      const now = clock();
      const connector = connectorFrom(
        {
          id,
          tenantId,
          name: input.name,
          targetSystem: input.targetSystem,
          autoExecute: input.autoExecute === true,
          sealedSecrets: sealSecrets(secretBox, tenantId, id, config.secrets),
          // Due at once: the next health round checks a new connector.
          createdAt: now,
        },
        config,
      );
      try {
        await storage.writeTransaction(async (trx) => {
          // The head lock serializes concurrent creates (PostgreSQL reads the count without one).
          await chainRepository.lockHead(trx, tenantId, now);
          if ((await connectorRepository.count(trx, tenantId)) >= MAX_CONNECTORS_PER_TENANT) {
            throw new AppError('CONFLICT', `A tenant has at most ${MAX_CONNECTORS_PER_TENANT} connectors`, {
              limit: MAX_CONNECTORS_PER_TENANT,
            });
          }
          await connectorRepository.insert(trx, connector);
          await chainRepository.append(
            trx,
            tenantId,
            [
              principalEvent(principal, 'connector.created', {
                connectorId: id,
                type: config.type,
                name: input.name,
                targetSystem: input.targetSystem,
                autoExecute: connector.autoExecute,
                config: auditedConfig(config),
              }),
            ],
            now,
          );
        });
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new AppError('CONFLICT', 'A connector already serves this targetSystem', {
            targetSystem: input.targetSystem,
          });
        }
        throw error;
      }
      forget(tenantId);
      return connectorView({
        connector,
        status: 'unknown',
        lastCheckedAt: null,
        latencyMs: null,
        lastError: null,
      });
    },

    async list(tenantId: string): Promise<ConnectorView[]> {
      return (await connectorRepository.listByTenant(storage.db, tenantId)).map(connectorView);
    },

    async remove(tenantId: string, principal: Principal, id: string): Promise<void> {
      const now = clock();
      await storage.writeTransaction(async (trx) => {
        const before = await connectorRepository.get(trx, tenantId, id, { forUpdate: true });
        if (!before) throw new AppError('NOT_FOUND', 'No such connector');
        await connectorRepository.delete(trx, tenantId, id);
        await chainRepository.append(
          trx,
          tenantId,
          [
            principalEvent(principal, 'connector.deleted', {
              connectorId: id,
              type: before.connector.type,
              targetSystem: before.connector.targetSystem,
            }),
          ],
          now,
        );
      });
      forget(tenantId);
    },

    /** `POST /connectors/:id/test`: one real round trip now, recorded as the connector's health. */
    async test(tenantId: string, id: string): Promise<ConnectorTestResult> {
      const { connector } = await existing(tenantId, id);
      const { probe, checkedAt } = await checkHealth(connector);
      return {
        connectorId: connector.id,
        ok: probe.ok,
        latencyMs: probe.latencyMs,
        checkedAt: new Date(checkedAt).toISOString(),
        ...(probe.ok ? {} : { error: probe.error ?? 'the check failed' }),
      };
    },

    checkHealth,

    /**
     * The connector serving `targetSystem` for the tenant (autoExecute or not), or undefined. Cheap
     * enough for every decision: the tenant's connectors are read once and kept for at most
     * CONNECTOR_CACHE_TTL_MS (5 s); creating or deleting one through this process drops the copy
     * at once, and another instance sees the change within those 5 s.
     */
    async forTarget(tenantId: string, targetSystem: string): Promise<Connector | undefined> {
      const now = clock();
      const cached = cache.get(tenantId);
      if (
        cached !== undefined &&
        now - cached.fetchedAt < CONNECTOR_CACHE_TTL_MS &&
        now >= cached.fetchedAt
      ) {
        return cached.byTarget.get(targetSystem);
      }
      return (await load(tenantId, now)).get(targetSystem);
    },
  };
}

export type ConnectorRegistry = ReturnType<typeof createConnectorRegistry>;
