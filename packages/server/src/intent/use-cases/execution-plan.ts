import type { Connector, TokenBinding } from '../../connectors/connector.js';
import { ExecutionNotRecordedError } from '../../connectors/connector-execution.js';
import type { ConnectorService } from '../../connectors/connector-service.js';
import type { IntentResponse } from './decision-loop.js';

/** Which connector a token is bound to, and whether the service executes through it. */
export interface ExecutionPlan {
  connector: Connector | undefined;
  binding: TokenBinding;
  /** An approved intent is executed after its commit when its connector has `autoExecute`. */
  executes: boolean;
}

/** The token's adapter binding for a target (contract §5: the connector id, autoExecute or not). */
export async function planExecution(
  connectors: ConnectorService,
  tenantId: string,
  targetSystem: string,
): Promise<ExecutionPlan> {
  const connector = await connectors.forTarget(tenantId, targetSystem);
  return {
    connector,
    binding: connectors.tokenBinding(connector, targetSystem),
    executes: connector?.autoExecute === true,
  };
}

/**
 * What the intent record says before execution (contract §4.6): `not_configured` without an
 * autoExecute connector, `pending` while the connector runs (the response waits for the outcome;
 * a record can stay `pending` only if the process stopped during the call).
 */
export function initialExecution(plan: ExecutionPlan): Record<string, unknown> {
  return plan.executes && plan.connector
    ? { attempted: true, status: 'pending', adapterId: plan.connector.id }
    : { attempted: false, status: 'not_configured' };
}

/**
 * Whether a stored answer is of an intent still executing (`execution.status` `pending`): an
 * `Idempotency-Key` duplicate waits for the final answer instead of replaying this one (contract §9).
 */
export function executionPending(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { execution } = body as { execution?: unknown };
  return (
    typeof execution === 'object' &&
    execution !== null &&
    (execution as { status?: unknown }).status === 'pending'
  );
}

/**
 * Runs the committed, approved intent through its connector (which verifies the token and
 * consumes its nonce first) and returns the response with the outcome, its audit entries counted.
 */
export async function executeApproved<T extends IntentResponse & { authorityDecisionToken: string }>(
  connectors: ConnectorService,
  plan: ExecutionPlan,
  tenantId: string,
  request: { proposedAction: string; targetSystem: string; args?: unknown },
  response: T,
): Promise<T> {
  if (!plan.executes || !plan.connector) return response;
  try {
    const report = await connectors.execute(tenantId, plan.connector, {
      intentId: response.intentId,
      correlationId: response.correlationId,
      token: response.authorityDecisionToken,
      proposedAction: request.proposedAction,
      targetSystem: request.targetSystem,
      args: request.args,
    });
    return {
      ...response,
      execution: report.execution,
      audit: {
        entriesWritten: response.audit.entriesWritten + report.audit.entriesWritten,
        latestHash: report.audit.latestHash,
      },
    };
  } catch (error) {
    // The action ran but its record could not be written: say what happened; the chain did not grow.
    if (error instanceof ExecutionNotRecordedError) return { ...response, execution: error.execution };
    throw error;
  }
}
