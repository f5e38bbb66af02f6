import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  hashFromHex,
  hashToHex,
  type VerifierKey,
  verifyCheckpoint,
  verifyConsistencyProof,
} from '@authority-runtime/sdk';
import { Command, Option } from 'commander';
import { emptyPrefixProblem, type LogVerifyOptions, logVerify } from './log-verify.js';
import { USAGE_ERROR_AS_VERDICT } from './verdict-output.js';
import { loadLogKey, withVerdict } from './verify-commands.js';

/** What the monitor keeps between runs: the last checkpoint it verified. */
interface MonitorState {
  origin: string;
  size: number;
  rootHash: string;
  note: string;
}

/** A history problem: the log forked, shrank, rewrote history, or served a bad checkpoint. Exit 1. */
class HistoryProblem extends Error {}
/** The monitor could not do its check (network, configuration). Exit 2. */
class MonitorFailure extends Error {}

interface MonitorOptions {
  baseUrl: string;
  tenant: string;
  key: string;
  logKey: string;
  state: string;
  interval?: string;
}

function loadState(file: string): MonitorState | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as MonitorState;
  } catch (error) {
    throw new MonitorFailure(`cannot read the state file ${file}: ${(error as Error).message}`);
  }
}

function saveState(file: string, state: MonitorState): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** One check: fetch the checkpoint, verify it, prove it consistent with the last one, keep it. */
export async function monitorOnce(options: MonitorOptions, fetcher: typeof fetch = fetch): Promise<string> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const tenant = encodeURIComponent(options.tenant);
  const headers = { authorization: `Bearer ${options.key}`, 'x-tenant-id': options.tenant };
  const get = async (path: string) => {
    let response: Response;
    try {
      response = await fetcher(`${base}${path}`, { headers });
    } catch (error) {
      throw new MonitorFailure(`GET ${path}: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (response.status !== 200)
      throw new MonitorFailure(`GET ${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
    return text;
  };
  let logKey: VerifierKey;
  try {
    logKey = await loadLogKey(options.logKey);
  } catch (error) {
    throw new MonitorFailure((error as Error).message);
  }
  const note = await get(`/audit/${tenant}/checkpoint`);
  const verified = verifyCheckpoint(note, { logKey });
  if (!verified.valid)
    throw new HistoryProblem(`the checkpoint does not verify: ${verified.reason}: ${verified.detail}`);
  const { checkpoint } = verified;
  const current: MonitorState = {
    origin: checkpoint.origin,
    size: checkpoint.size,
    rootHash: hashToHex(checkpoint.rootHash),
    note,
  };
  const last = loadState(options.state);
  if (last === undefined) {
    saveState(options.state, current);
    return `first checkpoint, size ${current.size}`;
  }
  if (last.origin !== current.origin) {
    throw new HistoryProblem(`the state file is for ${last.origin}, the log is ${current.origin}`);
  }
  if (current.size < last.size) {
    throw new HistoryProblem(`the log shrank from size ${last.size} to ${current.size}`);
  }
  if (current.size === last.size) {
    if (current.rootHash !== last.rootHash) {
      throw new HistoryProblem(`the log rewrote history: two root hashes for size ${current.size}`);
    }
    return `unchanged at size ${current.size}`;
  }
  if (last.size === 0) {
    // No proof exists from the empty tree, and none is needed: it is a prefix of every tree.
    const problem = emptyPrefixProblem(hashFromHex(last.rootHash));
    if (problem !== undefined) throw new HistoryProblem(problem);
    saveState(options.state, current);
    return `consistent from size 0 to ${current.size}`;
  }
  const body = JSON.parse(
    await get(`/audit/${tenant}/proof/consistency?from=${last.size}&to=${current.size}`),
  ) as {
    proof?: unknown;
  };
  const proof = Array.isArray(body.proof) ? body.proof : [];
  let hashes: Uint8Array[];
  try {
    hashes = proof.map((h) => hashFromHex(String(h)));
  } catch (error) {
    throw new HistoryProblem(`the consistency proof is malformed: ${(error as Error).message}`);
  }
  const outcome = verifyConsistencyProof({
    fromSize: last.size,
    fromRoot: hashFromHex(last.rootHash),
    toSize: current.size,
    toRoot: checkpoint.rootHash,
    proof: hashes,
  });
  if (!outcome.valid) {
    throw new HistoryProblem(
      `the log forked: size ${current.size} is not consistent with size ${last.size} (${outcome.reason}: ${outcome.detail})`,
    );
  }
  saveState(options.state, current);
  return `consistent from size ${last.size} to ${current.size}`;
}

async function monitor(options: MonitorOptions): Promise<void> {
  const interval = options.interval === undefined ? undefined : Number(options.interval);
  if (interval !== undefined && !(Number.isFinite(interval) && interval > 0)) {
    process.stderr.write(`authority: --interval ${options.interval} is not a positive number of seconds\n`);
    process.exit(2);
  }
  for (;;) {
    try {
      process.stdout.write(`OK ${await monitorOnce(options)}\n`);
    } catch (error) {
      if (error instanceof HistoryProblem) {
        process.stdout.write(`ALERT ${error.message}\n`);
        process.exit(1);
      }
      if (!(error instanceof MonitorFailure)) throw error;
      process.stderr.write(`authority: ${error.message}\n`);
      if (interval === undefined) process.exit(2);
    }
    if (interval === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, interval * 1000));
  }
}

/**
 * `authority log monitor` watches a tenant's log for a fork, a shrink or a rewrite; `authority log
 * verify` checks checkpoints offline (contract §15).
 */
export function logCommand(): Command {
  const log = new Command('log').description("check and watch a tenant's transparency log");
  log
    .command('verify <checkpoint>')
    .description(
      'verify a checkpoint note offline against the pinned log key and witness keys; with --previous and --proof, that an older checkpoint is a prefix of the same history; exit 0 valid, 1 invalid, 2 unreadable input',
    )
    .requiredOption('--log-key <key|file|url>', "the tenant's log verifier key, a file holding it or its URL")
    .option('--witness <keys...>', 'witness verifier keys (type 0x04), as text or files')
    .option('--quorum <n>', 'how many of the --witness keys must have cosigned (default: all of them)')
    .option('--previous <file>', 'an older checkpoint of the same log, e.g. one kept from a receipt')
    .option(
      '--proof <file>',
      'the consistency proof between them: GET /audit/:tenantId/proof/consistency?from=&to=',
    )
    .configureOutput(USAGE_ERROR_AS_VERDICT)
    .action(async (file: string, options: LogVerifyOptions) => {
      await withVerdict(process.stdout, () => logVerify(file, options, process.stdout));
    });
  log
    .command('monitor')
    .description(
      'verify the latest checkpoint and its consistency with the last one kept in --state; exit 1 naming the sizes when the log forked, shrank or rewrote history',
    )
    .requiredOption('--base-url <url>', 'the service, e.g. https://authority.example.com')
    .requiredOption('--tenant <id>', 'the tenant whose log to watch')
    .addOption(
      // The variable keeps the key out of the process list, which shows every command line.
      new Option('--key <apiKey>', 'an API key with audit:read (prefer the variable)')
        .env('AUTHORITY_API_KEY')
        .makeOptionMandatory(),
    )
    .requiredOption('--log-key <key|file|url>', "the tenant's log verifier key, a file holding it or its URL")
    .requiredOption('--state <file>', 'where the last verified checkpoint is kept')
    .option('--interval <seconds>', 'check again every so many seconds (default: check once)')
    .action(monitor);
  return log;
}
