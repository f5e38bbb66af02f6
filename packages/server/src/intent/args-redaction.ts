const PREVIEW_LIMIT = 256;
const SECRET_KEY = /secret|token|password|key/i;

const redactSecrets = (key: string, value: unknown) =>
  key !== '' && SECRET_KEY.test(key) ? '[redacted]' : value;

/** A JSON preview of args with values under secret-looking keys redacted, at most 256 characters. */
export function argsPreview(args: unknown): string | null {
  if (args === undefined) return null;
  const text = JSON.stringify(args, redactSecrets);
  return text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT - 1)}…` : text;
}

/**
 * The whole of args with the same redaction as the preview: what an approver reads before deciding
 * (a 256-character preview could hide the part that matters; a secret never needs to be read).
 */
export function redactedArgs(args: unknown): unknown {
  if (args === undefined) return null;
  return JSON.parse(JSON.stringify(args, redactSecrets)) as unknown;
}
