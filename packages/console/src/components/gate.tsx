import type { ComponentChildren } from 'preact';
import type { Permission } from '../session/roles.js';
import { useSession } from '../session/session-context.js';
import { Page } from './page.js';

/** A page for roles that hold one of `anyOf`; others read why they cannot see it. */
export function Gate({
  anyOf,
  title,
  children,
  inline,
}: {
  anyOf: readonly Permission[];
  title: string;
  children: ComponentChildren;
  /** A part of a page: the refusal without a page around it. */
  inline?: boolean;
}) {
  const { can, session } = useSession();
  if (anyOf.some(can)) return <>{children}</>;
  const refusal = (
    <p class="problem" role="alert">
      Your role ({session.user.role}) does not allow {inline ? title : 'this page'}: it needs{' '}
      {anyOf.join(' or ')}.
    </p>
  );
  return inline ? refusal : <Page title={title}>{refusal}</Page>;
}
