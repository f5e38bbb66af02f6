import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type ConsoleBrowser, openBrowser } from './helpers/browser.js';
import { signIn } from './helpers/console-page.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';

/**
 * Pages a role may not use (contract §14: each shown only to roles whose permissions allow it):
 * the refusal is shown without the page asking the service for what it would be refused, and a
 * page the role may use is reachable from the menu.
 */
describe('pages a role may not use', () => {
  let server: ConsoleServer;
  let b: ConsoleBrowser;
  let page: Page;
  const refused: string[] = [];

  before(async () => {
    server = await startConsoleServer();
    await Promise.all([
      server.createUser('policy@demo.test', 'policy_admin'),
      server.createUser('agent@demo.test', 'agent'),
    ]);
    b = await openBrowser();
    page = b.page;
    page.on('response', (response) => {
      if (response.status() === 403) refused.push(new URL(response.url()).pathname);
    });
  });
  after(async () => {
    await b?.close();
    await server?.stop();
  });

  async function visit(path: string, refusal: string): Promise<void> {
    await page.goto(`${server.base}${path}`);
    await page.getByText(refusal).waitFor();
    await page.waitForLoadState('networkidle');
  }

  it('shows a policy admin the refusal of the intent list without a refused request', async () => {
    await page.goto(`${server.base}/console/`);
    await signIn(page, 'policy@demo.test');
    await visit('/console/intents', 'does not allow this page: it needs intent:read');
    assert.deepEqual(refused, []);
  });

  it('leads an agent to the playground from the menu; the physical policy is refused without a request', async () => {
    await signIn(page, 'agent@demo.test');
    const policies = page.locator('header').getByRole('link', { name: 'Policies' });
    assert.equal(await policies.getAttribute('href'), '/console/policies/playground');
    await policies.click();
    await page.getByRole('link', { name: 'Playground' }).waitFor();
    assert.equal(await page.getByText('does not allow the playground').count(), 0);
    await visit('/console/policies/physical', 'does not allow this page');
    await visit('/console/audit', 'does not allow this page');
    assert.deepEqual(refused, []);
  });
});
