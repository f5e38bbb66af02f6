import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { GENESIS_HASH } from '../../src/chain/audit-entry.js';
import { entryFromRow } from '../../src/chain/chain-repository.js';
import { canonicalJson, sha256Hex } from '../../src/crypto/canonical-json.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { alterStoredEntry, appendEvents } from '../helpers/audit.js';
import { ENGINES } from '../helpers/storage.js';

for (const engine of ENGINES) {
  describe(`audit chain (${engine})`, () => {
    let t: TestApp;
    let headers: Record<string, string>;
    let otherHeaders: Record<string, string>;

    before(async () => {
      t = await createTestApp(engine);
      headers = await t.ownerHeaders('acme');
      otherHeaders = await t.ownerHeaders('other');
    });
    after(async () => {
      await t.close();
    });

    const verify = async (body?: object, h = headers) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/audit/verify-chain',
        headers: h,
        ...(body ? { payload: body } : {}),
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };

    it('links entries with JCS + SHA-256 exactly as the contract states', async () => {
      await appendEvents(t.storage, 'acme', 5, t.clock);
      const rows = await t.storage.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .orderBy('idx')
        .execute();
      assert.equal(rows.length, 5);
      let previous = GENESIS_HASH;
      for (const [i, row] of rows.entries()) {
        const entry = entryFromRow(row);
        assert.equal(entry.index, i);
        assert.equal(entry.previousHash, previous);
        const { entryHash, ...rest } = entry;
        assert.equal(canonicalJson(rest), row.canonical, 'the stored text is the canonical form');
        assert.equal(sha256Hex(canonicalJson(rest)), entryHash);
        assert.match(entry.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        previous = entryHash;
      }
      const result = await verify();
      assert.deepEqual(
        {
          valid: result.valid,
          length: result.length,
          latestHash: result.latestHash,
          checkpointsVerified: result.checkpointsVerified,
        },
        { valid: true, length: 5, latestHash: previous, checkpointsVerified: 0 },
      );
      assert.equal(result.brokenAt, undefined);
    });

    it('verifies an inclusive index range', async () => {
      const result = await verify({ from: 1, to: 3 });
      assert.equal(result.valid, true);
      assert.equal(result.length, 3);
      assert.equal((await verify({ from: 2, to: 2 })).length, 1);
      const reversed = await t.app.inject({
        method: 'POST',
        url: '/audit/verify-chain',
        headers,
        payload: { from: 3, to: 1 },
      });
      assert.equal(reversed.statusCode, 400, reversed.body);
      assert.equal(reversed.json().error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        reversed.json().error.details.issues.map((issue: { path: string }) => issue.path),
        ['/to'],
      );
    });

    it('another tenant sees only its own (empty) chain, and cannot read ours by path', async () => {
      const result = await verify(undefined, otherHeaders);
      assert.deepEqual([result.valid, result.length], [true, 0]);
      const timeline = await t.app.inject({
        method: 'GET',
        url: '/audit/acme/timeline',
        headers: otherHeaders,
      });
      assert.equal(timeline.statusCode, 403);
      assert.equal(timeline.json().error.code, 'TENANT_MISMATCH');
      const exported = await t.app.inject({
        method: 'GET',
        url: '/audit/acme/export',
        headers: otherHeaders,
      });
      assert.equal(exported.statusCode, 403);
    });

    it('reports a row altered by SQL at its index as ENTRY_HASH_MISMATCH, and records the break once', async () => {
      const restore = await alterStoredEntry(t.storage, 'acme', 2, (text) => text.replace('"n":2', '"n":20'));
      const result = await verify();
      assert.deepEqual(
        [result.valid, result.brokenAt, result.reason, result.length],
        [false, 2, 'ENTRY_HASH_MISMATCH', 2],
      );
      await verify();
      const breaks = await t.storage.db
        .selectFrom('chain_breaks')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .execute();
      assert.equal(breaks.length, 1, 'one record per (tenant, brokenAt)');
      await restore();
    });

    it('reports a removed row as INDEX_GAP, in the middle and at the tail', async () => {
      const saved = await t.storage.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .where('idx', 'in', [1, 4])
        .execute();
      await t.storage.db
        .deleteFrom('audit_entries')
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', 1)
        .execute();
      let result = await verify();
      assert.deepEqual([result.valid, result.brokenAt, result.reason], [false, 1, 'INDEX_GAP']);
      await t.storage.db
        .insertInto('audit_entries')
        .values(saved.filter((r) => r.idx === 1))
        .execute();
      await t.storage.db
        .deleteFrom('audit_entries')
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', 4)
        .execute();
      result = await verify();
      assert.deepEqual([result.valid, result.brokenAt, result.reason], [false, 4, 'INDEX_GAP']);
      await t.storage.db
        .insertInto('audit_entries')
        .values(saved.filter((r) => r.idx === 4))
        .execute();
      assert.equal((await verify()).valid, true);
    });

    it('reports a relinked entry as PREVIOUS_HASH_MISMATCH', async () => {
      // Entry 3 rewritten consistently with its own hash, but pointing at a made-up predecessor.
      const row = await t.storage.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', 3)
        .executeTakeFirstOrThrow();
      const entry = entryFromRow(row);
      const { entryHash: _old, ...rest } = { ...entry, previousHash: 'f'.repeat(64) };
      const canonical = canonicalJson(rest);
      await t.storage.db
        .updateTable('audit_entries')
        .set({ canonical, entry_hash: sha256Hex(canonical), previous_hash: 'f'.repeat(64) })
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', 3)
        .execute();
      const result = await verify();
      assert.deepEqual([result.brokenAt, result.reason], [3, 'PREVIOUS_HASH_MISMATCH']);
      await t.storage.db
        .updateTable('audit_entries')
        .set({ canonical: row.canonical, entry_hash: row.entry_hash, previous_hash: row.previous_hash })
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', 3)
        .execute();
    });

    it('detects a chain rewritten after a checkpoint, even with every later hash recomputed', async () => {
      assert.ok(await t.services.checkpointer.checkpointNow('acme'));
      await appendEvents(t.storage, 'acme', 3, t.clock, 5);
      const ok = await verify();
      assert.deepEqual([ok.valid, ok.checkpointsVerified, ok.length], [true, 1, 8]);

      const originals = await t.storage.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .orderBy('idx')
        .execute();
      // Rewrite entry 2 and re-chain everything after it so every hash and link is consistent.
      let previous = originals[1]?.entry_hash ?? '';
      for (const row of originals.slice(2)) {
        const entry = entryFromRow(row);
        const payload = row.idx === 2 ? { ...(entry.payload as object), n: 999 } : entry.payload;
        const { entryHash: _ignored, ...rest } = { ...entry, payload, previousHash: previous };
        const canonical = canonicalJson(rest);
        const hash = sha256Hex(canonical);
        await t.storage.db
          .updateTable('audit_entries')
          .set({ canonical, entry_hash: hash, previous_hash: previous })
          .where('tenant_id', '=', 'acme')
          .where('idx', '=', row.idx)
          .execute();
        previous = hash;
      }
      const result = await verify();
      assert.deepEqual([result.valid, result.brokenAt, result.reason], [false, 4, 'CHECKPOINT_MISMATCH']);
      for (const row of originals) {
        await t.storage.db
          .updateTable('audit_entries')
          .set({ canonical: row.canonical, entry_hash: row.entry_hash, previous_hash: row.previous_hash })
          .where('tenant_id', '=', 'acme')
          .where('idx', '=', row.idx)
          .execute();
      }
      assert.equal((await verify()).valid, true);
    });

    it('detects a forged checkpoint signature and a truncated tail behind a checkpoint', async () => {
      const checkpoint = await t.storage.db
        .selectFrom('audit_checkpoints')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .executeTakeFirstOrThrow();
      const parts = checkpoint.signature.split('.');
      const forged = `${parts[0]}.${parts[1]}.${Buffer.alloc(64, 1).toString('base64url')}`;
      await t.storage.db
        .updateTable('audit_checkpoints')
        .set({ signature: forged })
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', checkpoint.idx)
        .execute();
      let result = await verify();
      assert.deepEqual([result.brokenAt, result.reason], [checkpoint.idx, 'CHECKPOINT_MISMATCH']);
      await t.storage.db
        .updateTable('audit_checkpoints')
        .set({ signature: checkpoint.signature })
        .where('tenant_id', '=', 'acme')
        .where('idx', '=', checkpoint.idx)
        .execute();

      // Cut the tail (entries >= checkpoint index) and the head row with it: the checkpoint still names them.
      const tail = await t.storage.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .where('idx', '>=', checkpoint.idx)
        .execute();
      const head = await t.storage.db
        .selectFrom('audit_heads')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .executeTakeFirstOrThrow();
      await t.storage.db
        .deleteFrom('audit_entries')
        .where('tenant_id', '=', 'acme')
        .where('idx', '>=', checkpoint.idx)
        .execute();
      await t.storage.db
        .updateTable('audit_heads')
        .set({ last_index: checkpoint.idx - 1 })
        .where('tenant_id', '=', 'acme')
        .execute();
      result = await verify();
      assert.deepEqual(
        [result.valid, result.brokenAt, result.reason],
        [false, checkpoint.idx, 'CHECKPOINT_MISMATCH'],
      );
      await t.storage.db.insertInto('audit_entries').values(tail).execute();
      await t.storage.db
        .updateTable('audit_heads')
        .set({ last_index: head.last_index })
        .where('tenant_id', '=', 'acme')
        .execute();
      assert.equal((await verify()).valid, true);
    });

    it('checkpoints by count and by time through the sweep', async () => {
      const before = await t.services.audit.checkpoints('acme', {});
      assert.equal(await t.services.checkpointer.sweep(), 0, 'nothing due yet');
      await appendEvents(t.storage, 'acme', 1, t.clock, 8);
      t.clock.advance(t.config.checkpointIntervalMs);
      assert.equal(await t.services.checkpointer.sweep(), 1);
      const after = await t.services.audit.checkpoints('acme', {});
      assert.equal(after.length, before.length + 1);
      const response = await t.app.inject({ method: 'GET', url: '/audit/acme/checkpoints', headers });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().checkpoints.length, after.length);
      assert.deepEqual(Object.keys(response.json().checkpoints[0]).sort(), [
        'entryHash',
        'index',
        'issuedAt',
        'kid',
        'signature',
        'tenantId',
      ]);
    });

    it('serves the timeline newest first with filters and keyset pagination', async () => {
      const first = await t.app.inject({ method: 'GET', url: '/audit/acme/timeline?limit=4', headers });
      assert.equal(first.statusCode, 200, first.body);
      const page1 = first.json();
      assert.deepEqual(
        page1.events.map((e: { index: number }) => e.index),
        [8, 7, 6, 5],
      );
      assert.ok(page1.nextCursor);
      const page2 = (
        await t.app.inject({
          method: 'GET',
          url: `/audit/acme/timeline?limit=4&cursor=${page1.nextCursor}`,
          headers,
        })
      ).json();
      assert.deepEqual(
        page2.events.map((e: { index: number }) => e.index),
        [4, 3, 2, 1],
      );
      const page3 = (
        await t.app.inject({
          method: 'GET',
          url: `/audit/acme/timeline?limit=4&cursor=${page2.nextCursor}`,
          headers,
        })
      ).json();
      assert.deepEqual(
        page3.events.map((e: { index: number }) => e.index),
        [0],
      );
      assert.equal(page3.nextCursor, null);
      const event = page1.events[0];
      assert.deepEqual(Object.keys(event).sort(), [
        'actorId',
        'correlationId',
        'createdAt',
        'entryHash',
        'eventType',
        'index',
        'intentId',
        'summary',
        'targetSystem',
      ]);

      const even = (
        await t.app.inject({ method: 'GET', url: '/audit/acme/timeline?eventType=test.even', headers })
      ).json();
      assert.ok(
        even.events.length > 0 &&
          even.events.every((e: { eventType: string }) => e.eventType === 'test.even'),
      );
      const bySystem = (
        await t.app.inject({ method: 'GET', url: '/audit/acme/timeline?targetSystem=org%2Frepo-1', headers })
      ).json();
      assert.ok(
        bySystem.events.length > 0 &&
          bySystem.events.every((e: { targetSystem: string }) => e.targetSystem === 'org/repo-1'),
      );
      const byActor = (
        await t.app.inject({ method: 'GET', url: '/audit/acme/timeline?actorId=actor-0', headers })
      ).json();
      assert.ok(byActor.events.every((e: { actorId: string }) => e.actorId === 'actor-0'));
      const future = (
        await t.app.inject({
          method: 'GET',
          url: '/audit/acme/timeline?from=2100-01-01T00:00:00.000Z',
          headers,
        })
      ).json();
      assert.deepEqual(future.events, []);
      const day = (
        await t.app.inject({
          method: 'GET',
          url: '/audit/acme/timeline?from=2000-01-01&to=2100-01-01',
          headers,
        })
      ).json();
      assert.ok(day.events.length > 0, 'a date alone is midnight UTC');
      for (const bad of [
        'limit=0',
        'limit=201',
        'from=yesterday',
        'cursor=nonsense',
        'unknown=1',
        'from=2020-02-30',
        'to=2021-02-29T00:00:00Z',
        'from=2020-04-31T10:00:00%2B02:00',
        'from=2020-02-28T10:00:00',
        'from=2020-02-28T10:00:00Zjunk',
        'from=2021-01-02&to=2021-01-01',
      ]) {
        const response = await t.app.inject({ method: 'GET', url: `/audit/acme/timeline?${bad}`, headers });
        assert.equal(response.statusCode, 400, `${bad}: ${response.body}`);
        assert.equal(response.json().error.code, 'VALIDATION_ERROR');
      }
    });

    it('refuses a reversed range on every audit route (400 naming the end), as verify-chain does', async () => {
      const cases: Array<[string, string, unknown, string]> = [
        ['GET', '/audit/acme/export?fromIndex=5&toIndex=2', undefined, 'querystring/toIndex'],
        ['GET', '/audit/acme/checkpoints?from=10&to=1', undefined, 'querystring/to'],
        ['POST', '/audit/verify-chain', { from: 10, to: 5 }, '/to'],
      ];
      for (const [method, url, payload, path] of cases) {
        const response = await t.app.inject({
          method: method as 'GET',
          url,
          headers,
          ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
        });
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
        assert.equal(response.json().error.details.issues[0].path, path, url);
        assert.match(response.json().error.message, /the range is inclusive/);
      }
    });

    it('exports NDJSON entries and checkpoints for a range', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/audit/acme/export?fromIndex=2&toIndex=6',
        headers,
      });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /application\/x-ndjson/);
      const lines = response.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const entries = lines.filter((l) => l.entry).map((l) => l.entry);
      assert.deepEqual(
        entries.map((e: { index: number }) => e.index),
        [2, 3, 4, 5, 6],
      );
      const checkpoints = lines.filter((l) => l.checkpoint);
      assert.equal(checkpoints.length, 1, 'the checkpoint at index 4 is in range');
      const position = lines.findIndex((l) => l.checkpoint);
      assert.equal(
        lines[position - 1].entry.index,
        checkpoints[0].checkpoint.index,
        'a checkpoint follows the entry it names',
      );
      for (const entry of entries) {
        const { entryHash, ...rest } = entry;
        assert.equal(sha256Hex(canonicalJson(rest)), entryHash);
      }
    });

    it('acknowledges an open break once, in the chain; 404 when none is open', async () => {
      const none = await t.app.inject({
        method: 'POST',
        url: '/audit/acknowledge-break',
        headers,
        payload: { brokenAt: 77, note: 'x' },
      });
      assert.equal(none.statusCode, 404);
      const open = await t.services.audit.openBreaks('acme');
      assert.ok(open.length > 0);
      const brokenAt = open[0]?.brokenAt ?? -1;
      const ack = await t.app.inject({
        method: 'POST',
        url: '/audit/acknowledge-break',
        headers,
        payload: { brokenAt, note: 'restored from backup' },
      });
      assert.equal(ack.statusCode, 200, ack.body);
      assert.equal(ack.json().note, 'restored from backup');
      const again = await t.app.inject({
        method: 'POST',
        url: '/audit/acknowledge-break',
        headers,
        payload: { brokenAt, note: 'again' },
      });
      assert.equal(again.statusCode, 404);
      const last = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'canonical'])
        .where('tenant_id', '=', 'acme')
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(last.event_type, 'chain.break.acknowledged');
      assert.equal((await verify()).valid, true);
    });

    it('requires audit:verify, audit:read and tenant:admin as the contract says', async () => {
      const agent = await t.services.apiKeys.create('acme', { name: 'robot', role: 'agent' }, null);
      const agentHeaders = { authorization: `Bearer ${agent.key}`, 'x-tenant-id': 'acme' };
      for (const [method, url, permission] of [
        ['POST', '/audit/verify-chain', 'audit:verify'],
        ['GET', '/audit/acme/timeline', 'audit:read'],
        ['GET', '/audit/acme/export', 'audit:read'],
        ['GET', '/audit/acme/checkpoints', 'audit:read'],
        ['POST', '/audit/acknowledge-break', 'tenant:admin'],
      ] as const) {
        const response = await t.app.inject({ method, url, headers: agentHeaders });
        assert.equal(response.statusCode, 403, url);
        assert.equal(response.json().error.details.permission, permission);
      }
      const count = await sql<{
        n: number;
      }>`select count(*) as n from audit_entries where tenant_id = 'acme'`.execute(t.storage.db);
      assert.ok(Number(count.rows[0]?.n) > 0);
    });
  });
}
