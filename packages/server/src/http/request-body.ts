import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { findBodyProblem } from '../request-checks/body-shape.js';

/** Whether `text` is JSON at all (read only when the secure parser refused it). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function invalidBody(message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { issues: [{ path: '/', message }] });
}

/** UTF-8 only: a byte sequence that is not UTF-8 is refused, never replaced by U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `charset=utf-8` (any case, quoted or not), the only charset a JSON body may declare (RFC 8259 §8.1). */
function foreignCharset(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const [name, value = ''] = parameter.split('=');
    if (name?.trim().toLowerCase() !== 'charset') continue;
    const charset = value.trim().replace(/^"(.*)"$/, '$1');
    if (charset.toLowerCase() !== 'utf-8') return charset;
  }
  return undefined;
}

/**
 * What the body of a request may be (when it has one), checked after access (contract §1: 415 comes after the
 * permission checks and before 413): no content coding (the service inflates nothing, so a
 * compressed body would be read as its bytes), and no charset other than UTF-8.
 */
function refuseEncodings(request: FastifyRequest): void {
  // An unknown route is 404 whatever its body (contract §1: 404 comes first).
  if (request.is404) return;
  const { headers } = request;
  const hasBody =
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0');
  if (!hasBody) return;
  const coding = headers['content-encoding']?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity') {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Encoding ${JSON.stringify(coding)} is not supported: send the body uncompressed`,
    );
  }
  const charset = foreignCharset(headers['content-type']);
  if (charset !== undefined) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Request bodies must be application/json in UTF-8 (got charset ${JSON.stringify(charset)})`,
    );
  }
}

/**
 * Bodies are JSON in UTF-8, and nothing else.
 * - `application/json`: an empty body is left undefined (POST routes without a body); otherwise it
 *   must be UTF-8 and JSON without prototype-poisoning keys, then within the shape limits of
 *   {@link findBodyProblem}, or it is a 400 naming the problem.
 * - No content type: only an empty body, as a chunked request without a byte is (contract §1: the
 *   bodyless POST routes accept an empty body with or without `content-type`); a byte is 415.
 * - Any other media type: 415 before the body is read.
 * - On an unknown route the body is not looked at: it is 404.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addHook('preParsing', async (request) => refuseEncodings(request));
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(invalidBody('The request body is not valid UTF-8'), undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, parsed) => {
      if (error && isJson(text)) {
        // Valid JSON the secure parser refused: it holds a prototype-poisoning key.
        done(
          invalidBody('The request body holds a __proto__ or constructor.prototype key, which is refused'),
          undefined,
        );
        return;
      }
      // Too deep, NUL, or a lone surrogate: refused before any route validates or hashes it.
      const problem = error ? null : findBodyProblem(parsed);
      if (problem !== null) {
        const message = `${problem.path}: ${problem.message}`;
        done(new AppError('VALIDATION_ERROR', message, { issues: [problem] }), undefined);
        return;
      }
      done(error, parsed);
    });
  });
  app.addContentTypeParser('*', (request, payload, done) => {
    // An unknown route is 404 whatever its body (contract §1: 404 comes first).
    if (request.is404) {
      done(null, undefined);
      return;
    }
    if (request.headers['content-type'] !== undefined) {
      done(new AppError('UNSUPPORTED_MEDIA_TYPE'), undefined);
      return;
    }
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      done(error, undefined);
    };
    payload.on('data', () => settle(new AppError('UNSUPPORTED_MEDIA_TYPE')));
    payload.on('end', () => settle(null));
    payload.on('error', (error: Error) => settle(error));
  });
}
