import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';

/**
 * Whether a page was shown since the document loaded: the first page leaves the focus where the
 * browser puts it (the skip link comes first), later pages of the same load take it.
 */
let pageShown = false;

/** A page: its title in the document and as the one h1, the landmark the skip link targets. */
export function Page({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${title} · Authority Runtime`;
  }, [title]);
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  // A link followed inside the console replaces the page without a load: the focus moves to the
  // new page's main landmark instead of staying on the link (or falling to the body).
  useEffect(() => {
    if (pageShown) main.current?.focus({ preventScroll: true });
    pageShown = true;
  }, [path]);
  return (
    <main id="main" tabIndex={-1} ref={main}>
      <div class="page-head">
        <h1>{title}</h1>
        {actions ? <div class="page-actions">{actions}</div> : null}
      </div>
      {children}
    </main>
  );
}

/** A titled region of a page. */
export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section aria-labelledby={id} class="section">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** Pretty-printed JSON, wrapped rather than scrolled (so nothing needs a keyboard to scroll). */
export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <figure class="json-figure">
      <figcaption class="visually-hidden">{label}</figcaption>
      <pre class="json">{JSON.stringify(value, null, 2)}</pre>
    </figure>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  ) : null;
}
