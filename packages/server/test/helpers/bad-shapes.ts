import fc from 'fast-check';
import { MAX_BODY_DEPTH } from '../../src/request-checks/body-shape.js';

/** What the edge refuses in any JSON body (src/http/body-shape.ts). */
export type BadKind = 'lone surrogate in a value' | 'lone surrogate in a key' | 'too deep';
export const BAD_KINDS: readonly BadKind[] = [
  'lone surrogate in a value',
  'lone surrogate in a key',
  'too deep',
];

/** A body the edge must refuse, and the JSON Pointer path its 400 must name. */
export interface BadBody {
  value: unknown;
  path: string;
}

const LONE = ['\ud800', '\udbff', '\udc00', '\udfff', '\udc01'] as const;

/** Text around one lone surrogate (ASCII around it, so it cannot pair up). */
export const illFormedText: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...LONE), fc.string({ maxLength: 6 }))
  .map(([before, lone, after]) => `${before}${lone}${after}`);

/** Arrays nested `levels` deep around `inner`. */
export function nested(levels: number, inner: unknown = 0): unknown {
  let value: unknown = inner;
  for (let i = 0; i < levels; i += 1) value = [value];
  return value;
}

/** A reference token as the service reports it: RFC 6901 escapes, lone surrogates as U+FFFD. */
const token = (key: string) =>
  key
    .replace(/[\ud800-\udfff]/g, '\ufffd')
    .replace(/~/g, '~0')
    .replace(/\//g, '~1');

type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;

/**
 * Plants one bad thing in a copy of `base`: it walks down through containers (each choice picks a
 * child container), then adds, in the container it reached, ill-formed text as a value, an object
 * with an ill-formed key, or arrays nested one level past MAX_BODY_DEPTH counting from there.
 * A `base` that is not a container is replaced by an object holding the bad thing.
 */
export function plant(base: unknown, choices: readonly number[], kind: BadKind, text: string): BadBody {
  const root: Container = isContainer(base) ? structuredClone(base) : {};
  let node: Container = root;
  let path = '';
  let depth = 0;
  for (const choice of choices) {
    const keys = Object.keys(node).filter((k) => isContainer((node as Record<string, unknown>)[k]));
    if (keys.length === 0) break;
    const key = keys[choice % keys.length] as string;
    node = (node as Record<string, unknown>)[key] as Container;
    path += `/${token(key)}`;
    depth += 1;
  }
  const levels = MAX_BODY_DEPTH - depth;
  const planted =
    kind === 'lone surrogate in a value'
      ? text
      : kind === 'lone surrogate in a key'
        ? { [text]: 'x' }
        : nested(levels);
  let slot: string;
  if (Array.isArray(node)) {
    slot = String(node.length);
    node.push(planted);
  } else {
    slot = `planted${choices.length}`;
    node[slot] = planted;
  }
  path += `/${slot}`;
  if (kind === 'lone surrogate in a key') path += `/${token(text)}`;
  // The first array at depth MAX_BODY_DEPTH is the one named.
  if (kind === 'too deep') path += '/0'.repeat(levels - 1);
  return { value: root, path };
}

/** A bad body grown from any JSON value. */
export const badBody: fc.Arbitrary<BadBody & { kind: BadKind }> = fc
  .tuple(
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(fc.nat(), { maxLength: 4 }),
    fc.constantFrom(...BAD_KINDS),
    illFormedText,
  )
  .map(([base, choices, kind, text]) => ({ ...plant(base, choices, kind, text), kind }));
