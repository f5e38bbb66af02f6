/**
 * A field written as a dotted path with indexes (`clauses[3].safeDefault`) as the JSON Pointer
 * schema validation uses (`/clauses/3/safeDefault`; `/` for the whole document), so every
 * `details.issues[].path` of a body has one form (contract §1).
 */
export function pointerOf(dotted: string): string {
  const segments = dotted
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}
