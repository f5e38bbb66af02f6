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
