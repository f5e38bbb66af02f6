import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { edgeEndpoints } from '../src/edge-http.js';
import { type EdgeVerifierOptions, edgeSettings } from '../src/edge-verifier-options.js';
import { decodePhysicalClaims, type PhysicalTokenClaims } from '../src/physical-token-claims.js';
import { ReportQueue } from '../src/report-queue.js';
import { parseRevocationPage, REVOCATIONS_PAGE_LIMIT, RevocationList } from '../src/revocation-list.js';
import type { BatchVerificationReport } from '../src/wire/physical.js';

function claims(): Record<string, unknown> & { service: Record<string, unknown> } {
  return {
    iss: 'service-authority',
    sub: 'devid:arm-7',
    aud: 'service-edge-verifier',
    iat: 1_750_000_000,
    exp: 1_750_000_002,
    jti: '0190f5c2-1111-7000-8000-000000000001',
    service: {
      version: 2,
      oiCode: 'OI-1501',
      tenantId: 'acme',
      actorIdentity: 'devid:arm-7',
      actorIdentityKind: 'ieee-802-1ar-devid',
      deadlineMs: 1_500,
      issuedAtMs: 1_750_000_000_700,
      expiresAtMs: 1_750_000_002_200,
      safeDefault: 'stop',
      safetyBit: false,
      safetyCitations: [],
      dagNodeId: 'node-1',
      realTimeTier: 'best-effort',
      physicalStateRef: 'snap-1',
      operatorTicketId: null,
    },
  };
}

describe('decodePhysicalClaims', () => {
  it('accepts the claims of document 02 and returns them unchanged', () => {
    const input = claims();
    const decoded = decodePhysicalClaims(input) as PhysicalTokenClaims;
    assert.equal(typeof decoded, 'object');
    assert.deepEqual(decoded, input);
  });

  it('accepts every documented enum value and OI-NNNN codes', () => {
    for (const safeDefault of [
      'stop',
      'hold-position',
      'request-operator',
      'transition-safe-state',
      'abort-mission',
      'ignore',
    ]) {
      const input = claims();
      input.service.safeDefault = safeDefault;
      assert.equal(typeof decodePhysicalClaims(input), 'object', safeDefault);
    }
    for (const realTimeTier of ['best-effort', 'rt-soft', 'rt-hard']) {
      const input = claims();
      input.service.realTimeTier = realTimeTier;
      assert.equal(typeof decodePhysicalClaims(input), 'object', realTimeTier);
    }
    const input = claims();
    input.service.oiCode = 'OI-2901';
    input.service.safetyCitations = ['OI-2901', 'OI-2903'];
    input.service.operatorTicketId = 'esc_0190f5c2-1111-7000-8000-000000000001';
    assert.equal(typeof decodePhysicalClaims(input), 'object');
  });

  const topLevel: [string, unknown][] = [
    ['iss', undefined],
    ['iss', ''],
    ['sub', 7],
    ['jti', ''],
    ['jti', undefined],
    ['aud', ['service-edge-verifier']],
    ['iat', '1750000000'],
    ['iat', 1.5],
    ['exp', undefined],
    ['service', 'x'],
    ['service', null],
  ];
  for (const [name, value] of topLevel) {
    it(`rejects ${name} = ${JSON.stringify(value)}`, () => {
      const input: Record<string, unknown> = claims();
      if (value === undefined) delete input[name];
      else input[name] = value;
      assert.equal(typeof decodePhysicalClaims(input), 'string');
    });
  }

  const serviceMembers: [string, unknown][] = [
    ['version', 1],
    ['version', '2'],
    ['oiCode', 'OI-15'],
    ['oiCode', 'oi-1501'],
    ['oiCode', 'OI-15011'],
    ['tenantId', ''],
    ['tenantId', undefined],
    ['actorIdentityKind', undefined],
    ['dagNodeId', 3],
    ['deadlineMs', 0],
    ['deadlineMs', 300_001],
    ['deadlineMs', 1.5],
    ['issuedAtMs', -1],
    ['issuedAtMs', undefined],
    ['expiresAtMs', '1750000002200'],
    ['safeDefault', 'halt'],
    ['safetyBit', 'true'],
    ['safetyCitations', 'OI-2903'],
    ['safetyCitations', ['OI-1501']],
    ['realTimeTier', 'rt-firm'],
    ['realTimeTier', undefined],
    ['physicalStateRef', undefined],
    ['physicalStateRef', ''],
    ['operatorTicketId', 5],
  ];
  for (const [name, value] of serviceMembers) {
    it(`rejects service.${name} = ${JSON.stringify(value)}`, () => {
      const input = claims();
      if (value === undefined) delete input.service[name];
      else input.service[name] = value;
      const problem = decodePhysicalClaims(input);
      assert.equal(typeof problem, 'string');
      assert.match(problem as string, /service\./);
    });
  }

  it('rejects claims that disagree with each other', () => {
    const sub = claims();
    sub.sub = 'devid:arm-8';
    assert.match(decodePhysicalClaims(sub) as string, /sub/);
    const expires = claims();
    expires.service.expiresAtMs = 1_750_000_002_201;
    assert.match(decodePhysicalClaims(expires) as string, /expiresAtMs/);
    const exp = claims();
    exp.exp = 1_750_000_001; // iat + ceil(1500 / 1000) is iat + 2
    assert.match(decodePhysicalClaims(exp) as string, /exp/);
  });

  it('rejects non-objects', () => {
    for (const value of [null, [], 'x', 1, true]) assert.equal(typeof decodePhysicalClaims(value), 'string');
  });
});

