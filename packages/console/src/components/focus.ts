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
  /** Only when nothing has the focus (it fell to the body with the control that had it). */
  onlyIfLost = false,
): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (when && (!onlyIfLost || focusLost())) ref.current?.focus();
  }, [when, key, onlyIfLost]);
  return ref;
}

/**
 * Whether the keyboard focus is lost: on the body, or still on a control that was just disabled or
 * removed (the browser moves it to the body only at its next rendering step).
 */
export function focusLost(): boolean {
  const active = document.activeElement;
  if (active === null || active === document.body || !active.isConnected) return true;
  return active instanceof HTMLButtonElement && active.disabled;
}
