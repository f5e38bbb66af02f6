import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type ConsoleBrowser, openBrowser } from './helpers/browser.js';
import { intentBody, seriousViolations, signIn, signOut } from './helpers/console-page.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';

/**
 * Contract §16 in a real browser: a simulation that turns escalations into approvals, narrowed to
 * one actor, with its validation errors (the form's and the server's) next to the fields; the owner
 * turning review on, a draft saved under review, refused activation, approved by a second user,
 * then activated and rolled back, and review turned off again. With CONSOLE_SCREENSHOTS=1 the
 * simulation result and the review confirmation are saved to docs/console/.
 */

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console');
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const ALLOW_ALL = [{ id: 'allow-all', effect: 'ALLOW' }];

describe('policy simulation and review in the console', () => {
  let server: ConsoleServer;
  let b: ConsoleBrowser;
  let page: Page;
  let escalatedId = '';
  let otherActorId = '';

  before(async () => {
    server = await startConsoleServer();
    await Promise.all([
      server.createUser('owner@demo.test', 'owner'),
      server.createUser('reviewer@demo.test', 'policy_admin'),
    ]);
    const escalated = await server.asOwner('POST', '/intent', intentBody('merge pull request 5'));
    assert.equal(escalated.status, 202);
    escalatedId = ((await escalated.json()) as { intentId: string }).intentId;
    const other = await server.asOwner('POST', '/intent', {
      ...intentBody('merge pull request 6'),
      actor: { id: 'report-bot', type: 'agent' },
    });
    assert.equal(other.status, 202);
    otherActorId = ((await other.json()) as { intentId: string }).intentId;
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

  const simulations = () => b.requests.filter((url) => url.endsWith('/authority/policy/simulate')).length;

  it('simulates a draft: the escalations become approvals, fewer for one actor; bad input shows next to its field', async () => {
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
    const status = result.getByRole('status');
    await status.filter({ hasText: '2 intents replayed, 2 would change' }).waitFor();
    assert.equal(await result.getByRole('listitem').first().textContent(), 'ESCALATED → APPROVED: 2');
    assert.equal(await result.getByRole('link', { name: otherActorId }).count(), 1);

    // The form refuses what the schema refuses, without asking the server.
    const limit = page.getByLabel('Sample limit');
    const asked = simulations();
    await limit.fill('0');
    await page.getByRole('button', { name: 'Run simulation' }).click();
    await page.getByText('A whole number from 1 to 10000.').waitFor();
    assert.equal(await limit.getAttribute('aria-invalid'), 'true');
    assert.equal(simulations(), asked);
    await limit.fill('50');
    await page.getByText('A whole number from 1 to 10000.').waitFor({ state: 'detached' });
    assert.equal(await limit.getAttribute('aria-invalid'), null, 'the error goes once the value changes');

    // `from` after `to` is the server's rule: its 400 stands under From, and in the summary.
    const from = page.getByLabel('From', { exact: true });
    await from.fill('2026-11-25T12:00');
    await page.getByLabel('To', { exact: true }).fill('2026-11-25T11:00');
    await page.getByRole('button', { name: 'Run simulation' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Simulation refused' });
    await refused.waitFor();
    assert.match((await refused.textContent()) ?? '', /400 VALIDATION_ERROR/);
    assert.equal(await from.getAttribute('aria-invalid'), 'true');
    const described = (await from.getAttribute('aria-describedby'))?.split(' ') ?? [];
    const fromError = page.locator(`[id="${described.at(-1)}"]`);
    assert.equal(await fromError.textContent(), 'must not be after sample.to');
    assert.equal(await result.count(), 0, 'no result from a refused simulation');
    assert.deepEqual(await seriousViolations(page), []);

    await from.fill('');
    await page.getByLabel('To', { exact: true }).fill('');
    await page.getByLabel('Actor id').fill('deploy-bot');
    await page.getByRole('button', { name: 'Run simulation' }).click();
    await status.filter({ hasText: '1 intent replayed, 1 would change' }).waitFor();
    assert.equal(await refused.count(), 0);
    assert.equal(await result.getByRole('listitem').first().textContent(), 'ESCALATED → APPROVED: 1');
    assert.match(
      (await result.textContent()) ?? '',
      /Sample: up to the 50 most recent intents \(actor deploy-bot\)/,
    );
    const link = result.getByRole('link', { name: escalatedId });
    assert.equal(await link.getAttribute('href'), `/console/intents/${escalatedId}`);
    assert.equal(
      await result.getByRole('link', { name: otherActorId }).count(),
      0,
      'the other actor is left out',
    );
    assert.deepEqual(await seriousViolations(page), []);
    if (SCREENSHOTS)
      await page.screenshot({ path: path.join(SHOTS, 'policy-simulation.png'), fullPage: true });
    assert.equal(await activeVersion(), 1, 'a simulation activates nothing');
  });

  const reviewSetting = async () =>
    (
      (await (await server.asOwner('GET', '/authority/policy/versions')).json()) as {
        review: { required: boolean; approvals: number };
      }
    ).review;

  it('lets the owner require review: a save is a draft, refused activation until another user approves', async () => {
    await page.getByRole('link', { name: 'Intent policy' }).click();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    const review = page.getByRole('region', { name: 'Review of new versions' });
    await review.getByText('Review is not required').waitFor();
    await page.getByLabel('Rules (JSON array)').fill(JSON.stringify(ALLOW_ALL));
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('Saved v2 (not active').waitFor();
    const save = review.getByRole('button', { name: 'Save review setting' });
    assert.ok(await save.isDisabled(), 'nothing to save before a change');
    await review.getByLabel('Require review of new versions').check();
    assert.equal(await review.getByLabel('Approvals a new version needs').inputValue(), '1');
    await save.click();
    const question = review.getByRole('group', { name: /^Require 1 approval for new policy versions\?/ });
    await question.waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(SHOTS, 'policy-review.png'), fullPage: true });
    assert.deepEqual(await reviewSetting(), { required: false, approvals: 1 }, 'nothing before Confirm');
    await question.getByRole('button', { name: 'Confirm: Save review setting' }).click();
    await review
      .getByText('Review is required: a new version is stored as a draft and needs 1 approval')
      .waitFor();
    assert.deepEqual(await reviewSetting(), { required: true, approvals: 1 });

    await page.getByLabel('Rules (JSON array)').fill(JSON.stringify(ALLOW_ALL));
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('Saved v3 as a draft').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'v3' }).first();
    assert.match((await row.textContent()) ?? '', /draft/);
    assert.equal(await row.getByRole('button', { name: 'Approve v3' }).count(), 0, 'not for its author');
    await row.getByRole('button', { name: 'Activate v3' }).click();
    await row.getByRole('button', { name: 'Confirm: Activate v3' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Activation refused' });
    await refused.waitFor();
    assert.match((await refused.textContent()) ?? '', /409/);
    assert.match((await refused.textContent()) ?? '', /needs its approvals/);
    assert.equal(await activeVersion(), 1);

    await signOut(page);
    await signIn(page, 'reviewer@demo.test');
    await page.goto(`${server.base}/console/policies`);
    const reviewRow = page.getByRole('row').filter({ hasText: 'v3' }).first();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    await review.getByText('Review is required').waitFor();
    assert.equal(
      await review.getByLabel('Require review of new versions').count(),
      0,
      'a policy_admin lacks tenant:admin: no control the server would refuse',
    );
    const earlier = page.getByRole('row').filter({ hasText: 'Edit a copy of v2' });
    // Saved before review was required and never active: a draft until it has its approval.
    assert.match((await earlier.textContent()) ?? '', /draft/);
    assert.equal(
      await earlier.getByRole('button', { name: 'Approve v2' }).count(),
      1,
      'a version saved before review was required, never active, can be reviewed',
    );
    await reviewRow.getByLabel('Comment on v3').fill('allow-all for the demo');
    await reviewRow.getByRole('button', { name: 'Approve v3' }).click();
    await reviewRow.getByText(/Approved by .* allow-all for the demo/).waitFor();
    assert.match((await reviewRow.textContent()) ?? '', /approved/);
    assert.deepEqual(await seriousViolations(page), []);
    await reviewRow.getByRole('button', { name: 'Activate v3' }).click();
    await reviewRow.getByRole('button', { name: 'Confirm: Activate v3' }).click();
    await page.getByRole('heading', { name: 'Active: v3' }).waitFor();
    assert.equal(await activeVersion(), 3);
    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByRole('button', { name: 'Confirm: Roll back to v1' }).click();
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    assert.equal(await activeVersion(), 1);
  });

  it('turns review off again as the owner: a saved version is activated at once', async () => {
    await signOut(page);
    await signIn(page, 'owner@demo.test');
    await page.goto(`${server.base}/console/policies`);
    await page.getByRole('heading', { name: 'Active: v1' }).waitFor();
    const review = page.getByRole('region', { name: 'Review of new versions' });
    await review.getByText('Review is required').waitFor();
    await review.getByLabel('Require review of new versions').uncheck();
    await review.getByRole('button', { name: 'Save review setting' }).click();
    const question = review.getByRole('group', { name: /^Stop requiring review\?/ });
    await question.getByRole('button', { name: 'Confirm: Save review setting' }).click();
    await review.getByText('Review is not required').waitFor();
    assert.equal((await reviewSetting()).required, false);

    await page.getByLabel('Rules (JSON array)').fill(JSON.stringify(ALLOW_ALL));
    await page.getByLabel('Activate on save').check();
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('Saved v4 and activated it').waitFor();
    assert.equal(await activeVersion(), 4);
  });
});
