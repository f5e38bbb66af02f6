import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type ConsoleBrowser, openBrowser } from './helpers/browser.js';
import { intentBody, seriousViolations, signIn, signOut } from './helpers/console-page.js';
import { type ConsoleServer, startConsoleServer, TENANT } from './helpers/console-server.js';

/**
 * Contract §16 in a real browser: a simulation that turns an escalation into an approval, its
 * validation errors; a draft saved under review, refused activation, approved by a second user,
 * then activated and rolled back. With CONSOLE_SCREENSHOTS=1 the simulation result is saved to
 * docs/console/policy-simulation.png.
 */

const SHOT = path.resolve(import.meta.dirname, '../../../docs/console/policy-simulation.png');
const ALLOW_ALL = [{ id: 'allow-all', effect: 'ALLOW' }];

describe('policy simulation and review in the console', () => {
  let server: ConsoleServer;
  let b: ConsoleBrowser;
  let page: Page;
  let escalatedId = '';

  before(async () => {
    server = await startConsoleServer();
    await server.createUser('owner@demo.test', 'owner');
    await server.createUser('reviewer@demo.test', 'policy_admin');
    const escalated = await server.asOwner('POST', '/intent', intentBody('merge pull request 5'));
    assert.equal(escalated.status, 202);
    escalatedId = ((await escalated.json()) as { intentId: string }).intentId;
    b = await openBrowser();
    page = b.page;
    await page.goto(`${server.base}/console/`);
    await signIn(page, 'owner@demo.test');
  });
  after(async () => {
    await b?.close();
    await server?.stop();
  });

  const activeVersion = async () =>
    ((await (await server.asOwner('GET', '/authority/policy')).json()) as { version: number }).version;

  it('simulates a draft: the escalation becomes an approval; a bad draft shows its errors inline', async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'Simulation' }).click();
    await page.getByRole('heading', { level: 1, name: 'Policy simulation' }).waitFor();
    const editor = page.getByLabel('Draft rules (JSON array)');
    assert.match(await editor.inputValue(), /^\[/);

    await editor.fill(JSON.stringify([{ id: 'friday-freeze', effect: 'MAYBE' }]));
    await page.getByRole('button', { name: 'Run simulation' }).click();
    const outline = page.locator('#simulation-issues');
    await outline.waitFor();
    assert.match((await outline.textContent()) ?? '', /Rule friday-freeze \(rules\[0\]\)/);

    await editor.fill(JSON.stringify(ALLOW_ALL));
    await page.getByLabel("Replace the installed packs' rules").check();
    await page.getByLabel('Sample limit').fill('50');
    await page.getByRole('button', { name: 'Run simulation' }).click();
    const result = page.getByRole('region', { name: 'Simulation result' });
    await result.waitFor();
    assert.match(
      (await result.getByRole('status').textContent()) ?? '',
      /1 intents? replayed, 1 would change/,
    );
    assert.equal(await result.getByRole('listitem').first().textContent(), 'ESCALATED → APPROVED: 1');
    const link = result.getByRole('link', { name: escalatedId });
    assert.equal(await link.getAttribute('href'), `/console/intents/${escalatedId}`);
    assert.deepEqual(await seriousViolations(page), []);
    if (process.env.CONSOLE_SCREENSHOTS === '1') await page.screenshot({ path: SHOT, fullPage: true });
    assert.equal(await activeVersion(), 1, 'a simulation activates nothing');
  });

  it('stores a draft under review, refuses its activation, and activates it once another user approves', async () => {
    const required = await server.asOwner('PUT', `/authority/policy-review/${TENANT}`, { required: true });
    assert.equal(required.status, 200, await required.text());
    await page.getByRole('link', { name: 'Intent policy' }).click();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    await page.getByText('Review is required').waitFor();
    await page.getByLabel('Rules (JSON array)').fill(JSON.stringify(ALLOW_ALL));
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('Saved v2 as a draft').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'v2' }).first();
    assert.match((await row.textContent()) ?? '', /draft/);
    assert.equal(await row.getByRole('button', { name: 'Approve v2' }).count(), 0, 'not for its author');
    await row.getByRole('button', { name: 'Activate v2' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Activation refused' });
    await refused.waitFor();
    assert.match((await refused.textContent()) ?? '', /409/);
    assert.match((await refused.textContent()) ?? '', /needs its approvals/);
    assert.equal(await activeVersion(), 1);

    await signOut(page);
    await signIn(page, 'reviewer@demo.test');
    await page.goto(`${server.base}/console/policies`);
    const reviewRow = page.getByRole('row').filter({ hasText: 'v2' }).first();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    await reviewRow.getByLabel('Comment on v2').fill('allow-all for the demo');
    await reviewRow.getByRole('button', { name: 'Approve v2' }).click();
    await reviewRow.getByText(/Approved by .* allow-all for the demo/).waitFor();
    assert.match((await reviewRow.textContent()) ?? '', /approved/);
    assert.deepEqual(await seriousViolations(page), []);
    await reviewRow.getByRole('button', { name: 'Activate v2' }).click();
    await page.getByRole('heading', { name: 'Active: v2' }).waitFor();
    assert.equal(await activeVersion(), 2);
    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    assert.equal(await activeVersion(), 1);
  });
});
