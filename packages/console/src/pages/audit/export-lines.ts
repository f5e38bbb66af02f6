import type { AuditEntry } from '../../api/types.js';

/** The entries of an NDJSON export (`{"entry": …}` lines; checkpoint lines are skipped). */
export function entriesOf(ndjson: string): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (const line of ndjson.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = JSON.parse(line) as { entry?: AuditEntry };
    if (parsed.entry) entries.push(parsed.entry);
  }
  return entries;
}
