#!/usr/bin/env node
// Packs @authority-runtime/sdk for publishing and prints the tarball's path:
//
//   node scripts/pack-sdk.mjs [--out DIR]          then: npm publish <tarball>
//
// In the repository the SDK's exports carry a `development` condition that points at its
// TypeScript sources (the test runner and the type checker resolve the workspace package to them).
// The published package must not: bundlers set `development` in development builds, and the sources
// are not shipped. So this script builds the SDK from a clean `dist`, stages `dist`, README.md,
// LICENSE and the published manifest (no `development` condition, no scripts) in a temporary
// directory, and runs `npm pack` there. `npm pack` run in packages/sdk itself refuses (its
// `prepack` calls this script with --refuse-direct-pack), so the development manifest is never
// packed by mistake.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const sdk = path.join(root, 'packages/sdk');

if (process.argv.includes('--refuse-direct-pack')) {
  process.stderr.write(
    'packages/sdk is not packed directly: its development export points at sources that are not shipped.\n' +
      'Run `node scripts/pack-sdk.mjs` from the repository root and publish the tarball it prints.\n',
  );
  process.exit(1);
}

/** The manifest as published: every `development` condition and the scripts removed. */
export function publishedManifest(manifest) {
  const strip = (exports) => {
    if (typeof exports !== 'object' || exports === null) return exports;
    return Object.fromEntries(
      Object.entries(exports)
        .filter(([condition]) => condition !== 'development')
        .map(([condition, target]) => [condition, strip(target)]),
    );
  };
  const { scripts: _scripts, devDependencies: _dev, private: _private, ...rest } = manifest;
  return { ...rest, exports: strip(manifest.exports) };
}

const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 ? path.resolve(process.argv[outIndex + 1] ?? '.') : root;

await rm(path.join(sdk, 'dist'), { recursive: true, force: true });
execFileSync(
  process.execPath,
  [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: sdk,
    stdio: 'inherit',
  },
);

const stage = await mkdtemp(path.join(os.tmpdir(), 'authority-sdk-stage-'));
try {
  for (const entry of ['dist', 'README.md', 'LICENSE']) {
    await cp(path.join(sdk, entry), path.join(stage, entry), { recursive: true });
  }
  const manifest = JSON.parse(await readFile(path.join(sdk, 'package.json'), 'utf8'));
  await writeFile(
    path.join(stage, 'package.json'),
    `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`,
  );
  await mkdir(out, { recursive: true });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, encoding: 'utf8' }),
  );
  process.stdout.write(`${path.join(out, packed[0].filename)}\n`);
} finally {
  await rm(stage, { recursive: true, force: true });
}
