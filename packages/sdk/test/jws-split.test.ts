import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { splitCompactJws, utf8 } from '../src/jws.js';
import { isRecord } from '../src/keys.js';

/**
 * The rules of a compact JWS's structure checked the plain way, part by part, as the SDK did before
 * the one-pass check and the header cache: the fast path must give the same answer for every input.
 */
function reference(value: unknown, maxLength: number, subject = 'the token'): unknown {
  if (typeof value !== 'string') return `${subject} is not a string`;
  if (value.length > maxLength) return `${subject} is too long`;
  const parts = value.split('.');
  if (parts.length !== 3) return `${subject} does not have three parts`;
  const [headerPart, payloadPart] = parts as [string, string, string];
  if (headerPart === '' || payloadPart === '') return 'empty header or payload';
  for (const part of parts) {
    if (!/^[A-Za-z0-9_-]*$/.test(part) || part.length % 4 === 1) return 'a part is not base64url';
    // Canonical exactly when decoding and encoding again gives the same text.
    if (Buffer.from(part, 'base64url').toString('base64url') !== part) {
      return 'a part is not canonical base64url';
    }
  }
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(Buffer.from(headerPart, 'base64url')));
  } catch {
    return 'the header is not JSON';
  }
  if (!isRecord(header)) return 'the header is not a JSON object';
  if (typeof header.alg !== 'string') return 'the header has no alg';
  if (typeof header.kid !== 'string' || header.kid === '') return 'the header has no kid';
  return { header, compact: value };
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const HEADERS = [
  '{"alg":"RS256","typ":"JWT","kid":"acme-1700000000-ABCDEFGH"}',
  '{"alg":"EdDSA","kid":"k"}',
  '{"alg":"RS256","kid":""}',
  '{"kid":"k"}',
  '[1,2]',
  'null',
  '{"alg":"RS256","kid":"k"',
];

/** Strings near a compact JWS: real headers, base64url noise, stray dots and foreign characters. */
const tokenLike = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...HEADERS.map(b64), ''),
      fc.stringMatching(/^[A-Za-z0-9_-]{0,9}$/),
      fc.stringMatching(/^[A-Za-z0-9_-]{0,9}$/),
    )
    .map(([h, p, s]) => `${h}.${p}.${s}`),
  fc.stringMatching(/^[A-Za-z0-9_.=+/ -]{0,24}$/),
  fc.string({ maxLength: 24 }),
);

describe('splitCompactJws', () => {
  it('answers as the part-by-part reference for every string near a compact JWS', () => {
    fc.assert(
      fc.property(tokenLike, fc.integer({ min: 0, max: 40 }), (value, maxLength) => {
        assert.deepEqual(splitCompactJws(value, maxLength), reference(value, maxLength));
      }),
      { numRuns: 5_000 },
    );
  });

  it('names the first problem when several parts are wrong', () => {
    const header = b64(HEADERS[0] as string);
    // The payload is not canonical (unused bits set) and the signature holds a foreign character.
    assert.equal(splitCompactJws(`${header}.AB.a+b`, 1_000), 'a part is not canonical base64url');
    assert.equal(splitCompactJws(`${header}.AA.a+b`, 1_000), 'a part is not base64url');
    assert.equal(splitCompactJws(`${header}.AAAAA.AA`, 1_000), 'a part is not base64url');
    assert.equal(
      splitCompactJws('a.b.c.d', 1_000, 'the signature'),
      'the signature does not have three parts',
    );
    assert.equal(splitCompactJws(`${header}..AA`, 1_000), 'empty header or payload');
    assert.equal(splitCompactJws(`${header}.AA.AA\n`, 1_000), 'a part is not base64url');
  });

  it('shares one frozen header between tokens with the same header text, and re-checks others', () => {
    const header = b64(HEADERS[0] as string);
    const first = splitCompactJws(`${header}.AA.AA`, 1_000);
    const second = splitCompactJws(`${header}.AQ.AQ`, 1_000);
    assert.ok(typeof first !== 'string' && typeof second !== 'string');
    assert.equal(first.header, second.header);
    assert.ok(Object.isFrozen(first.header));
    assert.equal(second.compact, `${header}.AQ.AQ`);
    assert.throws(() => {
      (first.header as Record<string, unknown>).alg = 'none';
    }, TypeError);
    // A header refused once is refused again: refusals are never remembered as headers.
    const noKid = b64(HEADERS[2] as string);
    assert.equal(splitCompactJws(`${noKid}.AA.AA`, 1_000), 'the header has no kid');
    assert.equal(splitCompactJws(`${noKid}.AA.AA`, 1_000), 'the header has no kid');
  });

  it('keeps answering correctly while many distinct headers pass through', () => {
    for (let i = 0; i < 500; i += 1) {
      const text = `{"alg":"RS256","kid":"k${i}"}`;
      const parts = splitCompactJws(`${b64(text)}.AA.`, 1_000);
      assert.ok(typeof parts !== 'string');
      assert.equal(parts.header.kid, `k${i}`);
    }
  });
});
