import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import semver from 'semver';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('a fresh install on the oldest supported Node is clean', () => {
  test('every locked package admits the Node version the project promises (engines, EBADENGINE)', () => {
    const promised = read('package.json').engines.node as string;
    const oldest = semver.minVersion(promised);
    assert.ok(oldest, promised);
    const lock = read('package-lock.json') as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range !== undefined && !semver.satisfies(oldest, range);
      })
      .map(([name, entry]) => `${name}@${entry.version}: ${JSON.stringify(entry.engines)}`);
    assert.deepEqual(refusing, [], `packages that refuse Node ${oldest.version}`);
  });
});
