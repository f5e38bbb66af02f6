import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  type COSIGNATURE_V1_KEY_TYPE,
  ED25519_KEY_TYPE,
  type JWK,
  parseVerifierKey,
  type VerifierKey,
  verifyChainExport,
  verifyReceipt,
} from '@authority-runtime/sdk';
import { SingleBar } from 'cli-progress';

/** Exit codes of the verify commands: 0 valid, 1 invalid, 2 the input could not be read. */
export class VerifyInputError extends Error {}

/**
 * Runs a verify command so that it always says something: the first word it prints is VALID or
 * INVALID, and the exit code is 0 only after VALID. Until the verdict is written the exit code is
 * already 1, so a verification that ends without one (a bug, a stream that never ends) is a
 * failure, never a silent success. An input that cannot be read is INVALID with exit code 2.
 */
export async function withVerdict(out: NodeJS.WritableStream, verify: () => Promise<number>): Promise<void> {
  process.exitCode = 1;
  try {
    process.exitCode = await verify();
  } catch (error) {
    out.write(`INVALID: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof VerifyInputError ? 2 : 1;
  }
}

/** How long a key URL may take to answer, its body included. */
const KEY_FETCH_TIMEOUT_MS = 30_000;

/**
 * The body of a key URL. A URL that cannot be read (refused, unresolvable, too slow, redirected, a
 * status other than 2xx) is bad input, exit 2, like a file that cannot be read: it says nothing
 * about the receipt or export, so it must not pass for an invalid one (exit 1).
 */
async function fetchKeyText(source: string): Promise<string> {
  try {
    const response = await fetch(source, {
      redirect: 'error',
      signal: AbortSignal.timeout(KEY_FETCH_TIMEOUT_MS),
    });
    if (!response.ok) throw new VerifyInputError(`${source} answered ${response.status}`);
    return await response.text();
  } catch (error) {
    if (error instanceof VerifyInputError) throw error;
    const cause = (error as Error).cause;
    const why =
      cause instanceof Error ? `${(error as Error).message} (${cause.message})` : (error as Error).message;
    throw new VerifyInputError(`cannot read ${source}: ${why}`);
  }
}

async function loadJwksSource(source: string): Promise<JWK[]> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    text = await fetchKeyText(source);
  } else {
    try {
      text = readFileSync(source, 'utf8');
    } catch (error) {
      throw new VerifyInputError(`cannot read ${source}: ${(error as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VerifyInputError(`${source} is not JSON`);
  }
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new VerifyInputError(`${source} is not a JWK set ({"keys": [...]})`);
  return keys as JWK[];
}

/**
 * The pinned keys: every --jwks source merged. A tenant JWKS URL brings its archive along
 * (`…/jwks.json` → `…/jwks-archive.json`), since receipts and checkpoints may name retired keys.
 */
export async function loadPinnedKeys(sources: readonly string[]): Promise<{ keys: JWK[] }> {
  const all: JWK[] = [];
  for (const source of sources) {
    all.push(...(await loadJwksSource(source)));
    if (/^https?:\/\/.*\/jwks\.json$/.test(source)) {
      all.push(...(await loadJwksSource(source.replace(/\/jwks\.json$/, '/jwks-archive.json'))));
    }
  }
  const seen = new Map<string, string>();
  const keys = all.filter((key) => {
    const text = JSON.stringify(key);
    if (seen.get(String(key.kid)) === text) return false;
    seen.set(String(key.kid), text);
    return true;
  });
  return { keys };
}

/**
 * A pinned note verifier key given to an option: the key text itself, a file holding it, or the
 * URL serving it (`GET /.well-known/authority/:tenantId/log-key` for a log key). A key that is not
 * of `type` (0x01 a log's Ed25519 key, 0x04 a witness's cosignature key) cannot be read (exit 2).
 */
export async function loadNoteKey(
  source: string,
  option: string,
  type: typeof ED25519_KEY_TYPE | typeof COSIGNATURE_V1_KEY_TYPE,
): Promise<VerifierKey> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    text = await fetchKeyText(source);
  } else if (existsSync(source)) {
    try {
      text = readFileSync(source, 'utf8');
    } catch (error) {
      throw new VerifyInputError(`cannot read ${source}: ${(error as Error).message}`);
    }
  } else {
    text = source;
  }
  const what = type === ED25519_KEY_TYPE ? 'a log verifier key' : 'a witness verifier key';
  try {
    const key = parseVerifierKey(text.trim());
    if (key.type !== type)
      throw new Error(`it is not a ${type === ED25519_KEY_TYPE ? 'log (0x01)' : 'cosignature (0x04)'} key`);
    return key;
  } catch (error) {
    throw new VerifyInputError(`${option} ${source} is not ${what}: ${(error as Error).message}`);
  }
}

/** The pinned log key of `--log-key`: see {@link loadNoteKey}. */
export function loadLogKey(source: string): Promise<VerifierKey> {
  return loadNoteKey(source, '--log-key', ED25519_KEY_TYPE);
}

export async function receiptVerify(
  file: string,
  jwksSources: readonly string[],
  logKeySource: string | undefined,
  out: NodeJS.WritableStream,
): Promise<number> {
  let receipt: unknown;
  try {
    receipt = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new VerifyInputError(`cannot read receipt ${file}: ${(error as Error).message}`);
  }
  const jwks = await loadPinnedKeys(jwksSources);
  const logKey = logKeySource === undefined ? undefined : await loadLogKey(logKeySource);
  const result = await verifyReceipt(receipt, logKey === undefined ? { jwks } : { jwks, logKey });
  if (result.valid) {
    const { receipt: valid } = result;
    const inLog =
      valid.receiptVersion === 2
        ? `, in the log of ${logKey?.name} at tree size ${valid.seal.headIndex + 1}`
        : ', version 1: no proof that the entries are in the log';
    out.write(
      `VALID receipt for intent ${valid.intentId} (tenant ${valid.tenantId}, decision ${valid.decision}, ` +
        `${valid.entries.length} entries sealed at head index ${valid.seal.headIndex}${inLog})\n`,
    );
    return 0;
  }
  out.write(`INVALID receipt: ${result.reason}: ${result.detail}\n`);
  return 1;
}

export async function chainVerify(
  file: string,
  jwksSources: readonly string[],
  out: NodeJS.WritableStream,
  progress: boolean,
): Promise<number> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new VerifyInputError(`cannot read export ${file}: ${(error as Error).message}`);
  }
  // The keys first: lines read while a JWKS URL is fetched would be lost to the verifier.
  const jwks = jwksSources.length > 0 ? await loadPinnedKeys(jwksSources) : undefined;
  const stream = createReadStream(file, { encoding: 'utf8' });
  const bar = progress
    ? new SingleBar({ format: 'verifying [{bar}] {percentage}% | {value}/{total} bytes | {entries} entries' })
    : undefined;
  let entries = 0;
  bar?.start(size, 0, { entries: 0 });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  const result = await verifyChainExport(lines, {
    ...(jwks !== undefined ? { jwks } : {}),
    onProgress: (count) => {
      entries = count;
      bar?.update(stream.bytesRead, { entries });
    },
  });
  bar?.update(size, { entries: result.length });
  bar?.stop();
  const checkpoints =
    `${result.checkpointsVerified} checkpoint(s) verified` +
    (result.checkpointsUnverified > 0
      ? `, ${result.checkpointsUnverified} not signature-checked (no --jwks)`
      : '');
  if (result.valid) {
    out.write(
      `VALID chain export: ${result.length} entries, latest hash ${result.latestHash}, ${checkpoints}\n`,
    );
    return 0;
  }
  out.write(
    `INVALID chain export: ${result.reason} at index ${result.brokenAt} (${result.detail}); ${result.length} entries verified before it\n`,
  );
  return 1;
}
