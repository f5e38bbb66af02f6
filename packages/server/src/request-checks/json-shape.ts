/** Shape limits of JSON request bodies, shared by both surfaces' intake checks. */

/**
 * Whether some value in `value` lies more than `limit` steps below it (`value` is at depth 0; the
 * children of a container at depth d are at d + 1). Iterative, and it stops at the first offender,
 * so an absurdly deep body costs no stack.
 */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== 'object' || node === null) continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    if (children.length === 0) continue;
    if (depth + 1 > limit) return true;
    for (const child of children) stack.push([child, depth + 1]);
  }
  return false;
}

/** The UTF-8 length of a value's JSON text. */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}
