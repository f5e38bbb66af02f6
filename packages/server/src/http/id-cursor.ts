import { validationError } from '../errors/app-error.js';

/** An opaque keyset cursor: the id of the last item of a page (UUIDv7 ids sort by time). */
export function encodeIdCursor(id: string): string {
  return Buffer.from(JSON.stringify({ after: id }), 'utf8').toString('base64url');
}

/** The id inside a cursor, or a 400 naming the parameter when the cursor is not one of ours. */
export function decodeIdCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown })
      .after;
    if (typeof value === 'string' && value.length <= 100) return value;
  } catch {
    // Falls through to the validation error.
  }
  throw validationError([{ path: 'querystring/cursor', message: 'cursor is not valid' }]);
}
