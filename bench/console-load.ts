/**
 * The console's first page load from a cold browser cache, and its bundle size (contract §14,
 * issue target: under 1 s on this machine).
 *
 * Each run starts chromium with a fresh profile (an empty cache), opens an approvalUrl-shaped deep
 * link (`/console/approvals/<id>`, which shows the sign-in form first) and measures from the
 * navigation until the form is usable, beside the browser's own navigation timing. Browser start is
 * not counted. Needs `npm run build` and Debian's chromium.
 *
 *   npx tsx --conditions=development bench/console-load.ts [--runs 7]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startEmbeddedServer } from './embedded-server.js';
import { machineLine } from './machine.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DIST = path.resolve(import.meta.dirname, '../packages/console/dist');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Raw and gzip sizes of the files index.html loads, and of the chunks loaded later. */
function bundleSizes(): void {
  const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const files = readdirSync(path.join(DIST, 'assets')).map((name) => `assets/${name}`);
  const initial = ['index.html', ...files.filter((file) => html.includes(`/console/${file}`))];
  const later = files.filter((file) => !initial.includes(file));
  const size = (list: string[]) =>
    list.reduce(
      (sum, file) => {
        const bytes = readFileSync(path.join(DIST, file));
        return { raw: sum.raw + bytes.length, gzip: sum.gzip + gzipSync(bytes).length };
      },
      { raw: 0, gzip: 0 },
    );
  for (const file of [...initial, ...later]) {
    const { raw, gzip } = size([file]);
    console.log(`  ${file.padEnd(36)} ${kib(raw).padStart(10)} raw ${kib(gzip).padStart(10)} gzip`);
  }
  const first = size(initial);
  const rest = size(later);
  console.log(
    `first page (index.html + entry script + stylesheet): ${kib(first.raw)} raw, ${kib(first.gzip)} gzip`,
  );
  console.log(
    `loaded on demand (QR code, at enrollment only):      ${kib(rest.raw)} raw, ${kib(rest.gzip)} gzip`,
  );
}

async function coldLoad(base: string): Promise<{ usableMs: number; dclMs: number; loadMs: number }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'console-bench-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const started = performance.now();
    await page.goto(`${base}/console/approvals/01a20000-0000-7000-8000-000000000001`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const usableMs = performance.now() - started;
    // A string, evaluated in the page: the browser's navigation timing, in ms since navigation start.
    const timing = await page.evaluate<{ dclMs: number; loadMs: number }>(
      '(() => { const e = performance.getEntriesByType("navigation")[0]; return { dclMs: e.domContentLoadedEventEnd, loadMs: e.loadEventEnd }; })()',
    );
    return { usableMs, ...timing };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  if (!existsSync(path.join(DIST, 'index.html'))) throw new Error('build the console first: npm run build');
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium`);
  console.log(machineLine());
  console.log(
    'bundle (gzip level 6: what a compressing proxy would send; the service sends the files as they are):',
  );
  bundleSizes();
  const server = await startEmbeddedServer();
  try {
    const results: Array<{ usableMs: number; dclMs: number; loadMs: number }> = [];
    for (let run = 0; run < runs; run += 1) results.push(await coldLoad(server.base));
    const column = (name: 'usableMs' | 'dclMs' | 'loadMs') => results.map((result) => result[name]);
    console.log(`cold loads of /console/approvals/<id> (${runs} runs, fresh profile each):`);
    for (const [label, name] of [
      ['sign-in form usable', 'usableMs'],
      ['DOMContentLoaded', 'dclMs'],
      ['load event', 'loadMs'],
    ] as const) {
      const values = column(name);
      console.log(
        `  ${label.padEnd(20)} median ${median(values).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`,
      );
    }
  } finally {
    await server.close();
  }
}

await main();
