import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * @internal
 * RFC 8785 (JCS) canonical text of a JSON value, or `undefined` when it has none (a value JSON
 * cannot represent: `undefined`, a function, a lone surrogate, a cycle, a non-finite number).
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * canonicalJson('\ud800'); // undefined
 * ```
 */
export function canonicalJson(value: unknown): string | undefined {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

/**
 * @internal
 * Lower-case hex SHA-256 of the UTF-8 bytes of `text`.
 *
 * @example
 * ```ts
 * sha256Hex(''); // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 * ```
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * @internal
 * Whether two values are the same JSON value (member order aside). `false` when either has no
 * canonical form.
 *
 * @example
 * ```ts
 * sameJson({ a: 1, b: 2 }, { b: 2, a: 1 }); // true
 * sameJson({ a: 1 }, { a: '1' }); // false
 * ```
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const left = canonicalJson(a);
  return left !== undefined && left === canonicalJson(b);
}
