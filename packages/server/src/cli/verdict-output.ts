import type { OutputConfiguration } from 'commander';

/**
 * For the verify commands: a usage error (a missing `--jwks`, an unknown option, no file) is a
 * verdict too, so the first word they print is always `VALID` or `INVALID` (contract §15); the
 * exit code is 2, as for any usage error.
 */
export const USAGE_ERROR_AS_VERDICT: OutputConfiguration = {
  outputError: (text) => {
    process.stdout.write(`INVALID: ${text.replace(/^error: /, '')}`);
  },
};
