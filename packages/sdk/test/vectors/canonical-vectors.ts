// RFC 8785 (JCS) vectors: JSON texts and their canonical form, so that the Python and Go SDKs hash
// audit entries and sign webhook payloads over exactly the bytes the service does. Numbers come
// from a seeded generator (random bit patterns, so every exponent range appears) and are written
// in several textual forms; strings and member names exercise escapes and UTF-16 ordering.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export interface CanonicalVector {
  name: string;
  /** A JSON text to parse. */
  json: string;
  /** Its canonical form, or `null` when it has none (a lone surrogate, a number out of range). */
  canonical: string | null;
  /** Lower-case hex SHA-256 of the UTF-8 bytes of `canonical`, or `null`. */
  sha256: string | null;
}

/** A small seeded generator (mulberry32), so that the vectors are the same on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

function randomDouble(next: () => number): number {
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    view.setUint32(0, next());
    view.setUint32(4, next());
    const value = view.getFloat64(0);
    if (Number.isFinite(value)) return value;
  }
}

/** `value` written as JSON in one of several equivalent forms. */
function spelled(value: number, form: number): string {
  const plain = JSON.stringify(value);
  switch (form % 4) {
    case 1:
      return value.toExponential().replace('e+', 'E+');
    case 2:
      return Math.abs(value) < 1e21 && Math.abs(value) >= 1e-6 ? value.toFixed(Math.min(20, 8)) : plain;
    case 3:
      return value.toPrecision(17);
    default:
      return plain;
  }
}

function vector(name: string, json: string): CanonicalVector {
  let canonical: string | null;
  try {
    canonical = canonicalize(JSON.parse(json)) ?? null;
  } catch {
    canonical = null;
  }
  const sha256 = canonical === null ? null : createHash('sha256').update(canonical, 'utf8').digest('hex');
  return { name, json, canonical, sha256 };
}

/**
 * Every canonical JSON vector.
 *
 * @example
 * ```ts
 * const { vectors } = canonicalVectors();
 * ```
 */
export function canonicalVectors() {
  const next = generator(0x5eed);
  const vectors: CanonicalVector[] = [];
  for (let index = 0; index < 400; index += 1) {
    const value = randomDouble(next);
    vectors.push(vector(`number-random-${index}`, spelled(value, index)));
  }
  for (let index = 0; index < 100; index += 1) {
    const value = (next() % 2_000_000) / 10 ** (next() % 12) - 100_000;
    vectors.push(vector(`number-decimal-${index}`, spelled(value, index)));
  }
  const fixed: [string, string][] = [
    ['zero', '0'],
    ['negative-zero', '-0'],
    ['negative-zero-float', '-0.0'],
    ['one-point-zero', '1.0'],
    ['exponent-upper', '1E3'],
    ['exponent-21', '1e21'],
    ['exponent-20', '1e20'],
    ['small-1e-6', '0.000001'],
    ['small-1e-7', '0.0000001'],
    ['max-safe-plus-two', '9007199254740993'],
    ['large-integer', '12345678901234567890'],
    ['min-subnormal', '5e-324'],
    ['max-double', '1.7976931348623157e308'],
    ['out-of-range', '1e400'],
    ['literals', '[true,false,null]'],
    ['escapes', JSON.stringify('"\\/\b\f\n\r\t\u0000\u001f\u007f\u2028\u2029 é 😀')],
    ['escaped-input', '"\\u00e9\\ud83d\\ude00\\/"'],
    ['lone-surrogate', '"\\ud800"'],
    ['lone-surrogate-member', '{"\\udc00":1}'],
    ['member-order', '{"b":1,"a":2,"é":3,"😀":4,"ﬀ":5,"Z":6,"":7,"aa":8,"a\\u0000":9}'],
    ['nested', '{"z":[{"b":[1,2,{"d":4,"c":3}],"a":null}],"y":{"x":{}}}'],
    ['whitespace', ' { "a" : [ 1 , 2 ] , "b" : "c" } '],
    ['duplicate-member', '{"a":1,"a":2}'],
  ];
  for (const [name, json] of fixed) vectors.push(vector(name, json));
  return {
    description:
      'RFC 8785 canonical JSON. Parse `json` (as JSON.parse would: the last of duplicate members wins) and ' +
      'write its canonical form: it must equal `canonical`, and hash to `sha256`; when `canonical` is null ' +
      'the value has none (a lone surrogate, a number beyond the double range) and must be refused.',
    vectors,
  };
}
