import type { AdapterCall, ProbeOutcome } from './adapter.js';
import type { AdapterOutcome } from './adapter-outcome.js';

/**
 * The noop adapter (contract §8): once the token passed, it records the execution and does nothing
 * else, for dry runs of a target before a real connector serves it.
 */
export function executeNoop(call: AdapterCall): AdapterOutcome {
  return { status: 'executed', result: { dryRun: true, intentId: call.intentId } };
}

/** Nothing to reach: the noop connector is always healthy. */
export function probeNoop(): ProbeOutcome {
  return { answered: true, ok: true };
}
