import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type ConsoleBrowser, openBrowser } from './helpers/browser.js';
import { intentBody, signIn, signOut } from './helpers/console-page.js';
import { type ConsoleServer, PASSWORD, startConsoleServer, TENANT } from './helpers/console-server.js';

/**
 * Contract §14 in a real browser: a policy version saved (after the server's validation errors are
 * shown next to the rule and field), activated and rolled back; the playground's explanation; the
 * chain verified; an API key created (shown once), used and revoked; a lost session.
 */

describe('administration in the console', () => {
  let server: ConsoleServer;
  let b: ConsoleBrowser;
  let page: Page;
  let approvedIntentId = '';
  let approvedToken = '';

  before(async () => {
    server = await startConsoleServer({ EGRESS_ALLOW_CIDRS: '127.0.0.1/32' });
    await Promise.all([
      server.createUser('owner@demo.test', 'owner'),
      server.createUser('auditor@demo.test', 'auditor'),
      server.createUser('admin@demo.test', 'admin'),
    ]);
    assert.equal((await server.asOwner('POST', '/intent', intentBody('merge pull request 5'))).status, 202);
    const approved = await server.asOwner('POST', '/intent', {
      ...intentBody('list open pull requests'),
      riskContext: { baseRiskScore: 5 },
    });
    assert.equal(approved.status, 200);
    const approvedBody = (await approved.json()) as { intentId: string; authorityDecisionToken: string };
    approvedIntentId = approvedBody.intentId;
    approvedToken = approvedBody.authorityDecisionToken;
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

  it('shows the validation errors next to the rule and field, saves, activates and rolls back a version', async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    const editor = page.getByLabel('Rules (JSON array)');
    await editor.fill(JSON.stringify([{ id: 'friday-freeze', effect: 'MAYBE' }]));
    await page.getByRole('button', { name: 'Save version' }).click();
    const outline = page.locator('#policy-issues');
    await outline.waitFor();
    const text = (await outline.textContent()) ?? '';
    assert.match(text, /Rule friday-freeze \(rules\[0\]\)/);
    assert.match(text, /effect/);
    assert.equal(
      await editor.getAttribute('aria-describedby').then((v) => v?.includes('policy-issues')),
      true,
    );

    const rule = {
      id: 'friday-freeze',
      effect: 'DENY',
      conditions: { all: [{ path: 'risk.production', op: 'EQ', value: true }] },
    };
    await editor.fill(JSON.stringify([rule], null, 2));
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('Saved v2 (not active').waitFor();
    assert.equal(await activeVersion(), 1);

    await page.getByRole('button', { name: 'Activate v2' }).click();
    await page.getByRole('button', { name: 'Confirm: Activate v2' }).click();
    await page.getByRole('heading', { name: 'Active: v2' }).waitFor();
    assert.equal(await activeVersion(), 2);
    // The focus follows what replaced the confirmation: the message that says what was done.
    await page.getByRole('status').filter({ hasText: 'Activated v2.' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Activated v2.');
    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByRole('button', { name: 'Confirm: Roll back to v1' }).click();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    assert.equal(await activeVersion(), 1);
    await page.waitForFunction(() => document.activeElement?.textContent === 'Rolled back to v1.');
  });

  it('evaluates a request in the playground and says why each other rule did not match', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('Proposed action').fill('merge pull request 42');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await result.waitFor();
    assert.match((await result.locator('dl').textContent()) ?? '', /ESCALATE.*starter\/escalate-writes/s);
    const why = (await result.getByRole('table').textContent()) ?? '';
    assert.match(why, /starter\/allow-reads/);
    assert.match(why, /risk\.operation_type/);
  });

  it('verifies the chain and opens an entry with its hashes', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    const first = page.getByRole('row').filter({ hasText: 'policy.activated' }).first();
    await first.waitFor();
    await page.getByRole('link', { name: /Verify the chain/ }).click();
    await page.getByRole('button', { name: 'Verify chain' }).click();
    const status = page.getByRole('status').filter({ hasText: 'VALID' });
    await status.waitFor();
    assert.match((await status.textContent()) ?? '', /VALID: \d+ entries/);
    await page.goto(`${server.base}/console/audit/entries/1`);
    await page.getByRole('heading', { name: 'Audit entry #1' }).waitFor();
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    assert.match(facts, /Entry hash[0-9a-f]{64}/);
    assert.match(facts, /Previous hash[0-9a-f]{64}/);
  });

  it('downloads an intent’s receipt and the audit export', async () => {
    await page.goto(`${server.base}/console/intents/${approvedIntentId}`);
    await page.getByRole('heading', { name: 'Intent: list open pull requests' }).waitFor();
    // The token is unspent and the console user did not submit the intent: no receipt yet.
    await page.getByRole('button', { name: 'Download receipt' }).click();
    await page.getByText(/only the principal that submitted the intent gets its receipt/).waitFor();
    const consumed = await server.asOwner('POST', '/authority/tokens/consume', {
      token: approvedToken,
      adapterId: 'external',
      targetSystem: 'acme/payments',
    });
    assert.equal(((await consumed.json()) as { valid: boolean }).valid, true);
    const [receipt] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download receipt' }).click(),
    ]);
    assert.equal(receipt.suggestedFilename(), `receipt-${approvedIntentId}.json`);
    const body = JSON.parse(await readFile((await receipt.path()) ?? '', 'utf8')) as Record<string, unknown>;
    assert.equal(body.intentId, approvedIntentId);
    assert.equal(typeof body.token, 'string');
    await page.goto(`${server.base}/console/audit/chain`);
    const [exported] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download export' }).click(),
    ]);
    const lines = (await readFile((await exported.path()) ?? '', 'utf8')).trim().split('\n');
    assert.ok(lines.length > 3);
    assert.equal(JSON.parse(lines[0] ?? '{}').entry.index, 0);
  });

  it('creates an API key shown once, which works until it is revoked', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('ci-bot');
    await page.getByLabel('Role').selectOption('auditor');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = ((await page.locator('code.secret').textContent()) ?? '').trim();
    assert.match(key, /^service_live_[0-9A-Za-z]{43}$/);
    const useKey = () =>
      fetch(`${server.base}/tenant`, { headers: { authorization: `Bearer ${key}`, 'x-tenant-id': TENANT } });
    assert.equal((await useKey()).status, 200);
    await page.getByRole('button', { name: 'Revoke ci-bot' }).click();
    await page.getByRole('button', { name: 'Confirm: Revoke ci-bot' }).click();
    await page
      .getByRole('row', { name: /ci-bot/ })
      .getByText('revoked')
      .waitFor();
    await page.waitForFunction(() =>
      document.activeElement?.textContent?.startsWith('Revoked the key "ci-bot"'),
    );
    assert.equal((await useKey()).status, 401);
  });

  it('offers an admin no owner key to create and no owner key to revoke (only an owner revokes one)', async () => {
    const listed = (await (await server.asOwner('GET', '/keys')).json()) as {
      keys: Array<{ name: string; role: string; revokedAt: string | null }>;
    };
    const owner = listed.keys.find((key) => key.role === 'owner' && key.revokedAt === null);
    assert.ok(owner, 'the demo tenant has an owner key');
    await signIn(page, 'admin@demo.test');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    const row = page.getByRole('row', { name: new RegExp(owner.name) });
    await row.waitFor();
    assert.equal(await row.getByRole('button').count(), 0, 'no revoke button on the owner key');
    const roles = await page.getByLabel('Role').locator('option').allTextContents();
    assert.ok(!roles.includes('owner') && roles.includes('admin') && roles.includes('agent'), roles.join());
    await signIn(page, 'owner@demo.test');
  });

  /** Presses Tab until the focused element's accessible text matches (the keyboard's only way around). */
  async function tabTo(text: RegExp): Promise<void> {
    for (let press = 0; press < 60; press += 1) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        const label = element?.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null;
        return `${label ?? ''} ${element?.textContent ?? ''}`.trim();
      });
      if (text.test(focused)) return;
    }
    throw new Error(`Tab never reached ${text}`);
  }

  /** Waits until the focused element's text is `text` (focus may move in an effect after a render). */
  const focused = (text: string) =>
    page.waitForFunction((expected) => document.activeElement?.textContent === expected, text, {
      timeout: 5_000,
    });

  it('works from the keyboard alone: skip link, navigation, a form and a confirmation', async () => {
    await page.goto(`${server.base}/console/intents`);
    await page.getByRole('heading', { name: 'Intents' }).waitFor();
    await page.keyboard.press('Tab');
    await focused('Skip to content');
    await tabTo(/^Settings$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Settings: API keys' }).waitFor();
    // The new page takes the focus (its main landmark), not the link that was followed.
    await page.waitForFunction(() => document.activeElement?.id === 'main', null, { timeout: 5_000 });
    await tabTo(/^Key name/);
    await page.keyboard.type('keyboard-key');
    await tabTo(/^Create key$/);
    await page.keyboard.press('Enter');
    await page.locator('code.secret').waitFor();
    await tabTo(/^Revoke keyboard-key$/);
    await page.keyboard.press('Enter');
    // Focus moves to the confirmation; Escape cancels it and brings the focus back.
    await focused('Confirm: Revoke keyboard-key');
    await page.keyboard.press('Escape');
    await focused('Revoke keyboard-key');
  });

  it("deletes a webhook endpoint: says so, takes the focus, and clears the endpoint's secret from the page", async () => {
    await page.goto(`${server.base}/console/settings/webhooks`);
    await page.getByLabel('Receiver URL', { exact: true }).fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await page.locator('code.secret').waitFor();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('button', { name: 'Confirm: Delete endpoint' }).click();
    await page.waitForFunction(() =>
      document.activeElement?.textContent?.startsWith('Deleted the endpoint http://127.0.0.1:9/hook'),
    );
    assert.equal(await page.locator('code.secret').count(), 0, 'the deleted endpoint’s secret is gone');
  });

  it("clears a registered connector's configuration (its secrets) from the form", async () => {
    await page.goto(`${server.base}/console/settings/connectors`);
    await page.getByLabel('Connector name').fill('sealed-hook');
    await page.getByLabel('Target system').fill('acme/payments');
    await page.getByLabel('Type').selectOption('github');
    const config = page.getByLabel('Configuration (JSON)');
    await config.fill(
      '{"token": "ghp_neverStaysInThePage0123456789abcdefghij", "baseUrl": "http://127.0.0.1:9"}',
    );
    await page.getByRole('button', { name: 'Register connector' }).click();
    await page.getByRole('status').filter({ hasText: 'Connector sealed-hook registered' }).waitFor();
    assert.equal(await config.inputValue(), '{}');
    assert.doesNotMatch(await page.content(), /neverStaysInThePage/);
  });

  it('answers "Page not found" for a settings section that does not exist', async () => {
    await page.goto(`${server.base}/console/settings/budgets`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Settings: API keys' }).count(), 0);
  });

  it("shows the catastrophic floor's state and who changed it, also after a reload", async () => {
    await page.goto(`${server.base}/console/settings/tenant`);
    await page.getByLabel('Agreement version', { exact: true }).fill('2026-01');
    await page.getByRole('button', { name: 'Disable the floor' }).click();
    await page.getByRole('button', { name: 'Confirm: Disable the floor' }).click();
    await page.getByText('It is now disabled.').waitFor();
    await page.reload();
    await page.getByText(/Last change: floor\.changed: disabled, by \S+ \(/).waitFor();
    await page.getByRole('button', { name: 'Enable the floor' }).click();
    await page.getByText('It is now enabled.').waitFor();
    await page.reload();
    await page.getByText(/Last change: floor\.changed: enabled, by \S+ \(/).waitFor();
  });

  it('returns to sign-in with the reason when the session ends elsewhere', async () => {
    await page.getByRole('link', { name: 'Approvals' }).click();
    const sessionId = await page.evaluate(
      () => JSON.parse(sessionStorage.getItem('authority-console.session') ?? '{}').sessionId as string,
    );
    const ended = await fetch(`${server.base}/portal/logout`, {
      method: 'POST',
      headers: { 'x-portal-session-id': sessionId, 'x-tenant-id': TENANT },
    });
    assert.equal(ended.status, 204);
    // The inbox refreshes every 5 s; its next request finds the session gone.
    await page.getByRole('status').filter({ hasText: 'no longer valid' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('returns to sign-in after the fifth wrong second-factor code, saying why', async () => {
    const signOutButton = page.locator('header').getByRole('button', { name: 'Sign out' });
    await page.getByRole('button', { name: 'Sign in' }).or(signOutButton).waitFor();
    if (await signOutButton.isVisible()) await signOut(page);
    await page.getByLabel('Tenant', { exact: true }).fill(TENANT);
    await page.getByLabel('Email', { exact: true }).fill('admin@demo.test');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      // Never a current code: the authenticator's codes are six digits from its secret.
      await page.getByLabel('Code', { exact: true }).fill(attempt % 2 === 0 ? '000000' : '999999');
      await page.getByRole('button', { name: 'Verify' }).click();
      if (attempt < 5) await page.getByRole('alert').filter({ hasText: /code/i }).first().waitFor();
    }
    await page
      .getByRole('status')
      .filter({ hasText: 'Too many wrong second-factor codes: the session has ended' })
      .waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('shows each role only its pages, and says so on a page the role cannot use', async () => {
    await signIn(page, 'auditor@demo.test');
    const nav = (await page.getByRole('navigation', { name: 'Main' }).textContent()) ?? '';
    assert.doesNotMatch(nav, /Approvals/);
    for (const label of ['Intents', 'Audit', 'Policies', 'Settings']) assert.match(nav, new RegExp(label));
    await page.goto(`${server.base}/console/approvals`);
    await page.getByRole('alert').filter({ hasText: 'does not allow this page' }).waitFor();
    await page.goto(`${server.base}/console/settings/keys`);
    const denied = page.getByRole('alert').filter({ hasText: 'keys:manage' });
    await denied.waitFor();
    // A setting the role may read but not change is shown read-only, with the reason.
    await page.goto(`${server.base}/console/settings/thresholds`);
    await page.getByText('changing them needs authority:thresholds:write').waitFor();
    const inputs = page.locator('form input');
    assert.ok((await inputs.count()) > 0);
    for (const input of await inputs.all()) assert.equal(await input.getAttribute('readonly'), '');
  });

  it('made no request outside the service', () => {
    const origin = new URL(server.base).origin;
    assert.deepEqual(
      b.requests.filter(
        (url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'),
      ),
      [],
    );
    assert.deepEqual(b.cspViolations, []);
  });
});
