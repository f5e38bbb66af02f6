import { Gauge, type Registry } from 'prom-client';
import { chainRepository } from '../chain/chain-repository.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';

/**
 * How far signed checkpoints trail the audit chains, read at each scrape over every tenant (never
 * by tenant): `authority_checkpoint_lag_entries` (the most entries any chain has past its last
 * checkpoint) and `authority_checkpoint_lag_seconds` (how long the oldest of those has waited; 0
 * when every chain is checkpointed). A scrape while the database is down leaves them out.
 */
export function observeCheckpointLag(registry: Registry, storage: Storage, clock: Clock): void {
  // Each gauge reads on its own: scrapes are seconds apart and the query reads one row per tenant.
  const read = () => chainRepository.checkpointLag(storage.db).catch(() => undefined);
  new Gauge({
    name: 'authority_checkpoint_lag_entries',
    help: 'Most audit entries any chain has past its last signed checkpoint',
    registers: [registry],
    async collect() {
      const now = await read();
      this.reset();
      // reset() leaves an unlabelled gauge at 0: remove() takes that series out.
      if (now === undefined) this.remove();
      else this.set(now.entries);
    },
  });
  new Gauge({
    name: 'authority_checkpoint_lag_seconds',
    help: 'Age of the oldest last checkpoint among chains with entries past it (0 when none)',
    registers: [registry],
    async collect() {
      const now = await read();
      this.reset();
      if (now === undefined) {
        this.remove();
        return;
      }
      const oldest = now.oldestCheckpointAt;
      this.set(oldest === null ? 0 : Math.max(0, (clock() - oldest) / 1000));
    },
  });
}
