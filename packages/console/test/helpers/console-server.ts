import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CLI,
  type ServeProcess,
  startServeProcess,
  stopProcess,
} from '../../../server/test/helpers/serve-process.js';

export const TENANT = 'demo';
export const PASSWORD = 'correct horse battery staple';
const CONSOLE_DIST = path.resolve(import.meta.dirname, '../../dist/index.html');

export interface ConsoleServer {
  base: string;
  /** The demo tenant's owner API key, as `authority serve` printed it. */
  ownerKey: string;
  dataDir: string;
  /** A console user of the demo tenant, created with `authority users create` (no second factor yet). */
  createUser(email: string, role: string): Promise<void>;
  /** A request to the API with the owner key. */
  asOwner(method: string, url: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

function run(args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '', LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: ${code} ${err}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * A real `authority serve` on an embedded database in a temporary folder, serving the console's
 * build (`npm run build` makes it; the tests fail when it is missing rather than test nothing).
 */
export async function startConsoleServer(env: Record<string, string> = {}): Promise<ConsoleServer> {
  if (!existsSync(CONSOLE_DIST)) {
    throw new Error('the console is not built: run `npm run build` (or `npm run build -w packages/console`)');
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'console-e2e-'));
  const served: ServeProcess = await startServeProcess(dataDir, { RATE_LIMIT_PER_IP: '0', ...env });
  const ownerKey = /Owner API key \(shown once; store it now\): (\S+)/.exec(served.output)?.[1];
  if (!ownerKey) throw new Error(`no owner key in: ${served.output}`);
  return {
    base: served.base,
    ownerKey,
    dataDir,
    async createUser(email, role) {
      await run(
        [
          '--data-dir',
          dataDir,
          'users',
          'create',
          '--tenant',
          TENANT,
          '--email',
          email,
          '--role',
          role,
          '--password-stdin',
        ],
        `${PASSWORD}\n`,
      );
    },
    asOwner(method, url, body) {
      return fetch(`${served.base}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${ownerKey}`,
          'x-tenant-id': TENANT,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    async stop() {
      await stopProcess(served.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
