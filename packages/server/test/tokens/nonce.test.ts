import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomNonce } from '../../src/crypto/nonce.js';

describe('token nonces', () => {
  it('are 128 bits in canonical base64url, and never repeat across many pool refills', () => {
    const seen = new Set<string>();
    // 20,000 nonces: about 78 refills of the 256-nonce pool.
    for (let i = 0; i < 20_000; i += 1) {
      const nonce = randomNonce();
      assert.match(nonce, /^[A-Za-z0-9_-]{22}$/);
      const bytes = Buffer.from(nonce, 'base64url');
      assert.equal(bytes.length, 16);
      assert.equal(bytes.toString('base64url'), nonce);
      assert.equal(seen.has(nonce), false, `nonce ${nonce} repeated after ${i} draws`);
      seen.add(nonce);
    }
  });

  it('look uniformly random: every bit is set in about half of them', () => {
    const draws = 20_000;
    const ones = new Array<number>(128).fill(0);
    for (let i = 0; i < draws; i += 1) {
      const bytes = Buffer.from(randomNonce(), 'base64url');
      for (let bit = 0; bit < 128; bit += 1) {
        if ((bytes[bit >> 3] as number) & (1 << (bit & 7))) ones[bit] = (ones[bit] as number) + 1;
      }
    }
    // Binomial(20,000, 1/2): standard deviation about 71; 6 of them is never reached by chance.
    for (const [bit, count] of ones.entries()) {
      assert.ok(Math.abs(count - draws / 2) < 6 * 71, `bit ${bit} set in ${count} of ${draws}`);
    }
  });
});
