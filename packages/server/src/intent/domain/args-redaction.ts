/**
 * What of `args` leaves the intent record (contract §4.6): the raw args never reach the permanent
 * chain, only their hash and a redacted preview; an approver reads the whole of args with the same
 * redaction. The rule is documented in docs/decision-loop.md. The console keeps a copy for the
 * intent page (packages/console/src/components/redact.ts), which its tests hold to this one.
 */
import { clipText } from '../../foundation/text.js';

const PREVIEW_LIMIT = 256;
/** Keys whose values are redacted (docs/decision-loop.md): `authorization`, not `author`. */
const SECRET_KEY =
  /secret|token|passw(?:or)?d|passphrase|(?:^|[^a-z])pass$|pwd|key|auth(?!or(?!iz))|cookie|credential|session|private|bearer|jwt/i;
/**
 * Credentials under any key: bearer and authorization headers, service keys, webhook secrets, JWTs,
 * PEM keys, GitHub, AWS, Slack and `sk-` API tokens, URLs with a password (`scheme://user:pass@`)
 * and assignments of one (`PASSWORD=…`, `api_key: …`).
 */
const SECRET_VALUE =
  /\bbearer\s+[\w.~+/-]{8,}|\bauthorization:\s*\S|service_live_|whsec_|eyJ[\w-]*\.eyJ|-----BEGIN [A-Z ]*PRIVATE KEY|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[\w-]{10,}|sk-[\w-]{20,})|\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s/:@]{1,256}:[^\s/@]{1,256}@|(?:passw(?:or)?d|pwd|secret|token|api[_-]?key)\s{0,8}[=:]\s{0,8}[^\s&"']/i;

/** A JSON.stringify replacer that redacts values under secret-looking keys and credential-looking strings. */
function redactor(searchLimit: number) {
  return (key: string, value: unknown) =>
    (key !== '' && SECRET_KEY.test(key)) ||
    (typeof value === 'string' && SECRET_VALUE.test(value.slice(0, searchLimit)))
      ? '[redacted]'
      : value;
}

/**
 * A JSON preview of args, at most 256 characters, with values under secret-looking keys and
 * credential-looking strings redacted (only a string's first 256 characters can show, so only they
 * are searched).
 */
export function argsPreview(args: unknown): string | null {
  if (args === undefined) return null;
  const text = JSON.stringify(args, redactor(PREVIEW_LIMIT));
  return text.length > PREVIEW_LIMIT ? `${clipText(text, PREVIEW_LIMIT - 1)}…` : text;
}

/**
 * The compact JSON of `value` with the redaction of {@link redactedArgs}: the arguments as the MCP
 * gateway writes them into a `proposedAction`, which the chain keeps for good.
 */
export function redactedJson(value: unknown): string {
  return JSON.stringify(value, redactor(Number.POSITIVE_INFINITY));
}

/**
 * The whole of args with the same redaction as the preview, every string searched in full: what an
 * approver reads before deciding (a 256-character preview could hide the part that matters; a
 * secret never needs to be read).
 */
export function redactedArgs(args: unknown): unknown {
  if (args === undefined) return null;
  return JSON.parse(JSON.stringify(args, redactor(Number.POSITIVE_INFINITY))) as unknown;
}
