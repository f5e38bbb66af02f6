import type { SecretBox } from '../crypto/secret-box.js';
import type { EgressClient } from '../egress/egress-client.js';
import { SpanKind, withSpan } from '../foundation/tracing.js';
import { VERSION } from '../foundation/version.js';
import type { AdapterCall, AdapterIo, ProbeOutcome } from './adapters/adapter.js';
import type { AdapterOutcome } from './adapters/adapter-outcome.js';
import type { GithubSecrets, HttpSecrets } from './adapters/connector-config.js';
import { executeGithub, probeGithub } from './adapters/github-adapter.js';
import { executeHttp, probeHttp } from './adapters/http-adapter.js';
import { executeNoop, probeNoop } from './adapters/noop-adapter.js';
import type { Connector } from './connector.js';

export const CONNECTOR_USER_AGENT = `authority-runtime-connectors/${VERSION}`;

/** Additional data binding a connector's sealed secrets to its row. */
export const connectorSecretContext = (tenantId: string, connectorId: string): string =>
  `connector-secrets:${tenantId}:${connectorId}`;

/** Seals the secrets of a new connector; null when the type has none. */
export function sealSecrets(
  secretBox: SecretBox,
  tenantId: string,
  connectorId: string,
  secrets: HttpSecrets | GithubSecrets | null,
): string | null {
  if (secrets === null) return null;
  return secretBox.seal(JSON.stringify(secrets), connectorSecretContext(tenantId, connectorId));
}

/** A probe's outcome with the time the round trip took. */
export type Probe = ProbeOutcome & { latencyMs: number };

/**
 * Runs adapters: opens the connector's secrets, gives the adapter CONNECTOR_TIMEOUT_MS and the
 * egress client, and turns a run that outlives the timeout into `failed` with reason TIMEOUT.
 */
export function createAdapterRunner(deps: {
  egress: EgressClient;
  secretBox: SecretBox;
  timeoutMs: number;
  /** Told about failures that are bugs or broken storage, not the peer's doing. */
  onError: (error: unknown) => void;
}) {
  const { egress, secretBox, timeoutMs } = deps;

  function opened<T>(connector: Connector): T {
    if (connector.sealedSecrets === null) throw new Error(`connector ${connector.id} has no stored secrets`);
    const text = secretBox.open(
      connector.sealedSecrets,
      connectorSecretContext(connector.tenantId, connector.id),
    );
    return JSON.parse(text.toString('utf8')) as T;
  }

  function io(): AdapterIo {
    return { egress, deadline: performance.now() + timeoutMs, timeoutMs, userAgent: CONNECTOR_USER_AGENT };
  }

  async function within<T>(work: Promise<T>, onTimeout: T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(onTimeout), timeoutMs);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function dispatch(connector: Connector, call: AdapterCall): Promise<AdapterOutcome> {
    switch (connector.type) {
      case 'http':
        return executeHttp(connector.settings, opened<HttpSecrets>(connector), call, io());
      case 'github':
        return executeGithub(connector.settings, opened<GithubSecrets>(connector), call, io());
      case 'noop':
        return executeNoop(call);
    }
  }

  async function probeOf(connector: Connector): Promise<ProbeOutcome> {
    switch (connector.type) {
      case 'http':
        return probeHttp(connector.settings, opened<HttpSecrets>(connector), io());
      case 'github':
        return probeGithub(
          connector.settings,
          opened<GithubSecrets>(connector),
          connector.targetSystem,
          io(),
        );
      case 'noop':
        return probeNoop();
    }
  }

  return {
    /** Performs the verified call; resolves with `failed`/TIMEOUT once the timeout elapses. */
    run(connector: Connector, call: AdapterCall): Promise<AdapterOutcome> {
      const attributes = {
        'authority.connector.type': connector.type,
        'authority.connector.id': connector.id,
      };
      return withSpan('connector execute', { kind: SpanKind.CLIENT, attributes }, async (span) => {
        const work = dispatch(connector, call).catch((error: unknown): AdapterOutcome => {
          deps.onError(error);
          return {
            status: 'failed',
            reason: 'ADAPTER_ERROR',
            result: { error: 'the adapter could not run' },
          };
        });
        const outcome = await within(work, {
          status: 'failed',
          reason: 'TIMEOUT',
          result: { error: `no outcome within ${timeoutMs} ms` },
        });
        span?.setAttribute('authority.connector.status', outcome.status);
        return outcome;
      });
    },

    /** One real round trip to the connector's peer, timed. */
    async probe(connector: Connector): Promise<Probe> {
      const started = performance.now();
      const work = probeOf(connector).catch((error: unknown): ProbeOutcome => {
        deps.onError(error);
        return { answered: false, ok: false, error: 'the adapter could not run' };
      });
      const outcome = await within(work, {
        answered: false,
        ok: false,
        error: `TIMEOUT: no answer within ${timeoutMs} ms`,
      });
      return { ...outcome, latencyMs: Math.round(performance.now() - started) };
    },
  };
}

export type AdapterRunner = ReturnType<typeof createAdapterRunner>;
