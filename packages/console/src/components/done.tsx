import { useFocusOnShow } from './focus.js';

/** What an action did, and when (a new `seq` for each time it is done, so the same text speaks again). */
export interface DoneMessage {
  text: string;
  seq: number;
}

/** A {@link DoneMessage} for `text`, numbered by the clock. */
export const doneNow = (text: string): DoneMessage => ({ text, seq: Date.now() });

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
