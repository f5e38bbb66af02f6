import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { AuditResource } from '../src/client/audit.js';
import { AuthorityClient } from '../src/client/authority-client.js';
import { backoffDelay, DEFAULT_BACKOFF, parseRetryAfter } from '../src/client/backoff.js';
import type { IntentsResource } from '../src/client/intents.js';
import type { KeysResource } from '../src/client/keys.js';
import { PagedList } from '../src/client/paged-list.js';
import type { PhysicalResource } from '../src/client/physical.js';
import type { PoliciesResource, ThresholdsResource } from '../src/client/policies.js';
import { Transport } from '../src/client/transport.js';
import type { BodyOf, ResponseOf } from '../src/wire/route.js';
import { WIRE_ROUTES } from '../src/wire/routes.js';

type R = typeof WIRE_ROUTES;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Result<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** Compile-time: the client's calls take and give the catalogue's types, so they cannot drift apart. */
const fromCatalogue: true[] = [
  true satisfies Same<Result<IntentsResource['get']>, ResponseOf<R['getIntent'], 200>>,
  true satisfies Same<Result<IntentsResource['receipt']>, ResponseOf<R['getReceipt'], 200>>,
  true satisfies Same<Result<IntentsResource['evaluate']>, ResponseOf<R['evaluateIntent'], 200>>,
  true satisfies Same<Parameters<IntentsResource['evaluate']>[0], BodyOf<R['evaluateIntent']>>,
  true satisfies Same<Result<AuthorityClient['decideApproval']>, ResponseOf<R['decideApproval'], 200>>,
  true satisfies Same<Parameters<AuthorityClient['decideApproval']>[0], BodyOf<R['decideApproval']>>,
  true satisfies Same<Result<AuthorityClient['consumeToken']>, ResponseOf<R['consumeToken'], 200>>,
  true satisfies Same<Result<ThresholdsResource['get']>, ResponseOf<R['getThresholds'], 200>>,
  true satisfies Same<Parameters<PoliciesResource['save']>[0], BodyOf<R['savePolicy']>>,
  true satisfies Same<Result<PoliciesResource['save']>, ResponseOf<R['savePolicy'], 201>>,
  true satisfies Same<Result<AuditResource['verifyChain']>, ResponseOf<R['verifyChain'], 200>>,
  true satisfies Same<Result<KeysResource['createApiKey']>, ResponseOf<R['createApiKey'], 201>>,
  true satisfies Same<Parameters<PhysicalResource['issueToken']>[0], BodyOf<R['issuePhysicalToken']>>,
  true satisfies Same<Result<PhysicalResource['auditEntry']>, ResponseOf<R['getPhysicalAudit'], 200>>,
];

const transport = (baseUrl: string) =>
  new Transport({
    baseUrl,
    tenantId: 'acme',
    apiKey: 'k',
    timeoutMs: 1_000,
    maxAttempts: 1,
    fetch: globalThis.fetch,
    backoff: DEFAULT_BACKOFF,
    random: Math.random,
  });

describe('the client types', () => {
  it('are the wire catalogue types', () => {
    assert.ok(fromCatalogue.every(Boolean));
  });
});

describe('backoffDelay', () => {
  it('property: full jitter in [0, min(max, base · 2^(retry-1)))', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, baseDelayMs, maxDelayMs, draw) => {
          const settings = { baseDelayMs, maxDelayMs, maxRetryAfterMs: 0 };
          const delay = backoffDelay(retry, settings, () => draw);
          const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
          assert.ok(delay >= 0 && delay < Math.max(ceiling, 1), `${delay} for ceiling ${ceiling}`);
        },
      ),
    );
  });

  it('grows exponentially until the cap', () => {
    const top = (retry: number) => backoffDelay(retry, DEFAULT_BACKOFF, () => 0.999_999);
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(top), [249, 499, 999, 1999, 3999, 7999, 7999]);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates, and ignores what it cannot read', () => {
    const now = Date.parse('2026-01-01T00:00:00.000Z');
    assert.equal(parseRetryAfter('2', now), 2_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5_000);
    assert.equal(
      parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now),
      0,
      'a date in the past waits nothing',
    );
    for (const header of [null, '', '-1', '1.5', 'soon']) {
      assert.equal(parseRetryAfter(header, now), undefined, String(header));
    }
  });
});

describe('PagedList', () => {
  const pages: Record<string, { items: number[]; nextCursor: string | null }> = {
    first: { items: [1, 2], nextCursor: 'b' },
    b: { items: [3], nextCursor: 'c' },
    c: { items: [], nextCursor: null },
  };
  const list = (calls: string[]) =>
    new PagedList(
      async (cursor: string | undefined) => {
        calls.push(cursor ?? 'first');
        return pages[cursor ?? 'first'] as { items: number[]; nextCursor: string | null };
      },
      (page) => page.items,
      (page) => page.nextCursor ?? undefined,
    );

  it('is awaited for its first page and iterated for every item, lazily', async () => {
    const calls: string[] = [];
    assert.deepEqual((await list(calls)).items, [1, 2]);
    assert.deepEqual(calls, ['first']);
    const seen: number[] = [];
    for await (const item of list(calls)) {
      seen.push(item);
      if (item === 1) assert.deepEqual(calls, ['first', 'first'], 'the next page is not fetched yet');
    }
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(await list([]).all(), [1, 2, 3]);
  });
});

describe('Transport.url and the client options', () => {
  it('puts physical routes under /v1, encodes path parameters and keeps a path prefix', () => {
    assert.equal(
      transport('https://authority.example.com/').url({
        route: WIRE_ROUTES.getIntent,
        params: { id: 'a/b c' },
      }).href,
      'https://authority.example.com/intent/a%2Fb%20c',
    );
    assert.equal(
      transport('https://example.com/authority/v1').url({ route: WIRE_ROUTES.issuePhysicalToken }).href,
      'https://example.com/authority/v1/physical/authority-tokens',
    );
    assert.equal(
      transport('http://127.0.0.1:8080').url({
        route: WIRE_ROUTES.listIntents,
        query: { status: 'ESCALATED', limit: 5, cursor: undefined },
      }).href,
      'http://127.0.0.1:8080/intents?status=ESCALATED&limit=5',
    );
    assert.throws(() => transport('ftp://example.com'), TypeError);
    assert.throws(
      () => transport('https://example.com').url({ route: WIRE_ROUTES.getIntent }),
      /missing path parameter id/,
    );
  });

  it('refuses options that cannot work', () => {
    const options = { baseUrl: 'https://example.com', tenantId: 'acme', apiKey: 'k' };
    assert.doesNotThrow(() => new AuthorityClient(options));
    for (const bad of [
      { ...options, apiKey: '' },
      { ...options, tenantId: undefined as unknown as string },
      { ...options, maxAttempts: 0 },
      { ...options, maxAttempts: 1.5 },
      { ...options, timeoutMs: 0 },
    ]) {
      assert.throws(() => new AuthorityClient(bad), TypeError);
    }
  });
});
