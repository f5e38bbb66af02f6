import type { ValidationIssue } from '../errors/app-error.js';

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` header: absent is fine; otherwise one value of 1..255 visible ASCII
 * characters (0x21..0x7E, so no space). A repeated header (an array) is refused.
 */
export function checkIdempotencyKey(header: string | string[] | undefined): ValidationIssue[] {
  if (header === undefined) return [];
  if (typeof header === 'string' && IDEMPOTENCY_KEY_PATTERN.test(header)) return [];
  return [
    {
      path: 'headers/idempotency-key',
      message: 'Idempotency-Key must be a single value of 1 to 255 visible ASCII characters',
    },
  ];
}
