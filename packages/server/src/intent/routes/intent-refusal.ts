import { AppError, validationError } from '../../errors/app-error.js';
import { toAppError } from '../../http/error-envelope.js';
import {
  ALTERNATIVE_SHAPE_MESSAGE,
  checkIntentRequest,
  type IntentRequest,
  isAlternativeShape,
} from '../domain/intent-request.js';
import { isInterpretable } from '../domain/interpret.js';

/**
 * Why a `POST /intent` or `POST /authority/evaluate` body is refused before any decision, in the
 * order the caller should hear it: the API overview's other request shape (a message naming the
 * expected fields), the schema, the checks beyond it, then a `proposedAction` with nothing to
 * interpret (400 INVALID_INTENT). Both routes take the same fields and rules (contract §4.9).
 */
export function intentRefusal(
  body: unknown,
  schemaError: Error | undefined,
  shapeMessage: string = ALTERNATIVE_SHAPE_MESSAGE,
): AppError | undefined {
  if (isAlternativeShape(body)) {
    return validationError([{ path: '/', message: shapeMessage }], shapeMessage);
  }
  if (schemaError !== undefined) return toAppError(schemaError).appError;
  const request = body as Pick<IntentRequest, 'proposedAction'>;
  const issues = checkIntentRequest(request);
  if (issues.length > 0) return validationError(issues);
  if (!isInterpretable(request.proposedAction)) {
    return new AppError('INVALID_INTENT', 'proposedAction must contain a letter or a digit');
  }
  return undefined;
}