describe('parseRevocationPage', () => {
  const entry = { tokenJti: 'j1', revokedAtMs: 10, reason: 'lost' };

  it('reads a page with and without hasMore', () => {
    assert.deepEqual(
      parseRevocationPage({ revocations: [entry], asOfMs: 10, hasMore: false, serverTimeMs: 11 }),
      {
        revocations: [entry],
        asOfMs: 10,
        hasMore: false,
      },
    );
    const full = Array.from({ length: REVOCATIONS_PAGE_LIMIT }, (_, i) => ({ ...entry, tokenJti: `j${i}` }));
    assert.equal(
      (parseRevocationPage({ revocations: full, asOfMs: 10 }) as { hasMore: boolean }).hasMore,
      true,
    );
    assert.equal(
      (parseRevocationPage({ revocations: [entry], asOfMs: 10 }) as { hasMore: boolean }).hasMore,
      false,
    );
  });

  it('rejects answers of another shape', () => {
    const bad: unknown[] = [
      null,
      [],
      { revocations: {}, asOfMs: 0 },
      { revocations: [], asOfMs: -1 },
      { revocations: [], asOfMs: '0' },
      { revocations: [], asOfMs: 0, hasMore: 'no' },
      { revocations: [null], asOfMs: 0 },
      { revocations: [{ ...entry, tokenJti: '' }], asOfMs: 0 },
      { revocations: [{ ...entry, revokedAtMs: 1.5 }], asOfMs: 0 },
      { revocations: [{ ...entry, reason: null }], asOfMs: 0 },
    ];
    for (const body of bad) assert.equal(typeof parseRevocationPage(body), 'string', JSON.stringify(body));
  });
});

describe('RevocationList', () => {
  it('moves its cursor forward only and answers membership', () => {
    const list = new RevocationList();
    list.apply({ revocations: [{ tokenJti: 'a', revokedAtMs: 5, reason: '' }], asOfMs: 5, hasMore: false });
    list.apply({ revocations: [], asOfMs: 3, hasMore: false });
    assert.equal(list.since, 5);
    assert.ok(list.has('a'));
    assert.ok(!list.has('b'));
  });

  it('prunes exactly the revocations older than the retention', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(1_000_000), { maxLength: 50 }),
        fc.nat(2_000_000),
        fc.nat(500_000),
        (times, now, retention) => {
          const sorted = [...times].sort((a, b) => a - b);
          const list = new RevocationList();
          list.apply({
            revocations: sorted.map((t) => ({ tokenJti: `j${t}`, revokedAtMs: t, reason: '' })),
            asOfMs: sorted.at(-1) ?? 0,
            hasMore: false,
          });
          const removed = list.prune(now, retention);
          const kept = sorted.filter((t) => t + retention > now);
          return (
            removed === sorted.length - kept.length &&
            kept.every((t) => list.has(`j${t}`)) &&
            list.size === kept.length
          );
        },
      ),
    );
  });
});

