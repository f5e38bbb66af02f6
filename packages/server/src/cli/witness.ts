import { readFileSync, writeFileSync } from 'node:fs';
import {
  cosigner,
  ed25519NoteVerifier,
  generateSignerKey,
  isValidKeyName,
  type NoteVerifier,
  TransparencyFormatError,
} from '@authority-runtime/sdk';
import { Command } from 'commander';
import { type Clock, systemClock } from '../foundation/clock.js';
import { WitnessInputError, WitnessStateFile } from './witness-state.js';

/** Parses `--listen host:port` (IPv6 hosts in brackets); port 0 picks a free port. */
function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new WitnessInputError(`--listen ${value} is not host:port`);
  return { host: (match[1] ?? match[2]) as string, port };
}

/** Parses the repeatable `--log <origin>=<log verifier key>` into trusted keys by origin. */
function parseLogs(values: readonly string[]): Map<string, NoteVerifier[]> {
  const logs = new Map<string, NoteVerifier[]>();
  for (const value of values) {
    const split = value.indexOf('=');
    const origin = split < 0 ? '' : value.slice(0, split);
    if (origin === '' || /[\n\r]/.test(origin)) {
      throw new WitnessInputError(`--log ${value} is not <origin>=<log verifier key>`);
    }
    let verifier: NoteVerifier;
    try {
      verifier = ed25519NoteVerifier(value.slice(split + 1));
    } catch (error) {
      throw new WitnessInputError(`--log ${origin}: ${(error as Error).message}`);
    }
    logs.set(origin, [...(logs.get(origin) ?? []), verifier]);
  }
  if (logs.size === 0) throw new WitnessInputError('give at least one --log <origin>=<log verifier key>');
  return logs;
}

function loadCosigner(keyFile: string, clock: Clock) {
  let text: string;
  try {
    text = readFileSync(keyFile, 'utf8');
  } catch (error) {
    throw new WitnessInputError(`cannot read key file ${keyFile}: ${(error as Error).message}`);
  }
  try {
    return cosigner(text.replace(/\n$/, ''), clock);
  } catch (error) {
    if (error instanceof TransparencyFormatError) {
      throw new WitnessInputError(`key file ${keyFile}: ${error.message}`);
    }
    throw error;
  }
}

/** `authority witness keygen`: writes a new signer key (mode 0600, never over a file) and prints its verifier key. */
function keygen(options: { keyFile: string; name: string }): void {
  if (!isValidKeyName(options.name)) {
    throw new WitnessInputError(`--name ${options.name} is not a key name (no spaces, no plus)`);
  }
  try {
    writeFileSync(options.keyFile, `${generateSignerKey(options.name)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw new WitnessInputError(`cannot create key file ${options.keyFile}: ${(error as Error).message}`);
  }
  process.stdout.write(`${loadCosigner(options.keyFile, systemClock).verifierKey}\n`);
}

interface ServeOptions {
  keyFile: string;
  listen: string;
  log: string[];
  stateFile?: string;
}

/** `authority witness serve`: a C2SP tlog-witness for the given logs, until SIGINT or SIGTERM. */
async function serve(options: ServeOptions): Promise<void> {
  const witness = loadCosigner(options.keyFile, systemClock);
  const logs = parseLogs(options.log);
  const { host, port } = parseListen(options.listen);
  const state = WitnessStateFile.open(options.stateFile ?? `${options.keyFile}.state.json`);
  // The HTTP server is loaded only here: keygen has no use for it.
  const { buildWitnessServer } = await import('./witness-server.js');
  const app = buildWitnessServer({
    cosigner: witness,
    logs,
    state,
    clock: systemClock,
    report: (line) => process.stderr.write(`${line}\n`),
  });
  try {
    await app.listen({ host, port });
  } catch (error) {
    state.close();
    throw new WitnessInputError(`cannot listen on ${options.listen}: ${(error as Error).message}`);
  }
  const address = app.server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  process.stdout.write(
    `witness ${witness.name} listening on http://${shown}:${bound} for ${logs.size} log(s); state in ${state.file}\n` +
      `verifier key: ${witness.verifierKey}\n`,
  );
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await app.close();
    state.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

function exitOnInputError(error: unknown): never {
  if (error instanceof WitnessInputError) {
    process.stderr.write(`authority: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}

/** The `authority witness` command group. */
export function witnessCommand(): Command {
  const witness = new Command('witness').description(
    'a transparency log witness (C2SP tlog-witness) that cosigns consistent checkpoints',
  );
  witness
    .command('keygen')
    .description("create a witness key file (mode 0600) and print the witness's verifier key (type 0x04)")
    .requiredOption('--key-file <file>', 'where to write the key; an existing file is never overwritten')
    .requiredOption('--name <name>', 'the witness name, e.g. witness.example.com/w1')
    .action((options: { keyFile: string; name: string }) => {
      try {
        keygen(options);
      } catch (error) {
        exitOnInputError(error);
      }
    });
  witness
    .command('serve')
    .description('serve POST /add-checkpoint and GET /<origin hash>/checkpoint for the given logs')
    .requiredOption('--key-file <file>', 'the witness key file (authority witness keygen)')
    .requiredOption('--listen <host:port>', 'address to listen on, e.g. 127.0.0.1:7380')
    .requiredOption(
      '--log <origin=key>',
      'a log to witness: its origin and log verifier key (repeat for more logs or keys)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--state-file <file>',
      'where the last cosigned checkpoints are kept (default: <key-file>.state.json)',
    )
    .action(async (options: ServeOptions) => {
      await serve(options).catch(exitOnInputError);
    });
  return witness;
}
