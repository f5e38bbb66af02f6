#!/usr/bin/env node
// Packing @authority-runtime/sdk. `npm pack` (or `npm publish`) in packages/sdk, or
// `npm pack -w packages/sdk` from the root, produces the publishable tarball: the package's
// `prepack` and `postpack` scripts call this file.
//
// In the repository the SDK's exports carry a `development` condition that points at its
// TypeScript sources (the test runner and the type checker resolve the workspace package to them).
// The published package must not: bundlers set `development` in development builds, and the sources
// are not shipped. So:
//
//   --prepack    builds `dist` from clean, keeps the repository's manifest aside
//                (packages/sdk/package.development.json, never shipped: `files` names what is)
//                and writes the published one in its place: no `development` condition, no
//                scripts, no devDependencies;
//   --postpack   puts the repository's manifest back (also the way to restore it by hand if a pack
//                stopped between the two);
//   [--out DIR]  (no mode) runs `npm pack` in packages/sdk and prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const sdk = path.join(root, 'packages/sdk');
const manifestFile = path.join(sdk, 'package.json');
const keptAside = path.join(sdk, 'package.development.json');

/** The manifest as published: every `development` condition, the scripts and devDependencies removed. */
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

async function prepack() {
  if (existsSync(keptAside)) {
    process.stderr.write(
      `pack-sdk: ${path.relative(root, keptAside)} is still there from a pack that stopped; ` +
        'restore it with `node scripts/pack-sdk.mjs --postpack`, then pack again.\n',
    );
    process.exit(1);
  }
  await rm(path.join(sdk, 'dist'), { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: sdk,
      stdio: 'inherit',
    },
  );
  const text = await readFile(manifestFile, 'utf8');
  await writeFile(keptAside, text);
  await writeFile(manifestFile, `${JSON.stringify(publishedManifest(JSON.parse(text)), null, 2)}\n`);
}

async function postpack() {
  if (existsSync(keptAside)) await rename(keptAside, manifestFile);
}

if (process.argv.includes('--prepack')) await prepack();
else if (process.argv.includes('--postpack')) await postpack();
else {
  const outIndex = process.argv.indexOf('--out');
  const out = outIndex > 0 ? path.resolve(process.argv[outIndex + 1] ?? '.') : root;
  await mkdir(out, { recursive: true });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: sdk,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  process.stdout.write(`${path.join(out, packed.at(-1).filename)}\n`);
}
