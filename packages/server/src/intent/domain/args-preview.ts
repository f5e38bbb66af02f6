/**
 * The preview of `args` that audit entries keep (contract §4.6): the raw args never reach the
 * permanent chain, only their hash and this redacted preview. Documented in docs/decision-loop.md.
 */
const PREVIEW_LIMIT = 256;
/** Keys whose values the preview redacts (docs/decision-loop.md): `authorization`, not `author`. */
const SECRET_KEY =
  /secret|token|passw(?:or)?d|passphrase|pwd|key|auth(?!or(?!iz))|cookie|credential|session|private|bearer|jwt/i;
/** Credentials under any key: bearer and authorization headers, service keys, webhook secrets, JWTs, PEM keys. */
const SECRET_VALUE =
  /\bbearer\s+[\w.~+/-]{8,}|\bauthorization:\s*\S|service_live_|whsec_|eyJ[\w-]*\.eyJ|-----BEGIN [A-Z ]*PRIVATE KEY/i;

/**
 * A JSON preview of args, at most 256 characters, with values under secret-looking keys and
 * credential-looking strings redacted (only a string's first 256 characters can show, so only they
 * are searched).
 */
export function argsPreview(args: unknown): string | null {
  if (args === undefined) return null;
  const text = JSON.stringify(args, (key, value) =>
    (key !== '' && SECRET_KEY.test(key)) ||
    (typeof value === 'string' && SECRET_VALUE.test(value.slice(0, PREVIEW_LIMIT)))
      ? '[redacted]'
      : value,
  );
  return text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT - 1)}…` : text;
}
