/**
 * The first `length` UTF-16 code units of `text`, one fewer when the cut would fall inside a
 * surrogate pair: a preview or excerpt never ends in a lone surrogate, which has no canonical JSON
 * form (RFC 8785) and so could not enter the audit chain.
 *
 * @example
 * ```ts
 * clipText('ab😀', 3); // 'ab' (not 'ab\ud83d')
 * ```
 */
export function clipText(text: string, length: number): string {
  if (text.length <= length) return text;
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}
