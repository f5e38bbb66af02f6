import { chainRepository } from '../chain/chain-repository.js';
import { canonicalJson, sha256Hex } from '../crypto/canonical-json.js';
import type { Clock } from '../foundation/clock.js';
import type { Executor, Storage } from '../storage/database.js';
import type { ConsumeResult, TokenConsumption } from '../tokens/token-consumption.js';
import type { AdapterRunner } from './adapter-runner.js';
import type { FailureReason } from './adapters/adapter-outcome.js';
import { type Connector, connectorActorType } from './connector.js';

/** The `execution` member of the intent response (contract §4.6) when a connector ran. */
export type Execution =
  | { attempted: true; status: 'executed'; adapterId: string; result: Record<string, unknown> }
  | {
      attempted: true;
      status: 'failed';
      adapterId: string;
      reason: FailureReason;
      result?: Record<string, unknown>;
    }
  | { attempted: true; status: 'rejected'; adapterId: string; reason: string };

/** The execution and the audit entries it appended: count them in the response's `audit`. */
export interface ExecutionReport {
  execution: Execution;
  /** `token.consumed` (when the token was accepted) and `execution.completed`; latestHash is the latter's. */
  audit: { entriesWritten: number; latestHash: string };
}

/** What the decision loop (or the approval token route) hands a connector after its commit. */
export interface ExecutionRequest {
  intentId: string;
  correlationId: string;
  /** The Authority Decision Token minted for this connector (adapterId = connector id). */
  token: string;
  proposedAction: string;
  targetSystem: string;
  args?: unknown;
}

/**
 * Stores an execution's outcome on its intent, inside the transaction that appends
 * `execution.completed`. The intent surface owns that row; the composition root hands connectors
 * its repository function, so connectors never import the intent surface.
 */
export type RecordExecution = (
  trx: Executor,
  tenantId: string,
  intentId: string,
  execution: Execution,
  now: number,
) => Promise<void>;

/** The audit entry could not be written (the database went away): the outcome is attached. */
export class ExecutionNotRecordedError extends Error {
  readonly execution: Execution;
  constructor(execution: Execution, cause: unknown) {
    super(`the execution outcome (${execution.status}) could not be recorded`, { cause });
    this.name = 'ExecutionNotRecordedError';
    this.execution = execution;
  }
}

function auditPayload(connector: Connector, execution: Execution, targetSystem: string, durationMs: number) {
  const statusCode =
    execution.status !== 'rejected' && typeof execution.result?.statusCode === 'number'
      ? execution.result.statusCode
      : undefined;
  return {
    targetSystem,
    connectorId: connector.id,
    connectorType: connector.type,
    adapterId: execution.adapterId,
    status: execution.status,
    ...(execution.status === 'executed' ? {} : { reason: execution.reason }),
    ...(statusCode === undefined ? {} : { statusCode }),
    // The result may hold what the peer answered; the chain keeps its hash, the intent the result.
    ...(execution.status === 'rejected' || execution.result === undefined
      ? {}
      : { resultHash: sha256Hex(canonicalJson(execution.result)) }),
    durationMs,
  };
}

/**
 * Execution through a connector (contract §8): the token is verified with the SDK verifier and its
 * nonce consumed in the database (the `POST /authority/tokens/consume` code path, `token.consumed`
 * recorded with the connector as actor) BEFORE the adapter runs; a rejected token never reaches the
 * adapter. Then the adapter runs within CONNECTOR_TIMEOUT_MS, and `execution.completed` is
 * appended in its own transaction, which also stores the outcome on the intent.
 */
export function createConnectorExecution(deps: {
  storage: Storage;
  clock: Clock;
  tokens: TokenConsumption;
  runner: AdapterRunner;
  recordExecution: RecordExecution;
  onError: (error: unknown) => void;
}) {
  const { storage, clock, tokens, runner } = deps;
  const listeners: Array<(type: Connector['type'], status: Execution['status']) => void> = [];

  async function verify(
    tenantId: string,
    connector: Connector,
    request: ExecutionRequest,
  ): Promise<ConsumeResult> {
    try {
      return await tokens.consumeAs(
        tenantId,
        {
          actorId: connector.id,
          actorType: connectorActorType(connector.type),
          correlationId: request.correlationId,
        },
        { token: request.token, adapterId: connector.id, targetSystem: connector.targetSystem },
      );
    } catch (error) {
      // The nonce store (the database) could not confirm first use: fail closed.
      deps.onError(error);
      return { valid: false, reason: 'NONCE_STORE_UNAVAILABLE' };
    }
  }

  return {
    async execute(
      tenantId: string,
      connector: Connector,
      request: ExecutionRequest,
    ): Promise<ExecutionReport> {
      if (connector.tenantId !== tenantId) throw new Error('a connector executes only for its own tenant');
      const started = performance.now();
      const verdict = await verify(tenantId, connector, request);
      let execution: Execution;
      if (!verdict.valid) {
        execution = { attempted: true, status: 'rejected', adapterId: connector.id, reason: verdict.reason };
      } else {
        // The adapter acts on what the token vouches for; args are the intent's own.
        const outcome = await runner.run(connector, {
          token: request.token,
          intentId: verdict.claims.intentId,
          proposedAction: verdict.claims.proposedAction,
          targetSystem: verdict.claims.targetSystem,
          args: request.args,
        });
        execution =
          outcome.status === 'executed'
            ? { attempted: true, status: 'executed', adapterId: connector.id, result: outcome.result }
            : {
                attempted: true,
                status: 'failed',
                adapterId: connector.id,
                reason: outcome.reason,
                ...(outcome.result === undefined ? {} : { result: outcome.result }),
              };
      }
      const durationMs = Math.round(performance.now() - started);
      for (const listener of listeners) listener(connector.type, execution.status);

      const now = clock();
      let latestHash: string;
      try {
        const appended = await storage.writeTransaction(async (trx) => {
          await deps.recordExecution(trx, tenantId, request.intentId, execution, now);
          return chainRepository.append(
            trx,
            tenantId,
            [
              {
                correlationId: request.correlationId,
                intentId: request.intentId,
                actorId: connector.id,
                actorType: connectorActorType(connector.type),
                eventType: 'execution.completed',
                payload: auditPayload(connector, execution, request.targetSystem, durationMs),
              },
            ],
            now,
          );
        });
        latestHash = appended.latestHash;
      } catch (error) {
        throw new ExecutionNotRecordedError(execution, error);
      }
      return { execution, audit: { entriesWritten: verdict.valid ? 2 : 1, latestHash } };
    },

    /** Registers a listener told the type and outcome of every execution (metrics). */
    onExecution(listener: (type: Connector['type'], status: Execution['status']) => void): void {
      listeners.push(listener);
    },
  };
}

export type ConnectorExecution = ReturnType<typeof createConnectorExecution>;
