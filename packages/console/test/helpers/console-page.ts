import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { PASSWORD, TENANT } from './console-server.js';
import { Authenticator } from './totp.js';

/** Each console user's authenticator, made when the enrollment page shows the secret. */
const authenticators = new Map<string, Authenticator>();

/**
 * Signs in on the page as it stands (any console URL shows the sign-in form first): tenant, email,
 * password, then the enrollment (QR code and secret) or the code of the user's authenticator.
 */
export async function signIn(page: Page, email: string): Promise<void> {
  // A test that failed half-way may have left someone signed in: start from the form.
  const signOutButton = page.locator('header').getByRole('button', { name: 'Sign out' });
  await page.getByRole('button', { name: 'Sign in' }).or(signOutButton).waitFor();
  if (await signOutButton.isVisible()) await signOut(page);
  await page.getByLabel('Tenant', { exact: true }).fill(TENANT);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const heading = page.getByRole('heading', { level: 1 });
  const signedIn = page.locator('header').getByRole('button', { name: 'Sign out' });
  await heading
    .filter({ hasText: /second factor|authenticator code/ })
    .or(signedIn)
    .waitFor();
  // Roles without a privileged permission sign in without a second factor until they enroll one.
  if (await signedIn.isVisible()) return;
  if ((await heading.textContent())?.includes('Set up')) {
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    const secret = (await page.locator('code.secret').textContent())?.trim() ?? '';
    assert.match(secret, /^[A-Z2-7]{32}$/);
    authenticators.set(email, new Authenticator(secret));
  }
  // The code field takes the focus when the step appears, so the keyboard types into it.
  await page.waitForFunction(
    () => (document.activeElement as HTMLInputElement | null)?.name === 'code',
    null,
    {
      timeout: 5_000,
    },
  );
  const authenticator = authenticators.get(email);
  assert.ok(authenticator, `no authenticator enrolled for ${email}`);
  await page.getByLabel('Code', { exact: true }).fill(await authenticator.nextCode());
  await page.getByRole('button', { name: 'Verify' }).click();
  // The second-factor form has a "Sign out" button of its own: wait for the header's, which only a
  // verified session shows (its rotated id is stored by then).
  await signedIn.waitFor();
}

/** Signs out through the header button and waits for the sign-in form. */
export async function signOut(page: Page): Promise<void> {
  await page.locator('header').getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/**
 * Runs axe-core in the page (through the DevTools protocol, which the page's CSP does not govern)
 * and returns the serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((n) => n.target))}`,
    );
}

/** The intent requests the tests submit with the owner key. */
export function intentBody(proposedAction: string, args?: Record<string, unknown>) {
  return {
    tenantId: TENANT,
    actor: { id: 'deploy-bot', type: 'agent' },
    targetSystem: 'acme/payments',
    proposedAction,
    ...(args ? { args } : {}),
    riskContext: { baseRiskScore: 35, touchesProduction: true },
  };
}
