/**
 * The open-intent hypotheses of a request (contract §9): the server's classification first, then
 * the caller's `intent.oiCode` and `dagNode.oiCode` when given, each code once. The caller's codes
 * are evaluated beside the classified one and can only make the outcome more severe.
 */
export function classificationHypotheses(
  classifiedCode: string,
  callerCodes: readonly (string | null | undefined)[],
): string[] {
  const out = [classifiedCode];
  for (const code of callerCodes) {
    if (typeof code === 'string' && !out.includes(code)) out.push(code);
  }
  return out;
}