describe('ReportQueue', () => {
  const report = (n: number): BatchVerificationReport => ({
    jti: `j${n}`,
    edgeNodeId: 'e',
    result: 'accepted',
    atMs: n,
  });

  it('keeps order, capacity and a count of what it dropped, whatever the operations', () => {
    type Op = { push: number } | { take: number } | { fail: true };
    const op = fc.oneof(
      fc.nat(5).map((n) => ({ push: n + 1 }) as Op),
      fc.nat(5).map((n) => ({ take: n + 1 }) as Op),
      fc.constant({ fail: true } as Op),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 60 }), (capacity, ops) => {
        const queue = new ReportQueue(capacity);
        let next = 0;
        let lastBatch: BatchVerificationReport[] = [];
        const delivered: number[] = [];
        for (const o of ops) {
          if ('push' in o) for (let i = 0; i < o.push; i += 1) queue.push(report(next++));
          else if ('take' in o) {
            lastBatch = queue.take(o.take);
            delivered.push(...lastBatch.map((r) => r.atMs));
          } else {
            // The last batch failed: it goes back to the front.
            delivered.splice(delivered.length - lastBatch.length, lastBatch.length);
            queue.putBack(lastBatch);
            lastBatch = [];
          }
          if (queue.length > capacity) return false;
        }
        const rest = queue.take(capacity).map((r) => r.atMs);
        const all = [...delivered, ...rest];
        const increasing = all.every((v, i) => i === 0 || (all[i - 1] ?? -1) < v);
        return increasing && all.length + queue.dropped === next;
      }),
    );
  });

  it('drops the oldest when full', () => {
    const queue = new ReportQueue(2);
    for (const n of [1, 2, 3]) queue.push(report(n));
    assert.deepEqual(
      queue.take(5).map((r) => r.atMs),
      [2, 3],
    );
    assert.equal(queue.dropped, 1);
    assert.throws(() => new ReportQueue(0), TypeError);
  });
});

describe('edge endpoints and options', () => {
  it('derives the three URLs from the base URL', () => {
    for (const base of [
      'https://a.example',
      'https://a.example/',
      'https://a.example/v1',
      'https://a.example/v1/?x=1',
    ]) {
      const urls = edgeEndpoints(base);
      assert.equal(urls.jwks.href, 'https://a.example/.well-known/jwks.json');
      assert.equal(urls.revocations.href, 'https://a.example/v1/physical/revocations');
      assert.equal(urls.verifications.href, 'https://a.example/v1/physical/verifications');
    }
    assert.equal(
      edgeEndpoints('https://a.example/authority').jwks.href,
      'https://a.example/authority/.well-known/jwks.json',
    );
    assert.throws(() => edgeEndpoints('ftp://a.example'), TypeError);
    assert.throws(() => edgeEndpoints('not a url'), TypeError);
  });

  const valid: EdgeVerifierOptions = {
    baseUrl: 'https://a.example',
    apiKey: 'service_live_x',
    tenantId: 'acme',
    edgeNodeId: 'cell-4',
  };

  it('fills in the contract defaults', () => {
    const settings = edgeSettings(valid);
    assert.equal(settings.offlineWindowMs, 30_000);
    assert.equal(settings.clockSkewMs, 250);
    assert.equal(settings.reportBatchSize, 100);
    assert.equal(settings.syncIntervalMs, 10_000);
    assert.ok(settings.remoteKeys !== undefined);
    assert.equal(edgeSettings({ ...valid, jwks: { keys: [] } }).remoteKeys, undefined);
  });

  it('refuses misuse with a TypeError', () => {
    const bad: Partial<Record<keyof EdgeVerifierOptions, unknown>>[] = [
      { baseUrl: '' },
      { apiKey: undefined },
      { tenantId: 3 },
      { edgeNodeId: '' },
      { actorIdentity: '' },
      { issuer: 5 },
      { offlineWindowMs: 0 },
      { offlineWindowMs: 1.5 },
      { syncIntervalMs: 30_000 },
      { reportBatchSize: 501 },
      { reportBatchSize: 0 },
      { clockSkewMs: -1 },
      { clockSkewMs: 60_001 },
      { reportIntervalMs: 2 ** 31 },
      { maxQueuedReports: 0 },
      { clock: 'now' },
      { onError: 1 },
      { jwks: { keys: [{ kty: 'RSA' }] } },
    ];
    for (const override of bad) {
      assert.throws(
        () => edgeSettings({ ...valid, ...override } as EdgeVerifierOptions),
        TypeError,
        JSON.stringify(override),
      );
    }
    assert.throws(() => edgeSettings(null as unknown as EdgeVerifierOptions), TypeError);
  });
});
