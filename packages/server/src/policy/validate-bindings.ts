import { isPlainObject } from './path.js';
import { MAX_BINDING_ENTRIES, MAX_BINDING_ENTRY_LENGTH } from './policy-limits.js';
import { ACTOR_TYPES, type Bindings } from './rule.js';

const BINDING_KEYS = ['actorIds', 'actorTypes', 'targetSystems', 'oiCodes'] as const;
const BINDING_KEY_SET: ReadonlySet<string> = new Set(BINDING_KEYS);
const ACTOR_TYPE_SET: ReadonlySet<string> = new Set(ACTOR_TYPES);

/**
 * A rule's `bindings` (contract §4.5), checked: every problem is reported through `issue` with
 * its field (`bindings.actorTypes[2]`); the lists that are sound are returned, copied.
 */
export function validateBindings(
  b: unknown,
  issue: (field: string, message: string) => void,
): Bindings | undefined {
  let bindings: Bindings | undefined;
  if (!isPlainObject(b)) {
    issue('bindings', 'must be an object {actorIds?, actorTypes?, targetSystems?, oiCodes?}');
  } else {
    bindings = {};
    for (const key of Object.keys(b))
      if (!BINDING_KEY_SET.has(key)) issue(`bindings.${key}`, 'unknown field');
    for (const key of BINDING_KEYS) {
      if (!Object.hasOwn(b, key)) continue;
      const field = `bindings.${key}`;
      const list = b[key];
      if (!Array.isArray(list)) {
        issue(field, 'must be an array of strings');
        continue;
      }
      if (list.length === 0) {
        issue(field, 'must not be empty (omit the binding to match any value)');
        continue;
      }
      if (list.length > MAX_BINDING_ENTRIES) {
        issue(field, `at most ${MAX_BINDING_ENTRIES} entries`);
        continue;
      }
      let entriesOk = true;
      list.forEach((entry: unknown, j: number) => {
        const entryField = `${field}[${j}]`;
        if (typeof entry !== 'string') {
          entriesOk = false;
          issue(entryField, 'must be a string');
        } else if (key === 'actorTypes') {
          if (!ACTOR_TYPE_SET.has(entry)) {
            entriesOk = false;
            issue(entryField, `must be one of ${ACTOR_TYPES.join(', ')}`);
          }
        } else if (entry.length < 1 || entry.length > MAX_BINDING_ENTRY_LENGTH) {
          entriesOk = false;
          issue(entryField, `must be 1..${MAX_BINDING_ENTRY_LENGTH} characters`);
        }
      });
      if (entriesOk) bindings[key] = [...(list as string[])];
    }
  }
  return bindings;
}
