import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tighten } from '../foundation/file-modes.js';
import { type Config, ConfigError, parseMasterKey } from './config.js';

/** Where the embedded default keeps its generated master key. */
export function masterKeyFile(config: Config): string {
  return path.join(config.dataDir, 'master.key');
}

/**
 * The master key that encrypts secrets at rest. Server mode requires AUTHORITY_MASTER_KEY; the
 * embedded default keeps a generated key in `$DATA_DIR/master.key` (mode 0600) so that a newcomer
 * needs no set-up (`generate: false` refuses to make one: see `checkedMasterKey`). Losing that
 * file loses every encrypted secret, which the README says.
 */
export function resolveMasterKey(
  config: Config,
  options: { generate: boolean } = { generate: true },
): Buffer {
  if (config.masterKey !== undefined) return config.masterKey;
  const file = masterKeyFile(config);
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) {
    // An older install may have left the directory and the key readable by others.
    tighten(config.dataDir, 0o700);
    tighten(file, 0o600);
    try {
      return parseMasterKey(text);
    } catch {
      throw new ConfigError(file, 'does not hold a valid master key (32 bytes, hex or base64)');
    }
  }
  if (!options.generate) {
    throw new ConfigError(
      file,
      'is missing, and the database holds secrets sealed under a master key: restore the file from the backup of this data directory, or set AUTHORITY_MASTER_KEY',
    );
  }
  const key = randomBytes(32);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // 'wx' fails if another process created the file first; then read theirs.
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveMasterKey(config, options);
    throw error;
  }
}
