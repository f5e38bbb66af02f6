import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import {
  allowlistAllows,
  normalizeCidr,
  parseAllowlist,
  toBlocks,
} from '../../src/foundation/ip-allowlist.js';
import { clientAddress } from '../../src/http/client-address.js';
import { createMemoryCounterStore } from '../../src/http/rate-limit/counter-store.js';
import {
  addressBucket,
  isExceeded,
  type LimitCount,
  mostConstraining,
  PLAN_LIMITS,
  planLimit,
  rateLimitHeaders,
  remaining,
  WINDOW_MS,
} from '../../src/http/rate-limit/limits.js';
import { ROLES } from '../../src/identity/permissions.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../src/portal/password-hash.js';
import {
  ABSOLUTE_TIMEOUT_MS,
  IDLE_TIMEOUT_MS,
  mfaBlocks,
  mfaRequired,
  sessionState,
} from '../../src/portal/session-policy.js';
import { manualClock } from '../helpers/app.js';

const SEED = process.env.FC_SEED === undefined ? 20260101 : Number(process.env.FC_SEED);
const PARAMS = { seed: SEED, numRuns: 500 };

const blocks = (...cidrs: string[]) => toBlocks(cidrs);

describe('IP allowlist entries', () => {
  it('normalizes addresses and CIDR blocks of both families to their network form', () => {
    const cases: Array<[string, string]> = [
      ['203.0.113.0/24', '203.0.113.0/24'],
      ['203.0.113.77/24', '203.0.113.0/24'],
      [' 10.1.2.3 ', '10.1.2.3/32'],
      ['0.0.0.0/0', '0.0.0.0/0'],
      ['2001:db8::/32', '2001:db8::/32'],
      ['2001:DB8:0:0:1::7/64', '2001:db8::/64'],
      ['::1', '::1/128'],
      ['::/0', '::/0'],
    ];
    for (const [entry, expected] of cases) assert.equal(normalizeCidr(entry), expected, entry);
  });

  it('refuses everything else', () => {
    for (const entry of [
      '',
      'localhost',
      '10.0.0',
      '10.0.0/8',
      '0x0a.0.0.1',
      '10.0.0.256',
      '10.0.0.0/33',
      '10.0.0.0/-1',
      '10.0.0.0/',
      '10.0.0.0/8/8',
      '2001:db8::/129',
      'fe80::1%eth0',
      '2001:db8:::1',
      '10.0.0.0/08x',
    ]) {
      assert.equal(normalizeCidr(entry), undefined, JSON.stringify(entry));
    }
  });

  it('names every bad entry by index and collapses duplicates', () => {
    const { cidrs, issues } = parseAllowlist(['10.0.0.0/8', 'nope', '10.9.9.9/8', '::1', 'x']);
    assert.deepEqual(cidrs, ['10.0.0.0/8', '::1/128']);
    assert.deepEqual(
      issues.map((issue) => issue.path),
      ['/cidrs/1', '/cidrs/4'],
    );
    assert.equal(parseAllowlist(Array.from({ length: 101 }, () => '10.0.0.1')).issues[0]?.path, '/cidrs');
  });

  it('an empty list allows every address; a list allows exactly the addresses in its blocks', () => {
    assert.equal(allowlistAllows([], '198.51.100.1'), true);
    assert.equal(allowlistAllows([], 'not an address'), true);
    const list = blocks('203.0.113.0/24', '2001:db8::/32');
    assert.equal(allowlistAllows(list, '203.0.113.9'), true);
    assert.equal(allowlistAllows(list, '203.0.114.9'), false);
    assert.equal(allowlistAllows(list, '::ffff:203.0.113.9'), true, 'IPv4-mapped IPv6 is the IPv4 address');
    assert.equal(allowlistAllows(list, '2001:db8:1::5'), true);
    assert.equal(allowlistAllows(list, '2001:db9::5'), false);
    assert.equal(allowlistAllows(list, 'garbage'), false, 'an unreadable address is never allowed');
  });

  it('property: membership agrees with comparing the first prefix-length bits', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.nat(0xffffffff), fc.integer({ min: 0, max: 32 }), fc.nat(0xffffffff)),
        ([network, bits, candidate]) => {
          const text = (n: number) =>
            ipaddr.fromByteArray([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]).toString();
          const cidr = normalizeCidr(`${text(network)}/${bits}`);
          assert.ok(cidr);
          const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
          const expected = (network & mask) >>> 0 === (candidate & mask) >>> 0;
          assert.equal(allowlistAllows(blocks(cidr), text(candidate)), expected);
        },
      ),
      PARAMS,
    );
  });
});

