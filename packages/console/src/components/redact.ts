/**
 * The console's copy of the service's display redaction (docs/decision-loop.md, "What of args
 * leaves the intent record"): values under secret-looking keys and credential-looking strings are
 * shown as `[redacted]`. The service applies it to what an approver reads; the console applies it
 * to the request an intent page shows, which the API returns whole to `intent:read`. A console
 * test holds the two to the same answers.
 */
const SECRET_KEY =
  /secret|token|passw(?:or)?d|passphrase|(?:^|[^a-z])pass$|pwd|key|auth(?!or(?!iz))|cookie|credential|session|private|bearer|jwt/i;
const SECRET_VALUE =
  /\bbearer\s+[\w.~+/-]{8,}|\bauthorization:\s*\S|service_live_|whsec_|eyJ[\w-]*\.eyJ|-----BEGIN [A-Z ]*PRIVATE KEY|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[\w-]{10,}|sk-[\w-]{20,})|\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s/:@]{1,256}:[^\s/@]{1,256}@|(?:passw(?:or)?d|pwd|secret|token|api[_-]?key)\s{0,8}[=:]\s{0,8}[^\s&"']/i;

/** `value` with the values under secret-looking keys and credential-looking strings redacted. */
export function redacted(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value, (key: string, member: unknown) =>
    (key !== '' && SECRET_KEY.test(key)) || (typeof member === 'string' && SECRET_VALUE.test(member))
      ? '[redacted]'
      : member,
  );
  return JSON.parse(text) as unknown;
}
