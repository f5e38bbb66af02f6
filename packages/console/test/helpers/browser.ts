import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium (`apt-get install -y chromium`; `.ci/run` installs it). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** Console messages about the Content-Security-Policy (a violation means something was inlined). */
  cspViolations: string[];
  close(): Promise<void>;
}

/**
 * Starts chromium with a fresh profile (the user-data-dir), so its cache is cold. Fails (never skips) when chromium is
 * missing: the browser tests are part of the suite.
 */
export async function openBrowser(): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`chromium is missing at ${CHROMIUM}: install it with apt-get install -y chromium`);
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const requests: string[] = [];
  const cspViolations: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return {
    context,
    page,
    requests,
    cspViolations,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
