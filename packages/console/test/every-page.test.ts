import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type ConsoleBrowser, openBrowser } from './helpers/browser.js';
import { intentBody, seriousViolations, signIn } from './helpers/console-page.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';

/**
 * Every page of the console (contract §14): axe-core finds no serious or critical violation, no
 * request leaves the service, no CSP rule is broken, the pages are served with the CSP. With
 * CONSOLE_SCREENSHOTS=1 each page is saved to docs/console/<name>.png for the README.
 */

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const SHOTS_DIR = path.resolve(import.meta.dirname, '../../../docs/console');

describe('every console page', () => {
  let server: ConsoleServer;
  let b: ConsoleBrowser;
  let page: Page;
  const ids: Record<string, string> = {};

  before(async () => {
    // The webhook points at a closed loopback port: its deliveries fail and show as retrying.
    server = await startConsoleServer({ ALLOW_PRIVATE_EGRESS: '1' });
    await server.createUser('owner@demo.test', 'owner');
    const post = async (url: string, body: unknown) => {
      const res = await server.asOwner('POST', url, body);
      const text = await res.text();
      assert.ok(
        res.status < 300 || (url === '/intent' && res.status === 403),
        `${url}: ${res.status} ${text}`,
      );
      return JSON.parse(text) as Record<string, string>;
    };
    await post('/intent', intentBody('list open pull requests'));
    ids.intent =
      (await post('/intent', intentBody('merge pull request 42', { pullNumber: 42, strategy: 'squash' })))
        .intentId ?? '';
    const catastrophic = await post(
      '/intent',
      intentBody('clean up the sessions table', { sql: 'DROP TABLE sessions' }),
    );
    ids.escalation = catastrophic.escalationId ?? '';
    await post('/intent', { ...intentBody('deploy release 7'), riskContext: { baseRiskScore: 95 } });
    await post('/v1/physical/actors', {
      actorIdentity: 'devid:arm-7',
      actorKind: 'robot',
      displayName: 'Cell 4 arm',
    });
    const reading = {
      kind: 'boolean',
      value: false,
      asOfTimestampMs: Date.now(),
      attestation: { channel: 'plc', safetyRated: true, protocol: 'fsoe' },
    };
    const ticket = await post('/v1/physical/authority-tokens', {
      intent: {
        structuredGoal: {
          schema: 'robot.manipulation',
          verb: 'move',
          parameters: { x: 1 },
          actor: { kind: 'robot', identifier: 'devid:arm-7' },
        },
      },
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
    ids.ticket = ticket.escalationTicketId ?? '';
    await post('/webhooks', { url: 'http://127.0.0.1:9/authority-hooks', events: ['*'] });
    await post('/connectors', { type: 'noop', name: 'dry-run', targetSystem: 'acme/payments', config: {} });
    b = await openBrowser();
    page = b.page;
    if (SCREENSHOTS) mkdirSync(SHOTS_DIR, { recursive: true });
  });
  after(async () => {
    await b?.close();
    await server?.stop();
  });

  /** Checks the page as it stands, and keeps its screenshot when asked. */
  async function check(name: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(SHOTS_DIR, `${name}.png`), fullPage: true });
  }

  it('the sign-in and second-factor enrollment pages', async () => {
    const response = await page.goto(`${server.base}/console/`);
    assert.equal(
      response?.headers()['content-security-policy'],
      "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    );
    const html = (await response?.text()) ?? '';
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /<style|\sstyle=/, 'no inline style');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await check('sign-in');
    await page.getByLabel('Tenant', { exact: true }).fill('demo');
    await page.getByLabel('Email', { exact: true }).fill('owner@demo.test');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    await check('enrollment');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signIn(page, 'owner@demo.test');
  });

  const pages: Array<[string, () => string, string]> = [
    ['approvals', () => '/console/approvals', 'Approvals'],
    [
      'approval-intent',
      () => `/console/approvals/${ids.escalation}`,
      'Escalation: clean up the sessions table',
    ],
    ['approval-ticket', () => `/console/approvals/${ids.ticket}`, 'Physical ticket'],
    ['intents', () => '/console/intents', 'Intents'],
    ['intent-detail', () => `/console/intents/${ids.intent}`, 'Intent: merge pull request 42'],
    ['audit', () => '/console/audit', 'Audit'],
    ['audit-entry', () => '/console/audit/entries/3', 'Audit entry #3'],
    ['audit-chain', () => '/console/audit/chain', 'Audit chain'],
    ['policies', () => '/console/policies', 'Policies'],
    ['policy-simulation', () => '/console/policies/simulation', 'Policy simulation'],
    ['policy-playground', () => '/console/policies/playground', 'Policy playground'],
    ['policy-physical', () => '/console/policies/physical', 'Physical clause policy'],
    ['settings-keys', () => '/console/settings/keys', 'Settings: API keys'],
    ['settings-webhooks', () => '/console/settings/webhooks', 'Settings: Webhooks'],
    ['settings-connectors', () => '/console/settings/connectors', 'Settings: Connectors'],
    ['settings-thresholds', () => '/console/settings/thresholds', 'Settings: Thresholds'],
    ['settings-tenant', () => '/console/settings/tenant', 'Settings: Kill switch, IP allowlist, floor'],
    ['settings-physical-actors', () => '/console/settings/physical-actors', 'Settings: Physical actors'],
  ];

  for (const [name, url, heading] of pages) {
    it(`${name}: no serious or critical axe violation`, async () => {
      await page.goto(`${server.base}${url()}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      if (name === 'policy-playground') {
        await page.getByRole('button', { name: 'Evaluate' }).click();
        await page.getByRole('region', { name: 'Result' }).waitFor();
      }
      if (name === 'audit-chain') {
        await page.getByRole('button', { name: 'Verify chain' }).click();
        await page.getByRole('status').filter({ hasText: 'VALID' }).waitFor();
      }
      if (name === 'settings-webhooks') await page.getByRole('button', { name: 'Show deliveries' }).click();
      await check(name);
    });
  }

  it('made no request outside the service and broke no CSP rule', () => {
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
