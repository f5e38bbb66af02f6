import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A ref whose element takes the keyboard focus when it appears (and again when `key` changes):
 * for what replaces the control that had the focus (a form that is gone once a decision is
 * recorded, a step of the sign-in), so that keyboard and screen-reader users are not left on the
 * page's body. A non-interactive element needs `tabIndex={-1}`.
 */
export function useFocusOnShow<T extends HTMLElement>(
  when = true,
  key: unknown = undefined,
): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (when) ref.current?.focus();
  }, [when, key]);
  return ref;
}
