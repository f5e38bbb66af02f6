import { Page } from './page.js';

/** A console URL that names no page (or no section of one). */
export function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        No console page here. <a href="/console/">Go to the start page</a>.
      </p>
    </Page>
  );
}
