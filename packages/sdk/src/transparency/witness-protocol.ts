import { decodeBase64, encodeBase64, HASH_SIZE, parseDecimal } from './encoding.js';
import { TransparencyFormatError } from './errors.js';
import { type NoteSignature, parseSignatureLine } from './note.js';

/** The most consistency proof lines an add-checkpoint request may carry (C2SP `tlog-witness`). */
export const MAX_CONSISTENCY_PROOF_LINES = 63;

/** The content type of a witness's 409 answer, whose body is its latest size and a newline. */
export const TLOG_SIZE_CONTENT_TYPE = 'text/x.tlog.size';

/** The body of `POST <witness>/add-checkpoint`. */
export interface AddCheckpointRequest {
  /** The size of the checkpoint the witness last cosigned for this log (0 when none). */
  readonly oldSize: number;
  /** The consistency proof from `oldSize` to the checkpoint's size (empty when `oldSize` is 0). */
  readonly proof: readonly Uint8Array[];
  /** The checkpoint note, signed by the log, as text. */
  readonly checkpoint: string;
}

function malformed(message: string): TransparencyFormatError {
  return new TransparencyFormatError('WITNESS_REQUEST_MALFORMED', message);
}

/**
 * The add-checkpoint request body: `old <size>\n`, one base64 hash per line of the consistency
 * proof, an empty line, then the checkpoint note.
 *
 * @example
 * ```ts
 * import { formatAddCheckpointRequest } from '@authority-runtime/sdk';
 *
 * await fetch(`${witness.url}/add-checkpoint`, {
 *   method: 'POST',
 *   body: formatAddCheckpointRequest({ oldSize: 0, proof: [], checkpoint: note }),
 * });
 * ```
 */
export function formatAddCheckpointRequest(request: AddCheckpointRequest): string {
  if (!Number.isSafeInteger(request.oldSize) || request.oldSize < 0) {
    throw new RangeError('oldSize is a non-negative integer');
  }
  if (request.proof.length > MAX_CONSISTENCY_PROOF_LINES) {
    throw new RangeError(`at most ${MAX_CONSISTENCY_PROOF_LINES} proof lines`);
  }
  const lines = request.proof.map((hash) => {
    if (hash.length !== HASH_SIZE) throw new RangeError('a proof element is a 32-byte hash');
    return `${encodeBase64(hash)}\n`;
  });
  return `old ${request.oldSize}\n${lines.join('')}\n${request.checkpoint}`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeBody(raw: string | Uint8Array): string {
  if (typeof raw === 'string') return raw;
  if (!(raw instanceof Uint8Array)) throw malformed('the request body is text');
  try {
    return UTF8.decode(raw);
  } catch {
    throw malformed('the request body is not valid UTF-8');
  }
}

/**
 * Parses an add-checkpoint request body; throws {@link TransparencyFormatError}
 * (`WITNESS_REQUEST_MALFORMED`) unless it is an `old` line, at most 63 base64 hash lines, an empty
 * line and a non-empty rest (the checkpoint note, parsed by whoever checks it).
 *
 * @example
 * ```ts
 * import { parseAddCheckpointRequest } from '@authority-runtime/sdk';
 *
 * const { oldSize, proof, checkpoint } = parseAddCheckpointRequest(body);
 * ```
 */
export function parseAddCheckpointRequest(raw: string | Uint8Array): AddCheckpointRequest {
  const body = decodeBody(raw);
  const split = body.indexOf('\n\n');
  if (split < 0) throw malformed('no empty line ends the old size and proof lines');
  const [first = '', ...proofLines] = body.slice(0, split).split('\n');
  if (!first.startsWith('old ')) throw malformed('the first line is `old <size>`');
  const oldSize = parseDecimal(first.slice(4), 'WITNESS_REQUEST_MALFORMED', 'the old size');
  if (proofLines.length > MAX_CONSISTENCY_PROOF_LINES) {
    throw malformed(`more than ${MAX_CONSISTENCY_PROOF_LINES} consistency proof lines`);
  }
  const proof = proofLines.map((line, i) => {
    const hash = decodeBase64(line, 'WITNESS_REQUEST_MALFORMED', `proof line ${i + 1}`);
    if (hash.length !== HASH_SIZE) throw malformed(`proof line ${i + 1} is not a 32-byte hash`);
    return hash;
  });
  const checkpoint = body.slice(split + 2);
  if (checkpoint === '') throw malformed('the checkpoint is missing');
  return { oldSize, proof, checkpoint };
}

/** A witness's answer to add-checkpoint, as a log reads it. */
export type AddCheckpointResponse =
  /** Cosigned: the witness's signature lines, to append to the checkpoint note once verified. */
  | { status: 200; signatures: NoteSignature[] }
  /** `old` was not the witness's latest size: retry from `latestSize`. */
  | { status: 409; latestSize: number }
  /** Refused: 400 malformed, 403 signature, 404 unknown log, 422 inconsistent, or any other status. */
  | { status: number; message: string };

/**
 * Reads a witness's answer to add-checkpoint. Throws {@link TransparencyFormatError}
 * (`WITNESS_RESPONSE_MALFORMED`) when a 200 body is not one or more signature lines or a 409 is not
 * `text/x.tlog.size` with a size and a newline. Other statuses carry the body as a message.
 *
 * @example
 * ```ts
 * import { parseAddCheckpointResponse } from '@authority-runtime/sdk';
 *
 * const answer = parseAddCheckpointResponse(res.status, await res.text(), res.headers.get('content-type'));
 * if (answer.status === 409) retryFrom(answer.latestSize);
 * ```
 */
export function parseAddCheckpointResponse(
  status: number,
  body: string,
  contentType: string | null = null,
): AddCheckpointResponse {
  const bad = (message: string) => new TransparencyFormatError('WITNESS_RESPONSE_MALFORMED', message);
  if (status === 200) {
    if (body === '' || !body.endsWith('\n'))
      throw bad('a 200 answer is signature lines, each ending in a newline');
    try {
      return { status, signatures: body.slice(0, -1).split('\n').map(parseSignatureLine) };
    } catch (error) {
      throw bad(`a 200 answer holds a bad signature line: ${(error as Error).message}`);
    }
  }
  if (status === 409) {
    const type = contentType?.split(';')[0]?.trim().toLowerCase();
    if (type !== TLOG_SIZE_CONTENT_TYPE) throw bad(`a 409 answer is ${TLOG_SIZE_CONTENT_TYPE}`);
    if (!body.endsWith('\n')) throw bad('a 409 answer is a size and a newline');
    try {
      return {
        status,
        latestSize: parseDecimal(body.slice(0, -1), 'WITNESS_RESPONSE_MALFORMED', 'the size'),
      };
    } catch (error) {
      throw bad((error as Error).message);
    }
  }
  return { status, message: body.trim().slice(0, 500) };
}
