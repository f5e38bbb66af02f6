import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export type ErrorDetails = Record<string, unknown>;

/** The one error type of the service: a stable code, its HTTP status, a message and optional details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = details;
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

/** A 400 VALIDATION_ERROR carrying `details.issues`, the shape contract section 1 prescribes. */
export function validationError(issues: ValidationIssue[], message?: string): AppError {
  return new AppError('VALIDATION_ERROR', message ?? issues[0]?.message ?? undefined, { issues });
}

/** The error envelope of contract §1, `{error: {code, message, details?, requestId}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetails; requestId: string };
}

/** The envelope of an error, with the code of its surface (lower-snake on the physical one). */
export function errorBody(error: AppError, requestId: string, physical = false): ErrorBody {
  const code = physical ? ERROR_CODES[error.code].physical : error.code;
  const body: ErrorBody = { error: { code, message: error.message, requestId } };
  if (error.details !== undefined) body.error.details = error.details;
  return body;
}
