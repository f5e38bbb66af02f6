import { hash } from 'node:crypto';

/** Strings JSON writes as they are: printable ASCII without a quote or a backslash. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function encodeString(value: string): string {
  if (PLAIN.test(value)) return `"${value}"`;
  if (!value.isWellFormed()) throw new Error('a string with a lone surrogate has no canonical JSON form');
  return JSON.stringify(value);
}

/** Canonical text of a value, or undefined for what JSON omits (undefined, functions, symbols). */
function encode(value: unknown, open: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
      return encodeString(value);
    case 'number':
      // ECMAScript's Number-to-String is the serialization RFC 8785 prescribes (-0 becomes 0).
      if (!Number.isFinite(value)) throw new Error(`${value} has no canonical JSON form`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new Error('a bigint has no canonical JSON form');
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return encode(toJSON.call(value), open);
  if (open.has(value)) throw new Error('a circular structure has no canonical JSON form');
  open.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      text += encode(value[i], open) ?? 'null';
    }
    text += ']';
  } else {
    const record = value as Record<string, unknown>;
    // Default sort order is by UTF-16 code units, which is the order RFC 8785 requires.
    const keys = Object.keys(record).sort();
    text = '{';
    for (const key of keys) {
      const member = encode(record[key], open);
      if (member === undefined) continue;
      if (text.length > 1) text += ',';
      text += `${encodeString(key)}:${member}`;
    }
    text += '}';
  }
  open.delete(value);
  return text;
}

/** RFC 8785 (JCS) canonical text of a JSON value. Throws for values JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  const text = encode(value, new Set());
  if (text === undefined) throw new Error('value has no canonical JSON form');
  return text;
}

/** SHA-256 of the text's UTF-8 bytes, in hex; one-shot `crypto.hash`, about twice as fast as a Hash object on short texts. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
