import { AppError } from './app-error.js';
import { isDatabaseUnavailable } from './database-errors.js';

/**
 * A failure inside an authority loop (either surface): 503 SERVICE_UNAVAILABLE when the database
 * cannot be reached, else 500 AUTHORITY_LOOP_FAILED with the cause kept for the log. Neither ever
 * carries a token: a loop that breaks refuses.
 */
export function loopFailed(cause: unknown): AppError {
  if (isDatabaseUnavailable(cause)) return new AppError('SERVICE_UNAVAILABLE');
  const error = new AppError('AUTHORITY_LOOP_FAILED');
  error.cause = cause;
  return error;
}

/** What leaves an authority loop: its own AppErrors as they are, anything else through `loopFailed`. */
export function failClosed(error: unknown): AppError {
  return error instanceof AppError ? error : loopFailed(error);
}
