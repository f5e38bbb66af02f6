import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type ConsoleBrowser, openBrowser } from './helpers/browser.js';
import { intentBody, signIn, signOut } from './helpers/console-page.js';
import { type ConsoleServer, startConsoleServer, TENANT } from './helpers/console-server.js';

/**
 * Contract §14 in a real browser against a real `authority serve`: an approver who receives an
 * approvalUrl signs in, understands what is asked and decides; the catastrophic queue needs two
 * senior approvers; separation of duties and 403s are shown; a physical ticket is rejected.
 */

const RATIONALE = 'Checked the diff and the rollout plan with the team';

describe('approvals in the console', () => {
  let server: ConsoleServer;
  let b: ConsoleBrowser;
  let page: Page;

  before(async () => {
    server = await startConsoleServer();
    await Promise.all([
      server.createUser('approver@demo.test', 'approver'),
      server.createUser('senior-1@demo.test', 'senior_approver'),
      server.createUser('senior-2@demo.test', 'senior_approver'),
      server.createUser('owner@demo.test', 'owner'),
    ]);
    b = await openBrowser();
    page = b.page;
  });
  after(async () => {
    await b?.close();
    await server?.stop();
  });

  async function escalate(action: string, args?: Record<string, unknown>) {
    const res = await server.asOwner('POST', '/intent', intentBody(action, args));
    const text = await res.text();
    assert.equal(res.status, 202, text);
    return JSON.parse(text) as { intentId: string; escalationId: string; approvalUrl: string };
  }
  /** The approvalUrl's page on the test server (the URL's host is PUBLIC_BASE_URL's). */
  const open = async (approvalUrl: string) => {
    const pathname = new URL(approvalUrl).pathname;
    await page.goto(`${server.base}${pathname}`);
    return pathname;
  };
  const decideWith = async (button: 'Approve' | 'Deny') => {
    await page.getByLabel('Rationale').fill(RATIONALE);
    await page.getByRole('button', { name: button, exact: true }).click();
  };
  const intentStatus = async (intentId: string) =>
    ((await (await server.asOwner('GET', `/intent/${intentId}`)).json()) as { status: string }).status;

  it('opens an approvalUrl, signs in with a new second factor, shows who, what, which rule, what risk, which arguments, and approves', async () => {
    const escalated = await escalate('merge pull request 42', {
      pullNumber: 42,
      apiToken: 'tok-never-shown',
    });
    assert.match(escalated.approvalUrl, new RegExp(`/console/approvals/${escalated.escalationId}$`));
    const pathname = await open(escalated.approvalUrl);
    await signIn(page, 'approver@demo.test');
    assert.equal(new URL(page.url()).pathname, pathname, 'the deep link survives the sign-in');
    await page.getByRole('heading', { name: 'Escalation: merge pull request 42' }).waitFor();
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    for (const expected of [
      'deploy-bot (agent)',
      'acme/payments',
      'starter/escalate-writes',
      '55 (medium)',
      'standard',
      '0 of 1 approval',
    ]) {
      assert.ok(facts.includes(expected), `the facts show ${expected}: ${facts}`);
    }
    const args = (await page.getByRole('figure', { name: 'Arguments of the action' }).textContent()) ?? '';
    assert.match(args, /"pullNumber": 42/);
    assert.match(args, /\[redacted\]/);
    assert.doesNotMatch(await page.content(), /tok-never-shown/);
    await decideWith('Approve');
    await page.getByText('The escalation is now approved (1 of 1 approvals)').waitFor();
    // The form is gone: the focus is on what says the decision was recorded.
    await page.waitForFunction(
      () => document.activeElement?.textContent?.startsWith('Recorded.') === true,
      null,
      {
        timeout: 5_000,
      },
    );
    assert.equal(await intentStatus(escalated.intentId), 'APPROVED_AFTER_REVIEW');
    // Decided: no warning about who must give a second approval any more.
    assert.equal(await page.getByText('You already decided on this escalation').count(), 0);
    // The intent's own page redacts its args the same way.
    await page.getByRole('link', { name: 'Open the intent' }).click();
    const request = page.getByRole('figure', { name: 'Request' });
    await request.waitFor();
    assert.match((await request.textContent()) ?? '', /"apiToken": "\[redacted\]"/);
    assert.doesNotMatch(await page.content(), /tok-never-shown/);
  });

  it('opens an approvalUrl written with the /v1 prefix on the same page', async () => {
    const escalated = await escalate('merge pull request 43');
    await page.goto(`${server.base}/v1${new URL(escalated.approvalUrl).pathname}`);
    await signIn(page, 'approver@demo.test');
    await page.getByRole('heading', { name: 'Escalation: merge pull request 43' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/approvals/${escalated.escalationId}`);
  });

  it('lists pending escalations in the inbox and picks up new ones without a reload', async () => {
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Intent escalations' }).waitFor();
    const fresh = await escalate('deploy release 7 to production');
    const row = page.getByRole('row', { name: /deploy release 7 to production/ });
    await row.waitFor({ timeout: 8_000 });
    const text = (await row.textContent()) ?? '';
    assert.match(text, /starter\/escalate-writes/);
    assert.match(text, /deploy-bot/);
    assert.match(text, /left/);
    await row.getByRole('link').click();
    assert.equal(new URL(page.url()).pathname, `/console/approvals/${fresh.escalationId}`);
  });

  it('reaches every pending escalation: past the first 100, the inbox pages on with the service cursor', async () => {
    const oldest = await escalate('rotate the signing certificate of the edge fleet');
    for (let batch = 0; batch < 5; batch += 1) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => escalate(`update file docs/page-${batch * 20 + i}.md`)),
      );
    }
    await page.goto(`${server.base}/console/approvals`);
    await page.getByRole('heading', { name: 'Intent escalations' }).waitFor();
    const pages = page.getByRole('navigation', { name: 'Escalation pages' });
    await page.getByRole('row', { name: /update file docs\/page-99\.md/ }).waitFor();
    const oldestRow = page.getByRole('row', { name: /rotate the signing certificate/ });
    assert.equal(await oldestRow.count(), 0, 'past the first page');
    await pages.getByRole('button', { name: 'Next page' }).focus();
    await page.keyboard.press('Enter');
    await oldestRow.waitFor();
    // The last page: "Next page" is disabled now, and the focus went to "Previous page", not the body.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Previous page', null, {
      timeout: 5_000,
    });
    await oldestRow.getByRole('link').click();
    assert.equal(new URL(page.url()).pathname, `/console/approvals/${oldest.escalationId}`);
  });

  it('says a decision that got no answer was not refused: its outcome is unknown', async () => {
    const escalated = await escalate('merge pull request 77');
    await open(escalated.approvalUrl);
    await page.getByRole('heading', { name: 'Escalation: merge pull request 77' }).waitFor();
    await page.route('**/authority/approval', (route) => route.abort('connectionrefused'));
    try {
      await decideWith('Approve');
      const problem = page.getByRole('alert').filter({ hasText: 'No answer from the service' });
      await problem.waitFor();
      const text = (await problem.textContent()) ?? '';
      assert.doesNotMatch(text, /refused|TypeError|Failed to fetch/);
      assert.match(text, /may or may not have been done/);
    } finally {
      await page.unroute('**/authority/approval');
    }
    assert.equal(await intentStatus(escalated.intentId), 'ESCALATED');
  });

  it('offers no receipt for an intent whose escalation is pending (the service answers 409 until it is decided)', async () => {
    const pending = await escalate('rotate the staging database password');
    await page.goto(`${server.base}/console/intents/${pending.intentId}`);
    await page.getByText('The receipt is issued once the escalation is decided or expires.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Download receipt' }).count(), 0);
    assert.equal((await server.asOwner('GET', `/intent/${pending.intentId}/receipt`)).status, 409);
  });

  it('shows the 403 of an approver on the catastrophic queue, then two distinct senior approvers approve', async () => {
    const escalated = await escalate('run the cleanup migration', { sql: 'DROP TABLE sessions' });
    await open(escalated.approvalUrl);
    await page.getByText('The catastrophic-review queue needs a senior approver').waitFor();
    await decideWith('Approve');
    const refusal = page.getByRole('alert').filter({ hasText: 'Your decision was refused' });
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /403 FORBIDDEN.*authority:approve:catastrophic/s);
    await signOut(page);

    await signIn(page, 'senior-1@demo.test');
    await page.getByText('2 approvals by distinct senior approvers').waitFor();
    await decideWith('Approve');
    await page.getByText('The escalation is now pending (1 of 2 approvals)').waitFor();
    await page.getByText('You already decided on this escalation').waitFor();
    await decideWith('Approve');
    await page.getByRole('alert').filter({ hasText: '409 CONFLICT' }).waitFor();
    assert.equal(await intentStatus(escalated.intentId), 'ESCALATED');
    await signOut(page);

    await signIn(page, 'senior-2@demo.test');
    await page.getByText('1 of 2 approvals').waitFor();
    await decideWith('Approve');
    await page.getByText('The escalation is now approved (2 of 2 approvals)').waitFor();
    assert.equal(await intentStatus(escalated.intentId), 'APPROVED_AFTER_REVIEW');
    const decisions = page.getByRole('region', { name: 'Decisions' });
    await decisions.getByText('senior-2@demo.test').waitFor();
    assert.match((await decisions.textContent()) ?? '', /senior-1@demo\.test/);
    await signOut(page);
  });

  it('shows a decision another approver recorded meanwhile, with the refusal of the late one', async () => {
    const escalated = await escalate('merge pull request 77');
    await open(escalated.approvalUrl);
    await signIn(page, 'approver@demo.test');
    await page.getByText('No decision recorded yet').waitFor();
    // Another approver decides through the API while this page is open.
    const created = await server.asOwner('POST', '/keys', { name: 'other-approver', role: 'approver' });
    const { key } = (await created.json()) as { key: string };
    const elsewhere = await fetch(`${server.base}/authority/approval`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-tenant-id': TENANT, 'content-type': 'application/json' },
      body: JSON.stringify({ intentId: escalated.intentId, decision: 'deny', rationale: RATIONALE }),
    });
    assert.equal(elsewhere.status, 200, await elsewhere.text());
    await decideWith('Approve');
    const refusal = page.getByRole('alert').filter({ hasText: '409 CONFLICT' });
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /Current status: denied/);
    await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'alert', null, {
      timeout: 5_000,
    });
    // At once, not at the next refresh: the decision is listed and the form is gone.
    await page
      .getByRole('region', { name: 'Decisions' })
      .getByRole('cell', { name: 'deny', exact: true })
      .waitFor({ timeout: 1_000 });
    assert.equal(await page.getByLabel('Rationale').count(), 0);
    await signOut(page);
  });

  it('refuses, for separation of duties, the approval of an intent its own approver submitted', async () => {
    await page.goto(`${server.base}/console/approvals`);
    await signIn(page, 'owner@demo.test');
    // The owner submits an intent with its own console session, as a script of theirs would.
    const answer = await page.evaluate(
      async ({ body }) => {
        const session = JSON.parse(sessionStorage.getItem('authority-console.session') ?? '{}');
        const res = await fetch('/intent', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-portal-session-id': session.sessionId,
            'x-tenant-id': session.tenantId,
          },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as { approvalUrl: string; intentId: string } };
      },
      { body: intentBody('push the hotfix branch') },
    );
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    const submitted = answer.body;
    await open(submitted.approvalUrl);
    await page.getByText('Separation of duties: you submitted this intent').waitFor();
    await decideWith('Approve');
    const refusal = page.getByRole('alert').filter({ hasText: 'Your decision was refused' });
    await refusal.waitFor();
    const text = (await refusal.textContent()) ?? '';
    assert.match(text, /403 FORBIDDEN/);
    assert.match(text, /Separation of duties/);
    assert.equal(await intentStatus(submitted.intentId), 'ESCALATED');
    await signOut(page);
  });

  it('rejects a physical ticket from its approvalUrl with the operator and a reason', async () => {
    const actor = await server.asOwner('POST', '/v1/physical/actors', {
      actorIdentity: 'devid:arm-7',
      actorKind: 'robot',
    });
    assert.equal(actor.status, 200);
    const now = Date.now();
    const reading = {
      kind: 'boolean',
      value: false,
      asOfTimestampMs: now,
      attestation: { channel: 'cell-4-plc', safetyRated: true, protocol: 'fsoe' },
    };
    const goal = {
      schema: 'robot.manipulation',
      verb: 'move',
      parameters: { x: 1 },
      actor: { kind: 'robot', identifier: 'devid:arm-7' },
    };
    const res = await server.asOwner('POST', '/v1/physical/authority-tokens', {
      intent: { structuredGoal: goal },
      dagNode: {
        nodeId: 'move-1',
        oiCode: 'OI-1502',
        deadlineMs: 5_000,
        safeDefault: 'stop',
        realTimeTier: 'rt-soft',
      },
      claims: { actorIdentity: 'devid:arm-7', deadlineMs: 5_000, safeDefault: 'stop' },
      physicalState: {
        'safety/emergency-stop': reading,
        'safety/light-curtain-breached': reading,
        'cell/human-present': reading,
      },
    });
    const body = (await res.json()) as { decision: string; escalationTicketId: string; approvalUrl: string };
    assert.equal(body.decision, 'ESCALATE', JSON.stringify(body));
    await open(body.approvalUrl);
    await signIn(page, 'approver@demo.test');
    await page.getByRole('heading', { name: `Physical ticket ${body.escalationTicketId}` }).waitFor();
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    assert.match(facts, /robot devid:arm-7: move \(robot\.manipulation\)/);
    assert.match(facts, /OI-18/);
    assert.match(facts, /escalate-on-low-confidence/);
    await page.getByLabel('Operator').fill('Olga on shift');
    await page.getByLabel('Reason').fill('Cell 4 is being serviced');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('dl.facts').getByText('Cell 4 is being serviced').waitFor();
    const ticket = (await (
      await server.asOwner('GET', `/v1/physical/approvals/${body.escalationTicketId}`)
    ).json()) as {
      status: string;
      operator: string;
      rejectionReason: string;
    };
    assert.deepEqual(
      [ticket.status, ticket.operator, ticket.rejectionReason],
      ['rejected', 'Olga on shift', 'Cell 4 is being serviced'],
    );
  });

  it('made no request outside the service and broke no CSP rule', () => {
    const origin = new URL(server.base).origin;
    const outside = b.requests.filter(
      (url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'),
    );
    assert.deepEqual(outside, []);
    assert.deepEqual(b.cspViolations, []);
    assert.ok(b.requests.length > 10, `requests were recorded (${b.requests.length}) for tenant ${TENANT}`);
  });
});
