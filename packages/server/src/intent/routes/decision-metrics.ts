import { Histogram, type Registry } from 'prom-client';
import type { DecisionLoop } from '../use-cases/decision-loop.js';

/**
 * The decision commit, which appends each decision's audit entries: how long its transaction took
 * (`authority_audit_append_seconds`) and how many decisions shared it
 * (`authority_decision_commit_batch_size`).
 */
export function observeDecisionCommits(registry: Registry, loop: DecisionLoop): void {
  const latency = new Histogram({
    name: 'authority_audit_append_seconds',
    help: 'Duration of the transaction that writes decisions and appends their audit entries',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const batchSize = new Histogram({
    name: 'authority_decision_commit_batch_size',
    help: 'Decisions committed together in one transaction (group commit)',
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  });
  loop.onCommit((size, seconds) => {
    latency.observe(seconds);
    batchSize.observe(size);
  });
}
