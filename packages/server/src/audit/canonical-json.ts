import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** RFC 8785 (JCS) canonical text of a JSON value. Throws for values JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no canonical JSON form');
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
