#!/usr/bin/env node
// Proves that @authority-runtime/sdk is publishable (contract §13.1): packs it with `npm pack` in
// packages/sdk (through scripts/pack-sdk.mjs, which prints the tarball's path), checks that the
// repository's manifest was put back, checks the tarball's manifest, installs the tarball into an
// empty project outside the repository, type-checks a strict TypeScript consumer against the
// packed declarations, and runs a plain-`node` consumer that does the agent loop against a real
// `authority serve` (the built server, embedded database in a temporary directory).
//
//   npm run build && node scripts/check-packed-sdk.mjs
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'packages/server/dist/cli/main.js');
if (!existsSync(cli)) {
  process.stderr.write('check-packed-sdk: build first (npm run build)\n');
  process.exit(1);
}
// The consumer and the server run as published code: no development condition, no tsx.
const { NODE_OPTIONS: _ignored, ...baseEnv } = process.env;

const work = await mkdtemp(path.join(os.tmpdir(), 'authority-packed-sdk-'));
let server;
try {
  const say = (line) => process.stdout.write(`check-packed-sdk: ${line}\n`);
  const run = (command, args, cwd, env = baseEnv) =>
    execFileSync(command, args, { cwd, env, stdio: 'inherit' });

  const tarball = execFileSync(process.execPath, [path.join(root, 'scripts/pack-sdk.mjs'), '--out', work], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  say(`packed ${path.basename(tarball)}`);
  const repositoryManifest = await readFile(path.join(root, 'packages/sdk/package.json'), 'utf8');
  if (
    !repositoryManifest.includes('"development"') ||
    existsSync(path.join(root, 'packages/sdk/package.development.json'))
  ) {
    throw new Error("npm pack did not put the repository's SDK manifest back");
  }

  const project = path.join(work, 'consumer');
  await cp(path.join(root, 'scripts/packed-sdk-consumer'), project, { recursive: true });
  await writeFile(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'packed-sdk-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  await writeFile(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        types: ['node'],
        skipLibCheck: false,
      },
      files: ['consumer.ts'],
    }),
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, '@types/node@20'], project);

  const installed = path.join(project, 'node_modules/@authority-runtime/sdk');
  const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
  const text = JSON.stringify(manifest);
  if (manifest.private || text.includes('"development"') || text.includes('./src/')) {
    throw new Error(`the packed manifest is not publishable: ${text}`);
  }
  const targets = [];
  const collect = (value) => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect(manifest.exports);
  for (const target of [...targets, manifest.main, manifest.types, 'README.md', 'LICENSE']) {
    if (!existsSync(path.join(installed, target))) throw new Error(`the package does not ship ${target}`);
  }
  say('manifest: no development export, every export target shipped, README and LICENSE included');

  run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);
  say('types: a strict NodeNext consumer compiles against the packed declarations');

  const dataDir = path.join(work, 'data');
  server = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...baseEnv, DATABASE_URL: '', AUTHORITY_MASTER_KEY: '', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = await new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`authority serve did not start: ${output}`)), 30_000);
    server.once('exit', (code) => reject(new Error(`authority serve exited (${code}): ${output}`)));
    server.stdout.on('data', (chunk) => {
      output += chunk.toString();
      const base = /listening on (http:\/\/\S+) /.exec(output)?.[1];
      const key = /Owner API key \(shown once; store it now\): (\S+)/.exec(output)?.[1];
      const tenant = /Created tenant "([^"]+)"/.exec(output)?.[1];
      if (base && key && tenant) {
        clearTimeout(timer);
        resolve({ base, key, tenant });
      }
    });
  });
  say(`authority serve at ${started.base}`);

  run(process.execPath, ['consumer.mjs'], project, {
    ...baseEnv,
    AUTHORITY_URL: started.base,
    AUTHORITY_TENANT: started.tenant,
    AUTHORITY_API_KEY: started.key,
  });
  say('OK');
} finally {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await rm(work, { recursive: true, force: true });
}
