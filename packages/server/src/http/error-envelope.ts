import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from '../errors/app-error.js';
import { isDatabaseUnavailable, isUnstorableText } from '../errors/database-errors.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { schemaIssues } from '../errors/schema-issues.js';

/**
 * Requests under `/v1/physical/*` answer with the physical surface's lower-snake codes. The router
 * matches the percent-decoded path (`/%70hysical/classify` is `/physical/classify`), so the surface
 * is read from it too.
 */
export function isPhysicalSurface(url: string): boolean {
  if (/^\/physical(?=[/?#]|$)/.test(url)) return true;
  if (!url.includes('%')) return false;
  const path = url.split(/[?#]/, 1)[0] ?? '';
  try {
    return /^\/physical(?=\/|$)/.test(decodeURIComponent(path));
  } catch {
    return false;
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  // Every 429 says when to try again (contract §3), the ones raised outside the limiter too.
  const retryAfter = error.details?.retryAfterSeconds;
  if (error.code === 'RATE_LIMITED' && typeof retryAfter === 'number' && !reply.hasHeader('retry-after')) {
    reply.header('retry-after', String(retryAfter));
  }
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, request.id, isPhysicalSurface(request.url)));
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  validation?: Array<{
    keyword?: string;
    schemaPath?: string;
    instancePath?: string;
    message?: string;
    params?: Record<string, unknown>;
  }>;
  validationContext?: string;
}

type SchemaIssue = NonNullable<FastifyLikeError['validation']>[number];

const oneOf = (values: readonly unknown[]) =>
  `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;

function validationIssues(error: FastifyLikeError): { path: string; message: string }[] {
  const raw = error.validation ?? [];
  // A union of constants fails with one `const` issue per member, then an `anyOf` issue for the
  // union: reported as that one issue, naming every allowed value (as an enum's issue is).
  const consumed = new Set<SchemaIssue>();
  const unionValues = new Map<SchemaIssue, unknown[]>();
  for (const union of raw) {
    if (union.keyword !== 'anyOf' || union.schemaPath === undefined) continue;
    const members = raw.filter((issue) => issue.schemaPath?.startsWith(`${union.schemaPath}/anyOf/`));
    if (members.length === 0 || !members.every((issue) => issue.keyword === 'const')) continue;
    for (const member of members) consumed.add(member);
    unionValues.set(
      union,
      members.map((member) => member.params?.allowedValue),
    );
  }
  const unions = raw
    .filter((issue) => !consumed.has(issue))
    .map((issue): SchemaIssue => {
      const allowed = issue.keyword === 'enum' ? issue.params?.allowedValues : unionValues.get(issue);
      return Array.isArray(allowed) && allowed.length > 0 ? { ...issue, message: oneOf(allowed) } : issue;
    });
  return schemaIssues(unions);
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_ERROR',
  FST_ERR_CTP_INVALID_JSON_BODY: 'VALIDATION_ERROR',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_ERROR',
  FST_ERR_BAD_URL: 'VALIDATION_ERROR',
  FST_ERR_ASYNC_CONSTRAINT: 'VALIDATION_ERROR',
};

/**
 * Turns anything thrown into an AppError: our own errors pass through, Fastify's parser and schema
 * errors get their documented codes, an unreachable database becomes 503, anything else is a 500
 * whose cause goes to the log only.
 */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  // Our own 5xx (a failed authority loop) are logged with their cause like any unexpected error.
  if (error instanceof AppError) return { appError: error, unexpected: error.status >= 500 };
  const fastifyError = (typeof error === 'object' && error !== null ? error : {}) as FastifyLikeError;
  if (fastifyError.validation) {
    const issues = validationIssues(fastifyError).map((issue) => ({
      ...issue,
      path:
        fastifyError.validationContext && fastifyError.validationContext !== 'body'
          ? `${fastifyError.validationContext}${issue.path === '/' ? '' : issue.path}`
          : issue.path,
    }));
    const first = issues[0];
    const message = first ? `${first.path}: ${first.message}` : 'The request failed validation';
    return { appError: new AppError('VALIDATION_ERROR', message, { issues }), unexpected: false };
  }
  const mapped = fastifyError.code === undefined ? undefined : FASTIFY_CODES[fastifyError.code];
  if (mapped === 'VALIDATION_ERROR') {
    const message = fastifyError.code?.includes('JSON')
      ? 'The request body is not valid JSON'
      : 'The request is malformed';
    return {
      appError: new AppError('VALIDATION_ERROR', message, { issues: [{ path: '/', message }] }),
      unexpected: false,
    };
  }
  if (mapped !== undefined) return { appError: new AppError(mapped), unexpected: false };
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    const message = 'The request body is not valid JSON';
    return {
      appError: new AppError('VALIDATION_ERROR', message, { issues: [{ path: '/', message }] }),
      unexpected: false,
    };
  }
  if (isDatabaseUnavailable(error))
    return { appError: new AppError('SERVICE_UNAVAILABLE'), unexpected: true };
  if (isUnstorableText(error)) {
    const message = 'The request contains characters that cannot be stored';
    return {
      appError: new AppError('VALIDATION_ERROR', message, { issues: [{ path: '/', message }] }),
      unexpected: false,
    };
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    const code: ErrorCode =
      status === 404
        ? 'NOT_FOUND'
        : status === 413
          ? 'PAYLOAD_TOO_LARGE'
          : status === 415
            ? 'UNSUPPORTED_MEDIA_TYPE'
            : 'VALIDATION_ERROR';
    if (code !== 'VALIDATION_ERROR') return { appError: new AppError(code), unexpected: false };
    // Every VALIDATION_ERROR names what failed (contract §1).
    const message = 'The request is malformed';
    return {
      appError: new AppError(code, message, { issues: [{ path: '/', message }] }),
      unexpected: false,
    };
  }
  return { appError: new AppError('INTERNAL_ERROR'), unexpected: true };
}
