import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  base32Encode,
  hotp,
  matchTotp,
  otpauthUri,
  TOTP_STEP_MS,
  totpCode,
  totpStep,
} from '../../src/portal/totp.js';
import { base32Decode } from './portal-helpers.js';

const SEED = process.env.FC_SEED === undefined ? 20260101 : Number(process.env.FC_SEED);
/** The SHA-1 seed of RFC 6238 appendix B and RFC 4226 appendix D. */
const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

describe('TOTP (RFC 6238) and HOTP (RFC 4226)', () => {
  it('matches the HOTP test values of RFC 4226 appendix D', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    for (const [counter, code] of expected.entries()) {
      assert.equal(hotp(RFC_SECRET, counter), code, `counter ${counter}`);
    }
  });

  it('matches the SHA-1 TOTP test values of RFC 6238 appendix B (8 digits)', () => {
    const vectors: Array<[number, string]> = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, code] of vectors)
      assert.equal(totpCode(RFC_SECRET, seconds * 1000, 8), code, `T=${seconds}`);
  });

  it('encodes base32 as RFC 4648 section 10 does (without padding)', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [text, encoded] of vectors) assert.equal(base32Encode(Buffer.from(text)), encoded);
  });

  it('base32 round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        assert.deepEqual(base32Decode(base32Encode(Buffer.from(bytes))), Buffer.from(bytes));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('accepts the code of the current step and of one step either side, nothing further', () => {
    const now = Date.parse('2026-03-01T12:00:10.000Z');
    const step = totpStep(now);
    for (const offset of [-1, 0, 1]) {
      const code = hotp(RFC_SECRET, step + offset);
      assert.equal(matchTotp(RFC_SECRET, code, now, null), step + offset, `offset ${offset}`);
    }
    for (const offset of [-3, -2, 2, 3]) {
      const code = hotp(RFC_SECRET, step + offset);
      const collides = [-1, 0, 1].some((near) => hotp(RFC_SECRET, step + near) === code);
      if (!collides) assert.equal(matchTotp(RFC_SECRET, code, now, null), undefined, `offset ${offset}`);
    }
  });

  it('never accepts a step at or before the last accepted one (replay in the same step)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
        fc.integer({ min: -1, max: 1 }),
        (bytes, now, offset) => {
          const secret = Buffer.from(bytes);
          const step = totpStep(now) + offset;
          const code = hotp(secret, step);
          const first = matchTotp(secret, code, now, null);
          assert.notEqual(first, undefined);
          // Once a step is recorded, its code (and every older one) is refused.
          const again = matchTotp(secret, code, now, first ?? null);
          if (again !== undefined) assert.ok(again > (first ?? 0), 'only a later step with the same code');
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('refuses anything but six digits', () => {
    const now = Date.now();
    const code = totpCode(RFC_SECRET, now);
    for (const bad of ['', '12345', '1234567', `${code} `, ` ${code}`, 'abcdef', '12345٣']) {
      assert.equal(matchTotp(RFC_SECRET, bad, now, null), undefined, JSON.stringify(bad));
    }
  });

  it('builds an otpauth URI an authenticator app reads', () => {
    const uri = new URL(otpauthUri(RFC_SECRET, 'ops@acme.test (acme)', 'Authority Runtime'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(decodeURIComponent(uri.pathname), '/Authority Runtime:ops@acme.test (acme)');
    assert.equal(uri.searchParams.get('secret'), base32Encode(RFC_SECRET));
    assert.equal(uri.searchParams.get('issuer'), 'Authority Runtime');
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), String(TOTP_STEP_MS / 1000));
  });
});