describe('client address (TRUST_PROXY)', () => {
  const proxies = blocks('10.0.0.0/8', '2001:db8:ffff::/48');

  it('is the socket address without trusted proxies, whatever x-forwarded-for says', () => {
    assert.equal(clientAddress('198.51.100.7', '203.0.113.1', []), '198.51.100.7');
    assert.equal(clientAddress('::ffff:198.51.100.7', undefined, []), '198.51.100.7');
  });

  it('ignores x-forwarded-for from a peer that is not a trusted proxy', () => {
    assert.equal(clientAddress('198.51.100.7', '203.0.113.1', proxies), '198.51.100.7');
  });

  it('takes the rightmost hop outside the trusted list', () => {
    assert.equal(clientAddress('10.0.0.5', '203.0.113.1', proxies), '203.0.113.1');
    assert.equal(clientAddress('10.0.0.5', '192.0.2.9, 203.0.113.1, 10.2.3.4', proxies), '203.0.113.1');
    assert.equal(clientAddress('10.0.0.5', ['192.0.2.9', '203.0.113.1, 10.9.9.9'], proxies), '203.0.113.1');
    assert.equal(clientAddress('2001:db8:ffff::1', '2001:db8:1::42', proxies), '2001:db8:1::42');
    assert.equal(clientAddress('10.0.0.5', '203.0.113.1:5123', proxies), '203.0.113.1');
    assert.equal(clientAddress('10.0.0.5', '[2001:db8:1::42]:443', proxies), '2001:db8:1::42');
  });

  it('a client cannot hide behind a forged leftmost hop', () => {
    // The client sent "x-forwarded-for: 10.0.0.1" itself; the proxy appended the real peer.
    assert.equal(clientAddress('10.0.0.5', '10.0.0.1, 203.0.113.66', proxies), '203.0.113.66');
  });

  it('keeps an unreadable hop as it is (it then matches no allowlist) and falls back sensibly', () => {
    assert.equal(clientAddress('10.0.0.5', 'unknown', proxies), 'unknown');
    assert.equal(clientAddress('10.0.0.5', '10.1.1.1, 10.2.2.2', proxies), '10.1.1.1');
    assert.equal(clientAddress('10.0.0.5', ' , ', proxies), '10.0.0.5');
  });
});

describe('rate-limit rules', () => {
  const count = (limit: number, used: number, resetInMs = 30_000): LimitCount => ({
    scope: 'key',
    limit,
    count: used,
    resetInMs,
  });

  it('plans have the budgets of contract section 3; enterprise uses its own limit', () => {
    assert.deepEqual(PLAN_LIMITS, { free: 100, pro: 500, business: 2_000 });
    assert.equal(planLimit('free', null), 100);
    assert.equal(planLimit('pro', null), 500);
    assert.equal(planLimit('business', null), 2_000);
    assert.equal(planLimit('enterprise', 12_345), 12_345);
  });

  it('headers: limit, requests left (never negative) and whole seconds until the window ends', () => {
    assert.deepEqual(rateLimitHeaders(count(100, 1, 59_001)), {
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-ratelimit-reset': '60',
    });
    assert.equal(rateLimitHeaders(count(100, 150, 1))['x-ratelimit-remaining'], '0');
    assert.equal(rateLimitHeaders(count(100, 150, 0))['x-ratelimit-reset'], '1');
  });

  it('property: the most constraining limit is exceeded if any is, else has the fewest requests left', () => {
    const arbitraryCount = fc.record({
      scope: fc.constantFrom(
        'key' as const,
        'address' as const,
        'login_address' as const,
        'login_account' as const,
      ),
      limit: fc.integer({ min: 1, max: 3_000 }),
      count: fc.integer({ min: 1, max: 3_100 }),
      resetInMs: fc.integer({ min: 0, max: WINDOW_MS }),
    });
    fc.assert(
      fc.property(fc.array(arbitraryCount, { minLength: 1, maxLength: 5 }), (counts) => {
        const chosen = mostConstraining(counts);
        assert.ok(chosen !== undefined && counts.includes(chosen));
        const exceeded = counts.filter(isExceeded);
        if (exceeded.length > 0) {
          assert.ok(isExceeded(chosen));
          assert.equal(chosen.resetInMs, Math.max(...exceeded.map((c) => c.resetInMs)));
        } else {
          assert.equal(remaining(chosen), Math.min(...counts.map(remaining)));
        }
      }),
      PARAMS,
    );
    assert.equal(mostConstraining([]), undefined);
  });

  it('counts IPv4 addresses alone and IPv6 addresses by their /64', () => {
    assert.equal(addressBucket('198.51.100.7'), '198.51.100.7');
    assert.equal(addressBucket('::ffff:198.51.100.7'), '198.51.100.7');
    assert.equal(addressBucket('2001:db8:0:1:aaaa::1'), '2001:db8:0:1::/64');
    assert.equal(addressBucket('2001:db8:0:1:bbbb::2'), addressBucket('2001:db8:0:1:aaaa::1'));
    assert.notEqual(addressBucket('2001:db8:0:2::1'), addressBucket('2001:db8:0:1::1'));
    assert.equal(addressBucket('unknown'), 'unknown');
  });

  it('the in-process counter: a window starts with the first hit and lasts a minute', async () => {
    const clock = manualClock();
    const store = createMemoryCounterStore(clock);
    assert.deepEqual(await store.hit(['a', 'b']), [
      { count: 1, resetInMs: WINDOW_MS },
      { count: 1, resetInMs: WINDOW_MS },
    ]);
    clock.advance(20_000);
    assert.deepEqual(await store.hit(['a']), [{ count: 2, resetInMs: 40_000 }]);
    clock.advance(40_000);
    assert.deepEqual(await store.hit(['a']), [{ count: 1, resetInMs: WINDOW_MS }], 'a new window');
  });
});

