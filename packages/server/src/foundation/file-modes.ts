import { chmodSync } from 'node:fs';

/**
 * Sets a file's or directory's mode, except on a path another user owns (EPERM): its owner chose
 * its mode. Used to keep the data directory (0700) and everything in it (0600) the owner's only.
 */
export function tighten(target: string, mode: number): void {
  try {
    chmodSync(target, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}
