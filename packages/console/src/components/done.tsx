import { useState } from 'preact/hooks';
import { useFocusOnShow } from './focus.js';
import { useAction } from './use-api.js';

/** What an action did, and when (a new `seq` each time, so the same text is announced again). */
interface DoneMessage {
  text: string;
  seq: number;
}

/**
 * {@link useAction} for an action that says what it recorded: the text it resolves to is `done`
 * (for {@link Done}); running it again or failing clears the last one. An action that resolves to
 * nothing (it did nothing) says nothing.
 */
export function useRecordedAction<A extends unknown[]>(action: (...args: A) => Promise<string | undefined>) {
  const [done, setDone] = useState<DoneMessage | null>(null);
  const recorded = useAction(async (...args: A) => {
    setDone(null);
    const text = await action(...args);
    if (text !== undefined) setDone({ text, seq: Date.now() });
  });
  return { ...recorded, done };
}

/**
 * The message that an action was recorded. It takes the keyboard focus when the control that
 * started the action lost it (disabled while busy, or replaced), so the focus follows what replaced
 * that control (docs/console.md, Accessibility).
 */
export function Done({ message }: { message: DoneMessage | null }) {
  const box = useFocusOnShow<HTMLParagraphElement>(message !== null, message?.seq, true);
  if (message === null) return null;
  return (
    <p class="success" role="status" tabIndex={-1} ref={box}>
      {message.text}
    </p>
  );
}
