import { randomBytes } from 'node:crypto';
import { MAX_PASSWORD_LENGTH } from '../portal/password-hash.js';

/** A password for a new console user: 18 random bytes, 24 base64url characters. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * The password given on standard input (`--password-stdin`): everything up to the first line
 * break, so that `echo "$PASSWORD" | authority users create …` and a file both work.
 */
export async function readPasswordFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.length > MAX_PASSWORD_LENGTH * 4 + 2) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}
