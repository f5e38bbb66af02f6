import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { useFocusOnShow } from './focus.js';

interface Common {
  label: string;
  hint?: string;
  required?: boolean;
}

function Hint({ id, hint }: { id: string; hint: string | undefined }) {
  return hint ? (
    <span id={id} class="hint">
      {hint}
    </span>
  ) : null;
}

/** A field's error, next to it: the input points at it with aria-describedby and is aria-invalid. */
function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <span id={id} class="field-error">
      {error}
    </span>
  ) : null;
}

/** A labelled text input; `hint` and `error` are tied to it with aria-describedby. */
export function TextField(
  props: Common & {
    value: string;
    onValue: (value: string) => void;
    type?: 'text' | 'email' | 'password' | 'url' | 'datetime-local';
    autoComplete?: string;
    inputMode?: 'numeric' | 'text' | 'email';
    pattern?: string;
    maxLength?: number;
    name?: string;
    /** Why the value is refused (by the form or by the server), shown under the input. */
    error?: string | undefined;
    /** Takes the focus when it appears (the one field of a step that replaced another). */
    autoFocus?: boolean;
    /** Shown, not editable: a role that may read a setting but not change it. */
    readOnly?: boolean;
  },
) {
  const id = useId();
  const input = useFocusOnShow<HTMLInputElement>(props.autoFocus === true);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [props.hint ? hintId : '', props.error ? errorId : ''].filter(Boolean).join(' ');
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    autoComplete: props.autoComplete,
    inputMode: props.inputMode,
    pattern: props.pattern,
    maxLength: props.maxLength,
    readOnly: props.readOnly,
    ref: input,
    'aria-describedby': describedBy || undefined,
    'aria-invalid': props.error ? true : undefined,
    onInput: (event: Event) => props.onValue((event.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.type === 'password' ? (
        <input type="password" {...common} />
      ) : props.type === 'email' ? (
        <input type="email" {...common} />
      ) : props.type === 'url' ? (
        <input type="url" {...common} />
      ) : props.type === 'datetime-local' ? (
        <input type="datetime-local" {...common} />
      ) : (
        <input type="text" {...common} />
      )}
      <Hint id={hintId} hint={props.hint} />
      <FieldError id={errorId} error={props.error} />
    </div>
  );
}

export function TextArea(
  props: Common & { value: string; onValue: (value: string) => void; rows?: number; describedBy?: string },
) {
  const id = useId();
  const hintId = `${id}-hint`;
  const describedBy = [props.hint ? hintId : '', props.describedBy ?? ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <textarea
        id={id}
        rows={props.rows ?? 4}
        value={props.value}
        required={props.required}
        spellcheck={false}
        aria-describedby={describedBy || undefined}
        onInput={(event) => props.onValue((event.currentTarget as HTMLTextAreaElement).value)}
      />
      <Hint id={hintId} hint={props.hint} />
    </div>
  );
}

export function SelectField(
  props: Common & {
    value: string;
    onValue: (value: string) => void;
    options: ReadonlyArray<{ value: string; label: string }>;
  },
) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        required={props.required}
        onChange={(event) => props.onValue((event.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Checkbox(props: { label: string; checked: boolean; onChecked: (checked: boolean) => void }) {
  const id = useId();
  return (
    <div class="field field-inline">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        onChange={(event) => props.onChecked((event.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
    </div>
  );
}

/** A form whose submit runs `onSubmit` without reloading the page. */
export function Form({
  onSubmit,
  children,
  label,
}: {
  onSubmit: () => void;
  children: ComponentChildren;
  label?: string;
}) {
  return (
    <form
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}
