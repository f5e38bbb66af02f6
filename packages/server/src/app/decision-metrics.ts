import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../foundation/clock.js';
import { LATENCY_BUCKETS_SECONDS } from '../http/metrics.js';
import { intentRepository } from '../intent/repositories/intent-repository.js';
import { ticketRepository } from '../physical/repositories/ticket-repository.js';
import type { Storage } from '../storage/database.js';

/** What reports each group commit of decisions: its size and how long its transaction took. */
export interface CommitSource {
  onCommit(listener: (batchSize: number, seconds: number) => void): void;
}

/**
 * The decision commits of both surfaces (`POST /intent`, and the physical decisions of
 * `POST /physical/authority-tokens`), each of which appends its decisions' audit entries: how long
 * its transaction took (`authority_audit_append_seconds`) and how many decisions shared it
 * (`authority_decision_commit_batch_size`).
 */
export function observeDecisionCommits(registry: Registry, sources: readonly CommitSource[]): void {
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
  for (const source of sources) {
    source.onCommit((size, seconds) => {
      latency.observe(seconds);
      batchSize.observe(size);
    });
  }
}

/** The queues of `authority_pending_approvals`: the intent surface's two, and physical tickets. */
const QUEUES = ['standard', 'catastrophic-review', 'physical'] as const;

/**
 * `authority_pending_approvals{queue}`: what awaits a human decision now, over every tenant, read at
 * each scrape: escalated intents by review queue (standard, catastrophic-review) and physical
 * tickets (physical), pending and not expired. A scrape while the database is down leaves it out.
 */
export function observePendingApprovals(registry: Registry, storage: Storage, clock: Clock): void {
  new Gauge({
    name: 'authority_pending_approvals',
    help: 'Escalated intents (by review queue) and physical tickets (queue physical) awaiting a decision, not expired, over every tenant',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      const now = clock();
      const counts = await Promise.all([
        intentRepository.countPendingReviews(storage.db, now),
        ticketRepository.countPending(storage.db, now),
      ]).catch(() => undefined);
      this.reset();
      if (counts === undefined) return;
      const [byQueue, tickets] = counts;
      const pending: Record<(typeof QUEUES)[number], number> = {
        standard: byQueue.standard ?? 0,
        'catastrophic-review': byQueue['catastrophic-review'] ?? 0,
        physical: tickets,
      };
      for (const queue of QUEUES) this.set({ queue }, pending[queue]);
    },
  });
}
