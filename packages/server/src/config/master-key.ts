import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tighten } from '../foundation/file-modes.js';
import { type Config, ConfigError, parseMasterKey } from './config.js';

/**
 * The master key that encrypts secrets at rest. Server mode requires AUTHORITY_MASTER_KEY; the
 * embedded default keeps a generated key in `$DATA_DIR/master.key` (mode 0600) so that a newcomer
 * needs no set-up. Losing that file loses every encrypted secret, which the README says.
 */
export function resolveMasterKey(config: Config): Buffer {
  if (config.masterKey !== undefined) return config.masterKey;
  const file = path.join(config.dataDir, 'master.key');
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
  const key = randomBytes(32);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // 'wx' fails if another process created the file first; then read theirs.
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveMasterKey(config);
    throw error;
  }
}
