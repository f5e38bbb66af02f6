import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

/** The CLI entry point, run through tsx as the tests run the sources. */
export const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

export interface ServeProcess {
  child: ChildProcess;
  /** Everything printed to standard output up to the listening line (and the demo block, if any). */
  output: string;
  /** `http://127.0.0.1:<port>` */
  base: string;
}

/**
 * Starts `authority serve` on the embedded database in `dataDir` on a free port, and resolves once
 * it prints its listening line. `env` adds to (or overrides) the test's environment; the database
 * URL and master key are cleared so the process uses `dataDir` alone.
 */
export function startServeProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'serve', '--port', '0', '--data-dir', dataDir],
    {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', AUTHORITY_MASTER_KEY: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}${errors}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^ ]+) /.exec(output);
      // The demo block, when printed, arrives in the same write as the listening line.
      if (match?.[1] && output.endsWith('\n')) {
        clearTimeout(timer);
        resolve({ child, output, base: match[1] });
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}): ${output}${errors}`));
    });
  });
}

/** Signals a process (SIGTERM by default) and resolves with its exit code once it has exited. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}
