import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../../foundation/clock.js';
import { LATENCY_BUCKETS_SECONDS } from '../../http/metrics.js';
import type { Storage } from '../../storage/database.js';
import { intentRepository } from '../repositories/intent-repository.js';
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
    buckets: LATENCY_BUCKETS_SECONDS,
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

/**
 * `authority_pending_approvals{queue}`: escalations awaiting review now (standard,
 * catastrophic-review), over every tenant, read at each scrape.
 */
export function observePendingApprovals(registry: Registry, storage: Storage, clock: Clock): void {
  new Gauge({
    name: 'authority_pending_approvals',
    help: 'Escalated intents awaiting review and not expired, by queue, over every tenant',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      const byQueue = await intentRepository.countPendingReviews(storage.db, clock()).catch(() => undefined);
      this.reset();
      if (byQueue === undefined) return;
      for (const queue of ['standard', 'catastrophic-review']) this.set({ queue }, byQueue[queue] ?? 0);
    },
  });
}
