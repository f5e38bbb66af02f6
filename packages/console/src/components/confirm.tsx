import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useFocusOnShow } from './focus.js';

/**
 * A consequential action in two steps: the first press asks, the second (Confirm) acts; Cancel and
 * Escape go back, and the focus with them to the button that asked. Focus moves to Confirm, inside
 * the fieldset whose legend is the question. `kind` is `danger` (the default) for what weakens a
 * control, `primary` for what strengthens one.
 */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  disabled,
  kind = 'danger',
  children,
}: {
  label: string;
  question: string;
  onConfirm: () => void;
  disabled?: boolean;
  kind?: 'danger' | 'primary';
  children?: ComponentChildren;
}) {
  const [asking, setAsking] = useState(false);
  const [cancelled, setCancelled] = useState(0);
  const confirm = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  useEffect(() => {
    if (cancelled > 0) opener.current?.focus();
  }, [cancelled]);
  const cancel = () => {
    setAsking(false);
    setCancelled((n) => n + 1);
  };
  if (!asking) {
    return (
      <button type="button" class={kind} disabled={disabled} ref={opener} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <fieldset
      class="confirm"
      onKeyDown={(event) => {
        if (event.key === 'Escape') cancel();
      }}
    >
      <legend>{question}</legend>
      {children}
      <button
        type="button"
        class={kind}
        ref={confirm}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Confirm: {label}
      </button>{' '}
      <button type="button" onClick={cancel}>
        Cancel
      </button>
    </fieldset>
  );
}

/** A secret shown once, with the warning that it will not be shown again. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  // It replaces the form's busy button, which lost the focus while the request ran.
  const box = useFocusOnShow<HTMLDivElement>(true, value, true);
  return (
    <div class="success" role="status" tabIndex={-1} ref={box}>
      <p>
        <strong>{label}</strong> (shown once: store it now, it cannot be shown again):
      </p>
      <code class="secret">{value}</code>
    </div>
  );
}
