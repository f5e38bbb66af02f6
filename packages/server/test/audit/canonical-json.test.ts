import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalJson } from '../../src/crypto/canonical-json.js';

describe('canonical JSON (RFC 8785)', () => {
  it('agrees with an independent JCS implementation on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        assert.equal(canonicalJson(value), canonicalize(value));
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees on values with full-Unicode keys and strings', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    fc.assert(
      fc.property(
        fc.dictionary(text, fc.oneof(text, fc.double({ noNaN: true, noDefaultInfinity: true }))),
        (value) => {
          assert.equal(canonicalJson(value), canonicalize(value));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('agrees on strings made of the characters around the plain-ASCII shortcut', () => {
    // Controls, the quote, the backslash, DEL, the first non-ASCII units and both surrogate halves:
    // every boundary of the shortcut that writes printable ASCII as it is.
    const units = [0x00, 0x08, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x2f, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80];
    const unit = fc.oneof(
      fc.constantFrom(...units.map((code) => String.fromCharCode(code))),
      fc.constantFrom('\u2028', '\u00e9', '\ud83d\ude00', 'a', 'Z'),
    );
    const text = fc.array(unit, { maxLength: 10 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.dictionary(text, text), text, (record, alone) => {
        assert.equal(canonicalJson(record), canonicalize(record));
        assert.equal(canonicalJson(alone), canonicalize(alone));
      }),
      { numRuns: 3_000 },
    );
    const lone = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff');
    fc.assert(
      fc.property(text, lone, text, (before, half, after) => {
        assert.throws(() => canonicalJson(`${before}${half}${after}`), /lone surrogate/);
      }),
      { numRuns: 500 },
    );
  });

  it('sorts keys by UTF-16 code units and formats numbers as ECMAScript does', () => {
    assert.equal(
      canonicalJson({ b: 1, a: 2, '\u20ac': 3, '\ud83d\ude00': 4, A: 5 }),
      '{"A":5,"a":2,"b":1,"€":3,"😀":4}',
    );
    assert.equal(
      canonicalJson([1e21, 1e-7, -0, 0.1 + 0.2, 333333333.3333333]),
      '[1e+21,1e-7,0,0.30000000000000004,333333333.3333333]',
    );
    assert.equal(canonicalJson({ a: undefined, b: [undefined], c: 'x' }), '{"b":[null],"c":"x"}');
    assert.equal(canonicalJson({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}');
    assert.equal(canonicalJson('line\nbreak "quoted" \u0001'), '"line\\nbreak \\"quoted\\" \\u0001"');
  });

  it('refuses what JSON cannot represent', () => {
    assert.throws(() => canonicalJson(Number.NaN));
    assert.throws(() => canonicalJson({ x: Number.POSITIVE_INFINITY }));
    assert.throws(() => canonicalJson('\ud800'));
    assert.throws(() => canonicalJson({ '\udc00': 1 }));
    assert.throws(() => canonicalJson(10n));
    assert.throws(() => canonicalJson(undefined));
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    assert.throws(() => canonicalJson(circular));
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { k: 1 };
    assert.equal(canonicalJson({ a: shared, b: shared }), '{"a":{"k":1},"b":{"k":1}}');
  });
});
