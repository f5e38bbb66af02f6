/**
 * Time-boxed rules (contract §4.5, §16): a rule may carry `activeFrom` and `activeUntil`, ISO 8601
 * date-times with an offset. The window is half-open, `activeFrom <= at < activeUntil`: at
 * `activeFrom` the rule is active, at `activeUntil` it no longer is. Outside it the rule does not
 * match, and the explanation says it is inactive and since or until when. Pure: the evaluation
 * time is an input.
 */

/** `2026-03-01T09:30:00Z`, `2026-03-01T09:30:00.250+02:00`, `2026-03-01T09:30Z`. */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Epoch milliseconds of an ISO 8601 date-time with a UTC offset, or null when the text is not one
 * (a date without time or offset, or a calendar date that does not exist, such as February 30).
 */
export function parseIsoDateTime(text: string): number | null {
  const m = ISO_DATE_TIME.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millis = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  // setUTCFullYear, unlike Date.UTC, takes years 0..99 as they are.
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  check.setUTCHours(hour, minute, second, millis);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  const local = check.getTime();
  let offset = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return null;
    offset = (oh * 60 + om) * 60_000 * (m[8]?.startsWith('-') ? -1 : 1);
  }
  return local - offset;
}

/** A rule's window, compiled: bounds in epoch milliseconds and as the rule wrote them. */
export interface TimeWindow {
  readonly from: number | null;
  readonly fromText: string | null;
  readonly until: number | null;
  readonly untilText: string | null;
}

/** Why a rule is inactive at a time: before its window (until when) or after it (since when). */
export type Inactivity = { until: string } | { since: string };

/** The window of a validated rule, or null when it has no bound. Throws on a malformed bound. */
export function compileWindow(
  activeFrom: string | undefined,
  activeUntil: string | undefined,
): TimeWindow | null {
  if (activeFrom === undefined && activeUntil === undefined) return null;
  const bound = (text: string | undefined, name: string): number | null => {
    if (text === undefined) return null;
    const at = parseIsoDateTime(text);
    if (at === null) throw new Error(`${name} is not an ISO 8601 date-time with an offset`);
    return at;
  };
  return {
    from: bound(activeFrom, 'activeFrom'),
    fromText: activeFrom ?? null,
    until: bound(activeUntil, 'activeUntil'),
    untilText: activeUntil ?? null,
  };
}

/** Null when the window holds at `at` (epoch ms), else why not. */
export function inactivityAt(window: TimeWindow, at: number): Inactivity | null {
  if (window.from !== null && at < window.from) return { until: window.fromText as string };
  if (window.until !== null && at >= window.until) return { since: window.untilText as string };
  return null;
}

/** The explanation's sentence: `inactive until <activeFrom>` or `inactive since <activeUntil>`. */
export function describeInactivity(inactivity: Inactivity): string {
  return 'until' in inactivity ? `inactive until ${inactivity.until}` : `inactive since ${inactivity.since}`;
}

/**
 * A rule's `activeFrom` / `activeUntil`, checked: each must be an ISO 8601 date-time with an offset
 * and `activeFrom` must be before `activeUntil`. Problems go to `issue` with their field.
 */
export function validateWindow(
  raw: Record<string, unknown>,
  issue: (field: string, message: string) => void,
): { activeFrom?: string; activeUntil?: string } {
  const out: { activeFrom?: string; activeUntil?: string } = {};
  const times: { activeFrom?: number; activeUntil?: number } = {};
  for (const key of ['activeFrom', 'activeUntil'] as const) {
    if (!Object.hasOwn(raw, key)) continue;
    const value = raw[key];
    const at = typeof value === 'string' ? parseIsoDateTime(value) : null;
    if (typeof value !== 'string' || at === null) {
      issue(key, 'must be an ISO 8601 date-time with an offset, e.g. 2026-03-01T09:00:00Z');
      continue;
    }
    out[key] = value;
    times[key] = at;
  }
  if (
    times.activeFrom !== undefined &&
    times.activeUntil !== undefined &&
    times.activeFrom >= times.activeUntil
  ) {
    issue('activeUntil', `must be later than activeFrom (${out.activeFrom})`);
  }
  return out;
}
