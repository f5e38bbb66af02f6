import { readFileSync } from 'node:fs';
import {
  COSIGNATURE_V1_KEY_TYPE,
  emptyTreeHash,
  hashFromHex,
  hashToHex,
  verifyCheckpoint,
  verifyConsistencyProof,
} from '@authority-runtime/sdk';
import { loadLogKey, loadNoteKey, VerifyInputError } from './verify-commands.js';

export interface LogVerifyOptions {
  logKey: string;
  witness?: string[];
  quorum?: string;
  previous?: string;
  proof?: string;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new VerifyInputError(`cannot read ${what} ${file}: ${(error as Error).message}`);
  }
}

function quorumOf(options: LogVerifyOptions, witnesses: number): number {
  if (options.quorum === undefined) return witnesses;
  const quorum = Number(options.quorum);
  if (!Number.isInteger(quorum) || quorum < 0 || quorum > witnesses) {
    throw new VerifyInputError(
      `--quorum ${options.quorum} is not an integer between 0 and the ${witnesses} witnesses given`,
    );
  }
  return quorum;
}

/**
 * `authority log verify`: offline, with only the pinned keys, checks a checkpoint note (log
 * signature, origin, witness quorum) and, with `--previous` and `--proof`, that an older checkpoint
 * describes a prefix of the same history. Prints VALID or INVALID first; 0 valid, 1 invalid, 2 when
 * an input cannot be read.
 */
export async function logVerify(
  file: string,
  options: LogVerifyOptions,
  out: NodeJS.WritableStream,
): Promise<number> {
  const logKey = await loadLogKey(options.logKey);
  const witnesses = await Promise.all(
    (options.witness ?? []).map((source) => loadNoteKey(source, '--witness', COSIGNATURE_V1_KEY_TYPE)),
  );
  const quorum = quorumOf(options, witnesses.length);
  if (options.previous === undefined && options.proof !== undefined) {
    throw new VerifyInputError('--proof needs --previous, the checkpoint it starts from');
  }
  const current = verifyCheckpoint(readText(file, 'checkpoint'), { logKey, witnesses, quorum });
  if (!current.valid) {
    out.write(`INVALID checkpoint: ${current.reason}: ${current.detail}\n`);
    return 1;
  }
  const { checkpoint } = current;
  const cosigned = current.cosignatures.map((c) => c.name);
  let history = '';
  if (options.previous !== undefined) {
    const previous = verifyCheckpoint(readText(options.previous, 'checkpoint'), { logKey });
    if (!previous.valid) {
      out.write(`INVALID previous checkpoint: ${previous.reason}: ${previous.detail}\n`);
      return 1;
    }
    const from = previous.checkpoint;
    let problem: string | undefined;
    // The empty tree is a prefix of every tree: no proof exists from size 0, none is needed.
    if (from.size === 0) problem = emptyPrefixProblem(from.rootHash);
    else if (options.proof === undefined) {
      throw new VerifyInputError(
        `--previous of size ${from.size} needs --proof, the consistency proof from it`,
      );
    } else problem = consistencyProblem(from, checkpoint, readText(options.proof, 'consistency proof'));
    if (problem !== undefined) {
      out.write(`INVALID history: ${problem}\n`);
      return 1;
    }
    history = `; consistent with the checkpoint of size ${from.size}`;
  }
  out.write(
    `VALID checkpoint of ${checkpoint.origin} at size ${checkpoint.size} (root ${hashToHex(checkpoint.rootHash)})` +
      `${cosigned.length > 0 ? `, cosigned by ${cosigned.join(', ')}` : ''}${history}\n`,
  );
  return 0;
}

/**
 * Why a checkpoint of size 0 is not the empty tree's: its root must be SHA-256 of nothing (RFC 9162
 * §2.1.1); then it is consistent with every later tree, with no proof.
 */
export function emptyPrefixProblem(rootHash: Uint8Array): string | undefined {
  if (hashToHex(rootHash) === hashToHex(emptyTreeHash())) return undefined;
  return `the checkpoint of size 0 has root ${hashToHex(rootHash)}, not the empty tree's: the log rewrote history`;
}

function consistencyProblem(
  from: { size: number; rootHash: Uint8Array },
  to: { size: number; rootHash: Uint8Array },
  proofText: string,
): string | undefined {
  if (from.size > to.size) return `the log shrank from size ${from.size} to ${to.size}`;
  let body: { from?: unknown; to?: unknown; proof?: unknown };
  try {
    body = JSON.parse(proofText) as typeof body;
  } catch {
    throw new VerifyInputError(
      'the consistency proof is not JSON ({from, to, proof} as GET /audit/:tenantId/proof/consistency answers)',
    );
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.from !== 'number' ||
    typeof body.to !== 'number'
  ) {
    throw new VerifyInputError(
      'the consistency proof is not {from, to, proof} with numbers, as GET /audit/:tenantId/proof/consistency answers',
    );
  }
  if (body.from !== from.size || body.to !== to.size) {
    return `the proof is from size ${String(body.from)} to ${String(body.to)}, the checkpoints are of sizes ${from.size} and ${to.size}`;
  }
  if (!Array.isArray(body.proof)) return 'the consistency proof has no proof array';
  let proof: Uint8Array[];
  try {
    proof = body.proof.map((hash) => hashFromHex(String(hash)));
  } catch (error) {
    return `the consistency proof is malformed: ${(error as Error).message}`;
  }
  const outcome = verifyConsistencyProof({
    fromSize: from.size,
    fromRoot: from.rootHash,
    toSize: to.size,
    toRoot: to.rootHash,
    proof,
  });
  if (outcome.valid) return undefined;
  return `size ${to.size} is not consistent with size ${from.size}: the log forked or rewrote history (${outcome.reason}: ${outcome.detail})`;
}
