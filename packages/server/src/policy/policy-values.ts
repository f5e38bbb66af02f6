import { isPlainObject } from './path.js';

const JSON_VALUE_MAX_DEPTH = 32;

/** True when the text holds a C0 control character or DEL. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A JSON value nested at most JSON_VALUE_MAX_DEPTH levels, with finite numbers only. */
export function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > JSON_VALUE_MAX_DEPTH) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  if (isPlainObject(value)) return Object.values(value).every((v) => isJsonValue(v, depth + 1));
  return false;
}

/** `parent.child` (or `parent[i]`): the field path of a nested issue. */
export function fieldJoin(parent: string, child: string): string {
  if (parent === '') return child;
  if (child === '') return parent;
  return child.startsWith('[') ? `${parent}${child}` : `${parent}.${child}`;
}
