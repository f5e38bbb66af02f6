import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AuditEvent, GENESIS_HASH } from '../../../src/chain/audit-entry.js';
import { ChainVerifier } from '../../../src/chain/chain-verifier.js';
import type { Conformance } from './context.js';
import { newTenant } from './fixtures.js';

function event(n: number, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    correlationId: `c-${n}`,
    intentId: n % 2 === 0 ? 'intent-even' : null,
    actorId: `actor-${n % 3}`,
    actorType: 'principal:api-key',
    eventType: n % 2 === 0 ? 'test.even' : 'test.odd',
    payload: { n, targetSystem: `org/repo-${n % 2}` },
    ...extra,
  };
}

/** The hash chain (heads and entries), its checkpoints and its recorded breaks. */
export function chainConformance(c: Conformance): void {
  describe('audit chain, checkpoints and breaks', () => {
    it('creates the head on first lock, appends linked entries under it and reads them back', async () => {
      const { chainRepository: chain } = c.repos;
      const tenant = await newTenant(c);
      assert.equal(await chain.head(c.storage.db, tenant), undefined);
      const head = await c.storage.writeTransaction((trx) => chain.lockHead(trx, tenant, 100));
      assert.deepEqual(head, {
        lastIndex: -1,
        lastHash: GENESIS_HASH,
        lastCheckpointIndex: -1,
        lastCheckpointAt: 100,
        tree: { treeSize: 0, hashes: [] },
      });
      const first = await c.storage.writeTransaction((trx) =>
        chain.append(trx, tenant, [event(0), event(1)], 200),
      );
      const second = await c.storage.writeTransaction((trx) => chain.append(trx, tenant, [event(2)], 300));
      const none = await c.storage.writeTransaction((trx) => chain.append(trx, tenant, [], 400));
      assert.deepEqual(
        first.entries.map((e) => e.index),
        [0, 1],
      );
      assert.equal(second.entries[0]?.previousHash, first.latestHash);
      assert.deepEqual(none, { entries: [], latestHash: second.latestHash, headIndex: 2 });
      const { tree, ...rest } = (await chain.head(c.storage.db, tenant)) ?? assert.fail('no head');
      assert.deepEqual(rest, {
        lastIndex: 2,
        lastHash: second.latestHash,
        lastCheckpointIndex: -1,
        lastCheckpointAt: 100,
      });
      assert.equal(tree.treeSize, 3);
      const stored = await chain.storedEntries(c.storage.db, tenant, { from: 0, to: 10 });
      const verifier = new ChainVerifier(tenant);
      for (const entry of stored) assert.equal(verifier.push(entry), null);
      assert.equal(verifier.latestHash, second.latestHash);
      assert.deepEqual(
        (await chain.storedEntries(c.storage.db, tenant, { from: 1, to: 2, limit: 1 })).map((e) => e.index),
        [1],
      );
    });

    it('serializes concurrent appends of one tenant into one gapless chain', async () => {
      const { chainRepository: chain } = c.repos;
      const tenant = await newTenant(c);
      await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          c.storage.writeTransaction((trx) => chain.append(trx, tenant, [event(n), event(n + 100)], 10)),
        ),
      );
      const stored = await chain.storedEntries(c.storage.db, tenant, { from: 0, to: 100 });
      assert.deepEqual(
        stored.map((e) => e.index),
        Array.from({ length: 16 }, (_, i) => i),
      );
      const verifier = new ChainVerifier(tenant);
      for (const entry of stored) assert.equal(verifier.push(entry), null);
    });

    it('reads an intent’s entries and their references in chain order, and filtered pages newest first', async () => {
      const { chainRepository: chain } = c.repos;
      const tenant = await newTenant(c);
      const other = await newTenant(c);
      await c.storage.writeTransaction((trx) =>
        chain.append(
          trx,
          tenant,
          Array.from({ length: 6 }, (_, n) => event(n)),
          1_000,
        ),
      );
      await c.storage.writeTransaction((trx) => chain.append(trx, tenant, [event(6)], 2_000));
      await c.storage.writeTransaction((trx) => chain.append(trx, other, [event(0)], 1_000));
      const ofIntent = await chain.entriesOfIntent(c.storage.db, tenant, 'intent-even');
      assert.deepEqual(
        ofIntent.map((e) => e.index),
        [0, 2, 4, 6],
      );
      assert.deepEqual(
        await chain.entryRefsOfIntent(c.storage.db, tenant, 'intent-even'),
        ofIntent.map((e) => ({ index: e.index, eventType: e.eventType, entryHash: e.entryHash })),
      );
      assert.deepEqual(await chain.entriesOfIntent(c.storage.db, tenant, 'no-such-intent'), []);

      const page = await chain.page(c.storage.db, tenant, {}, 3);
      assert.deepEqual(
        page.map((row) => row.entry.index),
        [6, 5, 4],
      );
      assert.equal(page[0]?.targetSystem, 'org/repo-0');
      const filtered = async (filter: Parameters<typeof chain.page>[2]) =>
        (await chain.page(c.storage.db, tenant, filter, 10)).map((row) => row.entry.index);
      assert.deepEqual(await filtered({ actorId: 'actor-0' }), [6, 3, 0]);
      assert.deepEqual(await filtered({ targetSystem: 'org/repo-1' }), [5, 3, 1]);
      assert.deepEqual(await filtered({ eventType: 'test.odd', beforeIndex: 5 }), [3, 1]);
      assert.deepEqual(await filtered({ fromMs: 2_000 }), [6]);
      assert.deepEqual(await filtered({ toMs: 1_000, beforeIndex: 2 }), [1, 0]);
    });

    it('finds the heads due for a checkpoint and moves their last checkpoint forward only', async () => {
      const { chainRepository: chain } = c.repos;
      const tenant = await newTenant(c);
      const idle = await newTenant(c);
      await c.storage.writeTransaction((trx) =>
        chain.append(trx, tenant, [event(0), event(1), event(2)], 50),
      );
      await c.storage.writeTransaction((trx) => chain.lockHead(trx, idle, 50));
      const due = (dueBefore: number, everyEntries: number) =>
        chain.dueForCheckpoint(c.storage.db, { dueBefore, everyEntries });
      assert.ok((await due(50, 1_000)).includes(tenant), 'due by time');
      assert.ok(!(await due(49, 1_000)).includes(tenant), 'not due yet by time');
      assert.ok((await due(0, 3)).includes(tenant), 'due by count');
      assert.ok(!(await due(1_000, 1)).includes(idle), 'a head that never moved is never due');
      await c.storage.writeTransaction((trx) => chain.markCheckpointed(trx, tenant, 2, 60));
      await c.storage.writeTransaction((trx) => chain.markCheckpointed(trx, tenant, 1, 70));
      const head = await chain.head(c.storage.db, tenant);
      assert.deepEqual([head?.lastCheckpointIndex, head?.lastCheckpointAt], [2, 60]);
      assert.ok(!(await due(1_000, 1)).includes(tenant), 'checkpointed at its head');
    });

    it('measures the checkpoint lag over every chain: the most entries past a checkpoint and the oldest one', async () => {
      const { chainRepository: chain } = c.repos;
      const tenant = await newTenant(c);
      const before = await chain.checkpointLag(c.storage.db);
      const events = Array.from({ length: before.entries + 5 }, (_, n) => event(n));
      await c.storage.writeTransaction((trx) => chain.append(trx, tenant, events, -5));
      const lagging = await chain.checkpointLag(c.storage.db);
      assert.deepEqual(lagging, { entries: events.length, oldestCheckpointAt: -5 });
      await c.storage.writeTransaction((trx) => chain.markCheckpointed(trx, tenant, events.length - 1, 80));
      assert.deepEqual(await chain.checkpointLag(c.storage.db), before);
    });

    it('stores one checkpoint per index and lists them in a range', async () => {
      const { checkpointRepository: checkpoints } = c.repos;
      const tenant = await newTenant(c);
      const at = (index: number, kid: string) => ({
        tenantId: tenant,
        index,
        entryHash: 'a'.repeat(64),
        issuedAt: new Date(index * 1_000).toISOString(),
        issuedAtMs: index * 1_000,
        kid,
        signature: `sig-${index}-${kid}`,
      });
      await c.storage.writeTransaction(async (trx) => {
        for (const index of [9, 3, 6]) await checkpoints.insert(trx, at(index, 'k1'));
        await checkpoints.insert(trx, at(6, 'k2'));
      });
      const all = await checkpoints.list(c.storage.db, tenant);
      assert.deepEqual(
        all.map((x) => [x.index, x.kid]),
        [
          [3, 'k1'],
          [6, 'k1'],
          [9, 'k1'],
        ],
      );
      const { issuedAtMs: _ms, ...expected } = at(6, 'k1');
      assert.deepEqual(all[1], expected);
      assert.deepEqual(
        (await checkpoints.list(c.storage.db, tenant, { from: 4, to: 9, limit: 1 })).map((x) => x.index),
        [6],
      );
      assert.deepEqual(await checkpoints.list(c.storage.db, await newTenant(c)), []);
    });

    it('records a break once per index, lists the open ones and acknowledges each once', async () => {
      const { chainBreakRepository: breaks } = c.repos;
      const tenant = await newTenant(c);
      const record = (brokenAt: number, reason: string) =>
        c.storage.writeTransaction((trx) =>
          breaks.recordOnce(trx, tenant, { brokenAt, reason, detectedAtMs: 5 }),
        );
      assert.equal(await record(7, 'ENTRY_HASH_MISMATCH'), true);
      assert.equal(await record(7, 'INDEX_GAP'), false);
      assert.equal(await record(2, 'INDEX_GAP'), true);
      assert.deepEqual(
        (await breaks.listOpen(c.storage.db, tenant)).map((b) => [b.brokenAt, b.reason]),
        [
          [2, 'INDEX_GAP'],
          [7, 'ENTRY_HASH_MISMATCH'],
        ],
      );
      const acknowledge = (brokenAt: number) =>
        c.storage.writeTransaction((trx) =>
          breaks.acknowledge(trx, tenant, brokenAt, { atMs: 9, by: 'k', note: 'restored' }),
        );
      assert.equal(await acknowledge(7), 'ENTRY_HASH_MISMATCH');
      assert.equal(await acknowledge(7), undefined);
      assert.equal(await acknowledge(99), undefined);
      assert.deepEqual(await breaks.listOpen(c.storage.db, tenant), [
        {
          brokenAt: 2,
          reason: 'INDEX_GAP',
          detectedAtMs: 5,
          acknowledgedAtMs: null,
          acknowledgedBy: null,
          note: null,
        },
      ]);
    });
  });
}
