/**
 * What every JSON body must be before any route sees it: nested at most MAX_BODY_DEPTH levels,
 * with no string (object keys included) that holds NUL or is ill-formed UTF-16, and no number
 * beyond the double range.
 *
 * - Depth: validation, canonical JSON and hashing walk bodies recursively; a body nested thousands
 *   deep would overflow the stack in one of them. 128 levels is far above any body the API takes
 *   (a policy with conditions nested 16 groups deep and a 32-level `value` stays under 80).
 * - Ill-formed UTF-16: JSON's `\uD800` escape can spell a lone surrogate, which no UTF-8 text
 *   holds; canonical JSON (RFC 8785) refuses it, and storage would turn distinct strings into the
 *   same one. Query strings and path parameters are decoded from UTF-8 bytes, so only bodies can
 *   carry one.
 * - NUL cannot be stored in PostgreSQL text and has no business in an authorization request.
 * - A number beyond the double range (`1e999`) parses as Infinity, which has no JSON form: it
 *   could not be hashed (idempotency, canonical JSON) or stored as written.
 *
 * The first problem is reported with its JSON Pointer path, as schema errors are.
 */
export const MAX_BODY_DEPTH = 128;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

export interface BodyProblem {
  path: string;
  message: string;
}

/** RFC 6901 escaping of one reference token (an ill-formed key is named with U+FFFD in its place). */
function pointerToken(token: string): string {
  return token.replace(LONE_SURROGATES, '\uFFFD').replace(/~/g, '~0').replace(/\//g, '~1');
}

function textProblem(text: string): string | null {
  if (LONE_SURROGATE.test(text)) return 'contains ill-formed Unicode (a lone surrogate)';
  if (text.includes('\u0000')) return 'contains a NUL character';
  return null;
}

/** The first problem of a parsed JSON body, or null when it has none. */
export function findBodyProblem(body: unknown, maxDepth = MAX_BODY_DEPTH): BodyProblem | null {
  const walk = (value: unknown, path: string, depth: number): BodyProblem | null => {
    if (typeof value === 'string') {
      const message = textProblem(value);
      return message === null ? null : { path: path || '/', message };
    }
    if (typeof value === 'number') {
      return Number.isFinite(value)
        ? null
        : { path: path || '/', message: 'is a number too large for a double (it has no JSON value)' };
    }
    if (typeof value !== 'object' || value === null) return null;
    if (depth >= maxDepth) {
      return { path: path || '/', message: `nests deeper than ${maxDepth} levels` };
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        const problem = walk(value[index], `${path}/${index}`, depth + 1);
        if (problem !== null) return problem;
      }
      return null;
    }
    for (const [key, inner] of Object.entries(value)) {
      const at = `${path}/${pointerToken(key)}`;
      const message = textProblem(key);
      if (message !== null) return { path: at, message: `has a key that ${message}` };
      const problem = walk(inner, at, depth + 1);
      if (problem !== null) return problem;
    }
    return null;
  };
  return walk(body, '', 0);
}
