import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashFromBase64, hashToBase64, type WitnessRecord } from '@authority-runtime/sdk';

/** A bad key file, state file, flag or lock: `authority witness` exits 2 and says which. */
export class WitnessInputError extends Error {}

/** The last checkpoint a witness cosigned for one log. */
export interface CosignedCheckpoint extends WitnessRecord {
  /** The checkpoint note with the log's verified signatures and this witness's cosignature. */
  readonly note: string;
  readonly cosignedAt: string;
}

interface StateFile {
  version: 1;
  logs: Record<string, { size: number; rootHash: string; note: string; cosignedAt: string }>;
}

function parseState(text: string, file: string): Map<string, CosignedCheckpoint> {
  const fail = (why: string) =>
    new WitnessInputError(`state file ${file} is damaged (${why}); refusing to start`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail('not JSON');
  }
  const state = parsed as Partial<StateFile> | null;
  if (state?.version !== 1 || typeof state.logs !== 'object' || state.logs === null)
    throw fail('no version 1 logs');
  const records = new Map<string, CosignedCheckpoint>();
  for (const [origin, entry] of Object.entries(state.logs)) {
    const { size, rootHash, note, cosignedAt } = entry ?? {};
    if (
      !Number.isSafeInteger(size) ||
      size < 0 ||
      typeof note !== 'string' ||
      typeof cosignedAt !== 'string'
    ) {
      throw fail(`bad entry for ${origin}`);
    }
    try {
      records.set(origin, { size, rootHash: hashFromBase64(rootHash), note, cosignedAt });
    } catch {
      throw fail(`bad root hash for ${origin}`);
    }
  }
  return records;
}

/**
 * The witness's memory, one JSON file: per log origin, the size, root hash and note it last
 * cosigned. Every update is written to a temporary file in the same directory, flushed, renamed
 * over the state file and the directory flushed, so a crash leaves the old or the new state, never
 * a mix. A lock file beside it keeps a second witness process off the same state.
 */
export class WitnessStateFile {
  private readonly records: Map<string, CosignedCheckpoint>;
  private readonly lockFile: string;

  private constructor(
    readonly file: string,
    records: Map<string, CosignedCheckpoint>,
  ) {
    this.records = records;
    this.lockFile = `${file}.lock`;
  }

  /** Takes the lock and loads the state (empty when the file does not exist yet). */
  static open(file: string): WitnessStateFile {
    const lockFile = `${file}.lock`;
    takeLock(lockFile);
    try {
      let text: string | undefined;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new WitnessInputError(`cannot read state file ${file}: ${(error as Error).message}`);
        }
      }
      return new WitnessStateFile(file, text === undefined ? new Map() : parseState(text, file));
    } catch (error) {
      rmSync(lockFile, { force: true });
      throw error;
    }
  }

  latest(origin: string): CosignedCheckpoint | undefined {
    return this.records.get(origin);
  }

  /** Records a new cosigned checkpoint durably; the in-memory state changes only once it is on disk. */
  save(origin: string, record: CosignedCheckpoint): void {
    const next = new Map(this.records).set(origin, record);
    const state: StateFile = { version: 1, logs: {} };
    for (const [name, r] of next) {
      state.logs[name] = {
        size: r.size,
        rootHash: hashToBase64(r.rootHash),
        note: r.note,
        cosignedAt: r.cosignedAt,
      };
    }
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    const fd = openSync(temporary, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.file);
    const dir = openSync(path.dirname(this.file), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.records.set(origin, record);
  }

  /** Releases the lock. */
  close(): void {
    rmSync(this.lockFile, { force: true });
  }
}

function takeLock(lockFile: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new WitnessInputError(`cannot create lock file ${lockFile}: ${(error as Error).message}`);
      }
    }
    const owner = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    if (Number.isSafeInteger(owner) && owner > 0 && isAlive(owner)) {
      throw new WitnessInputError(`another witness (pid ${owner}) holds ${lockFile}`);
    }
    rmSync(lockFile, { force: true });
  }
  throw new WitnessInputError(`cannot take lock file ${lockFile}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
