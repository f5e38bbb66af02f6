import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt with N = 2^15, r = 8, p = 1 (32 MiB, a few tens of milliseconds here). The parameters are
 * stored with each hash, so raising them later leaves existing hashes verifiable.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Room for N up to 2^16 at r = 8 (128 * N * r bytes) above Node's 32 MiB default. */
const MAX_MEMORY = 256 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

function derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, { ...options, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>` of the password (NFC-normalized). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** Parses a stored hash; undefined when it is not one this module wrote. */
function parseHash(stored: string): { options: ScryptOptions; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const key = Buffer.from(parts[5] ?? '', 'base64url');
  const valid = (n: number | undefined, max: number): n is number =>
    n !== undefined && Number.isInteger(n) && n >= 1 && n <= max;
  if (!valid(N, 2 ** 16) || !valid(r, 32) || !valid(p, 16) || salt.length === 0 || key.length === 0) {
    return undefined;
  }
  return { options: { N, r, p }, salt, key };
}

/** Constant-time check of a password against a stored hash; false for a hash it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed === undefined) return false;
  const candidate = await derive(password, parsed.salt, parsed.key.length, parsed.options);
  return timingSafeEqual(candidate, parsed.key);
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of a random password, computed once: logins for unknown accounts verify against it, so
 * they take as long as logins with a wrong password and do not reveal which accounts exist.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(18).toString('base64url'));
  return dummyHash;
}