describe('portal session rules', () => {
  it('a session lives 30 minutes without requests and 12 hours at most', () => {
    const created = 1_000_000;
    assert.equal(IDLE_TIMEOUT_MS, 30 * 60 * 1000);
    assert.equal(ABSOLUTE_TIMEOUT_MS, 12 * 60 * 60 * 1000);
    const at = (lastSeenAt: number, now: number) => sessionState({ createdAt: created, lastSeenAt }, now);
    assert.equal(at(created, created + IDLE_TIMEOUT_MS - 1), 'active');
    assert.equal(at(created, created + IDLE_TIMEOUT_MS), 'idle_timeout');
    const late = created + ABSOLUTE_TIMEOUT_MS - 1;
    assert.equal(at(late - 1, late), 'active');
    assert.equal(at(late, late + 1), 'absolute_timeout');
  });

  it('privileged roles, and users who enrolled a factor, must verify it', () => {
    const privileged = new Set(['owner', 'admin', 'policy_admin', 'senior_approver', 'approver']);
    for (const role of ROLES) {
      assert.equal(mfaRequired(role, false), privileged.has(role), role);
      assert.equal(mfaRequired(role, true), true, role);
    }
    assert.equal(mfaBlocks({ mfaRequired: true, mfaVerified: false }), true);
    assert.equal(mfaBlocks({ mfaRequired: true, mfaVerified: true }), false);
    assert.equal(mfaBlocks({ mfaRequired: false, mfaVerified: false }), false);
  });
});

describe('password hashes (scrypt)', () => {
  it('verifies the password and nothing else; each hash has its own salt', async () => {
    const first = await hashPassword('correct horse battery staple');
    const second = await hashPassword('correct horse battery staple');
    assert.match(first, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first, second);
    assert.equal(await verifyPassword('correct horse battery staple', first), true);
    assert.equal(await verifyPassword('correct horse battery stapl', first), false);
    assert.equal(await verifyPassword('', first), false);
    // NFC: the composed and decomposed forms of ü are one password.
    const umlaut = await hashPassword('gr\u00fcn-gr\u00fcn-gr\u00fcn');
    assert.equal(await verifyPassword('gru\u0308n-gru\u0308n-gru\u0308n', umlaut), true);
  });

  it('refuses hashes it did not write, without throwing', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$1$2$3',
      'scrypt$99999999$8$1$c2FsdA$aGFzaA',
      'bcrypt$x$y$z$a$b',
    ]) {
      assert.equal(await verifyPassword('whatever', stored), false, stored);
    }
    assert.equal(await verifyPassword('whatever', await dummyPasswordHash()), false);
  });
});
