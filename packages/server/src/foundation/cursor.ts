import { validationError } from '../errors/app-error.js';

/**
 * Opaque keyset cursors of every list: the position of a page's last item (an id, UUIDv7 ids sort
 * by time, or a chain index), base64url JSON. A cursor that is not one of ours is a 400 naming the
 * parameter.
 */
function encode(position: string | number): string {
  return Buffer.from(JSON.stringify({ after: position }), 'utf8').toString('base64url');
}

function decode(cursor: string | undefined, valid: (position: unknown) => boolean): unknown {
  if (cursor === undefined) return undefined;
  try {
    const position = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown })
      .after;
    if (valid(position)) return position;
  } catch {
    // Falls through to the validation error.
  }
  throw validationError([{ path: 'querystring/cursor', message: 'cursor is not valid' }]);
}

export function encodeIdCursor(id: string): string {
  return encode(id);
}

/** The id inside a cursor (undefined without one). */
export function decodeIdCursor(cursor: string | undefined): string | undefined {
  return decode(cursor, (p) => typeof p === 'string' && p.length <= 100) as string | undefined;
}

export function encodeIndexCursor(index: number): string {
  return encode(index);
}

/** The chain index inside a cursor (undefined without one). */
export function decodeIndexCursor(cursor: string | undefined): number | undefined {
  return decode(cursor, (p) => typeof p === 'number' && Number.isInteger(p) && p >= 0) as number | undefined;
}

/** `nextCursor`: the id of the page's last item when another page follows, else null. */
export function nextIdCursor<T>(
  items: readonly T[],
  hasMore: boolean,
  idOf: (item: T) => string,
): string | null {
  const last = items[items.length - 1];
  return hasMore && last !== undefined ? encodeIdCursor(idOf(last)) : null;
}
