/** The parts of a key id of the form `<tenantId>-<unix seconds>-<8 base32 chars>`. */
export interface ParsedKid {
  /** The tenant the key belongs to. May itself contain `-`. */
  tenantId: string;
  /** Creation time of the key, in unix seconds. */
  createdAtSeconds: number;
  /** The 8 random characters (RFC 4648 base32 alphabet, upper case). */
  random: string;
}

// The tenant part may contain '-', so the two fixed-shape parts are anchored at the end.
const KID_PATTERN = /^(.+)-([0-9]{1,12})-([A-Z2-7]{8})$/;

/**
 * Splits a key id of the contract's form `<tenantId>-<unix seconds>-<8 base32 chars>` (base32 is the
 * RFC 4648 alphabet `A-Z2-7`, upper case). Returns `undefined` for anything else.
 *
 * @example
 * ```ts
 * import { parseKid } from '@authority-runtime/sdk';
 *
 * parseKid('acme-corp-1700000000-ABCDEFGH');
 * // { tenantId: 'acme-corp', createdAtSeconds: 1700000000, random: 'ABCDEFGH' }
 * parseKid('not-a-kid'); // undefined
 * ```
 */
export function parseKid(kid: string): ParsedKid | undefined {
  const match = KID_PATTERN.exec(kid);
  if (match === null) return undefined;
  const [, tenantId, seconds, random] = match;
  if (tenantId === undefined || seconds === undefined || random === undefined) return undefined;
  return { tenantId, createdAtSeconds: Number(seconds), random };
}
