import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { v7 as uuidv7 } from 'uuid';
import { REVOCATIONS_PAGE_LIMIT } from '../../src/physical/use-cases/physical-revocations.js';
import { bearer, createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { chainEvents, goal, issueToken, principal, recordRefusal, tokenRequest } from './fixtures.js';

interface Page {
  revocations: Array<{ tokenJti: string; revokedAtMs: number; reason: string }>;
  asOfMs: number;
  hasMore: boolean;
  serverTimeMs: number;
}

for (const engine of ENGINES) {
  describe(`physical token revocation (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let edge: Headers;
    let other: Headers;

    before(async () => {
      t = await createTestApp(engine);
      owner = await t.ownerHeaders('acme');
      edge = await t.roleHeaders('acme', 'edge');
      // Enterprise: the concurrent poller below makes many calls in a second.
      const globex = await t.createTenant('globex', 'enterprise');
      other = bearer(globex.ownerKey.key, 'globex');
    });
    after(async () => {
      await t.close();
    });

    const revoke = (jti: string, headers = owner, payload: unknown = { reason: 'arm recalled' }) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/physical/authority-tokens/${jti}/revoke`,
        headers,
        payload: payload as object,
      });
    const page = async (since?: number, headers = edge): Promise<Page> => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/physical/revocations${since === undefined ? '' : `?since=${since}`}`,
        headers,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Page;
    };
    /** Every revocation after `since`, following asOfMs until hasMore is false, as a verifier does. */
    const drain = async (since = 0, headers = edge) => {
      const seen: Page['revocations'] = [];
      let cursor = since;
      let calls = 0;
      for (;;) {
        const next = await page(cursor, headers);
        calls += 1;
        seen.push(...next.revocations);
        assert.ok(next.asOfMs >= cursor);
        cursor = next.asOfMs;
        if (!next.hasMore) break;
      }
      return { seen, calls, asOfMs: cursor };
    };

    it('revokes an issued token once; a repeat answers the original time; audited once', async () => {
      const issued = await issueToken(t, 'acme');
      const first = await revoke(issued.jti);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(first.json(), { tokenJti: issued.jti, revokedAtMs: t.clock() });
      t.clock.advance(10);
      const again = await revoke(issued.jti, owner, { reason: 'again' });
      assert.deepEqual(again.json(), first.json());
      const events = await chainEvents(t, 'acme', 'physical.token.revoked');
      assert.equal(events.length, 1);
      assert.equal(events[0]?.correlationId, issued.correlationId);
      // A physical event (contract §6): the token's actor; the revoking credential in the payload.
      assert.equal(events[0]?.actorId, 'devid:arm-7');
      assert.equal(events[0]?.actorType, 'physical:robot');
      const keys = (await t.app.inject({ method: 'GET', url: '/keys', headers: owner })).json()
        .keys as Array<{
        id: string;
        role: string;
      }>;
      assert.deepEqual(events[0]?.payload, {
        tokenJti: issued.jti,
        revokedAtMs: first.json().revokedAtMs,
        reason: 'arm recalled',
        actorIdentity: 'devid:arm-7',
        revokedBy: keys.find((key) => key.role === 'owner')?.id,
      });
      const listed = await page();
      assert.deepEqual(listed.revocations, [
        { tokenJti: issued.jti, revokedAtMs: first.json().revokedAtMs, reason: 'arm recalled' },
      ]);
      assert.equal(listed.asOfMs, first.json().revokedAtMs);
      assert.equal(listed.hasMore, false);
      assert.equal(listed.serverTimeMs, t.clock());
      assert.deepEqual((await t.services.physical.audit.get('acme', issued.jti))?.revocation, {
        revokedAtMs: first.json().revokedAtMs,
        reason: 'arm recalled',
      });
      const empty = await page(listed.asOfMs);
      assert.deepEqual(empty.revocations, []);
      assert.equal(empty.asOfMs, listed.asOfMs, 'an empty page keeps since');
    });

    it('answers 404 not_found for unknown jtis, refused decisions and other tenants; 400 and 403 as documented', async () => {
      const refused = await recordRefusal(t, 'acme', 'DENY');
      const foreign = await issueToken(t, 'globex');
      for (const jti of ['no-such-token', refused.decisionId, foreign.jti]) {
        const res = await revoke(jti);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().error.code, 'not_found');
      }
      assert.deepEqual((await page(0, other)).revocations, []);
      for (const payload of [{}, { reason: '' }, { reason: 'x', extra: true }]) {
        const res = await revoke(foreign.jti, other, payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().error.code, 'validation_error');
      }
      const byEdge = await revoke(foreign.jti, edge);
      assert.equal(byEdge.statusCode, 403);
      assert.equal(byEdge.json().error.details.permission, 'physical:token:revoke');
      for (const query of ['?since=-1', '?since=abc', '?since=1&since=2', '?until=3']) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/v1/physical/revocations${query}`,
          headers: edge,
        });
        assert.equal(res.statusCode, 400, query);
      }
    });

    it('keeps revokedAtMs strictly increasing under concurrent revokes, and a concurrent poller misses none', async () => {
      const tokens = await Promise.all(Array.from({ length: 24 }, () => issueToken(t, 'globex')));
      const { asOfMs: start } = await drain(0, other);
      const polled: Page['revocations'] = [];
      let since = start;
      let done = false;
      const poller = (async () => {
        while (!done) {
          await setTimeout(5);
          const next = await page(since, other);
          polled.push(...next.revocations);
          since = next.asOfMs;
        }
      })();
      // The clock stands still: the times come from max(now, previous + 1).
      const answers = await Promise.all(tokens.map((token) => revoke(token.jti, other)));
      done = true;
      await poller;
      polled.push(...(await drain(since, other)).seen);
      const times = answers.map((res) => {
        assert.equal(res.statusCode, 200, res.body);
        return res.json().revokedAtMs as number;
      });
      assert.equal(new Set(times).size, times.length, 'all distinct');
      const sorted = [...times].sort((a, b) => a - b);
      assert.deepEqual(
        sorted,
        Array.from({ length: times.length }, (_, i) => (sorted[0] ?? 0) + i),
      );
      assert.deepEqual(
        polled.map((r) => r.tokenJti).sort(),
        tokens.map((token) => token.jti).sort(),
        'the poller saw every revocation exactly once',
      );
      for (let i = 1; i < polled.length; i += 1) {
        assert.ok((polled[i]?.revokedAtMs ?? 0) > (polled[i - 1]?.revokedAtMs ?? 0));
      }
    });

    it(`pages over more than ${REVOCATIONS_PAGE_LIMIT} revocations with since = asOfMs`, async () => {
      const total = REVOCATIONS_PAGE_LIMIT + 234;
      const request = tokenRequest();
      const jtis = Array.from({ length: total }, () => randomUUID());
      // Issued in bulk (the decision rows and chain entries of 1,234 tokens), then revoked one by one.
      await t.storage.writeTransaction(async (trx) => {
        for (const jti of jtis) {
          await t.services.physical.audit.record(trx, {
            tenantId: 'acme',
            decision: 'ALLOW',
            tokenJti: jti,
            correlationId: uuidv7(),
            issuedAtMs: t.clock(),
            expiresAtMs: t.clock() + 5_000,
            actorIdentity: 'devid:arm-7',
            actorKind: 'robot',
            oiCode: 'OI-1501',
            structuredGoal: goal(),
            dagNode: request.dagNode,
            physicalStateRef: null,
            safetyBit: false,
            safetyCitations: [],
            safeDefault: 'stop',
            clauseId: 'allow-when-clear',
            clauseIds: ['allow-when-clear'],
            escalationTicketId: null,
            operatorTicketId: null,
          });
        }
      });
      const revoker = principal('acme', 'bulk-revoker');
      const { asOfMs: start } = await drain();
      for (const [i, jti] of jtis.entries()) {
        if (i % 400 === 0) t.clock.advance(1);
        await t.services.physical.revocations.revoke('acme', revoker, jti, `bulk ${i}`);
      }
      const first = await page(start);
      assert.equal(first.revocations.length, REVOCATIONS_PAGE_LIMIT);
      assert.equal(first.hasMore, true);
      assert.equal(first.asOfMs, first.revocations.at(-1)?.revokedAtMs);
      const { seen, calls } = await drain(start);
      assert.equal(calls, 2);
      assert.deepEqual(
        seen.map((r) => r.tokenJti),
        jtis,
        'oldest first, none skipped, none twice',
      );
      assert.deepEqual(seen.map((r) => r.reason).slice(0, 2), ['bulk 0', 'bulk 1']);
    });
  });
}
