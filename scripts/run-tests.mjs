#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test through tsx with Node's test runner. Node 20 does not
// expand globs or find .ts files on its own, so the files are listed here explicitly.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) collect(full, out);
    else if (name.endsWith('.test.ts')) out.push(path.relative(root, full));
  }
  return out;
}

const filters = process.argv.slice(2);
const files = collect(path.join(root, 'packages'), [])
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The `development` export condition resolves workspace packages (the SDK) to their TypeScript
// sources, so tests never run against a stale build; child processes inherit it via NODE_OPTIONS.
const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --conditions=development`.trim();
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', NODE_OPTIONS: nodeOptions } },
);
process.exit(result.status ?? 1);
