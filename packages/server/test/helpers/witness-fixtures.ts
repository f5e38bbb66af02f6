// A test log kept as the service keeps it (stored subtree hashes, roots by size, signed notes) and
// the real `authority witness serve` started as a child process: shared by the witness tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  appendLeaves,
  cosigner,
  EMPTY_FRONTIER,
  ed25519NoteSigner,
  emptyTreeHash,
  formatAddCheckpointRequest,
  formatCheckpoint,
  generateSignerKey,
  leafHash,
  planConsistencyProof,
  signNote,
  type TreeFrontier,
} from '@authority-runtime/sdk';
import { gatherOutput } from './output.js';
import { CLI } from './serve-process.js';

/** An audit log as the service will keep it: stored subtree hashes, roots by size, signed notes. */
export class Log {
  readonly signer: ReturnType<typeof ed25519NoteSigner>;
  private readonly hashes = new Map<string, Uint8Array>();
  private readonly roots: Uint8Array[] = [emptyTreeHash()];
  private frontier: TreeFrontier = EMPTY_FRONTIER;

  constructor(
    readonly origin: string,
    salt = '',
  ) {
    this.signer = ed25519NoteSigner(generateSignerKey(origin));
    const entries = Array.from({ length: 200 }, (_, i) =>
      createHash('sha256').update(`${salt}entry ${i}`).digest(),
    );
    for (const entry of entries) {
      const step = appendLeaves(this.frontier, [leafHash(new Uint8Array(entry))]);
      for (const { address, hash } of step.stored) this.hashes.set(`${address.level}/${address.index}`, hash);
      this.roots.push(step.rootHash);
      this.frontier = step.frontier;
    }
  }

  root(size: number): Uint8Array {
    return this.roots[size] as Uint8Array;
  }

  note(size: number, signer = this.signer): string {
    return signNote(
      formatCheckpoint({ origin: this.origin, size, rootHash: this.roots[size] as Uint8Array }),
      [signer],
    );
  }

  proof(from: number, to: number): Uint8Array[] {
    if (from === 0) return [];
    const plan = planConsistencyProof(from, to);
    return plan.assemble(plan.addresses.map((a) => this.hashes.get(`${a.level}/${a.index}`) as Uint8Array));
  }

  request(oldSize: number, size: number, options: { proofFrom?: number; note?: string } = {}): string {
    const proof = this.proof(options.proofFrom ?? oldSize, size);
    return formatAddCheckpointRequest({ oldSize, proof, checkpoint: options.note ?? this.note(size) });
  }
}

/**
 * A witness key file as `authority witness keygen` writes it (that command has its own tests in
 * cli/witness-serve.test.ts), made in process: a spawned CLI costs a second or two per key.
 */
export function witnessKey(dir: string, name: string): { keyFile: string; verifierKey: string } {
  const key = generateSignerKey(name);
  const keyFile = path.join(dir, `${name.replace(/\W/g, '_')}.key`);
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { keyFile, verifierKey: cosigner(key, Date.now).verifierKey };
}

export interface Witness {
  child: ChildProcess;
  base: string;
  stderr: () => string;
  /**
   * The standard error once it matches `pattern`: the witness writes it before it answers, but the
   * pipe may deliver it after the answer. Rejects with what arrived if it does not match in 10 s.
   */
  stderrMatching: (pattern: RegExp) => Promise<string>;
}

export function startWitness(args: string[]): Promise<Witness> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'witness', 'serve', '--listen', '127.0.0.1:0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const errors = gatherOutput(child.stderr);
  const stderrMatching = (pattern: RegExp) =>
    errors.until((text) => (pattern.test(text) ? text : undefined), `standard error matching ${pattern}`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`witness did not start: ${output}${errors.text()}`)),
      90_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+) /.exec(output);
      if (match?.[1] && /verifier key: \S+\n/.test(output)) {
        clearTimeout(timer);
        resolve({ child, base: match[1], stderr: errors.text, stderrMatching });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`witness exited (${code}): ${output}${errors.text()}`));
    });
  });
}
