#!/usr/bin/env node
// Checks the served OpenAPI document with outside tools (contract §13.4): Redocly CLI's recommended
// rules report 0 errors, and openapi-typescript's types of it compile under `tsc --strict`.
// Run from the repository root: `npm run check:openapi`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const dir = mkdtempSync(path.join(tmpdir(), 'authority-openapi-check-'));
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });

try {
  const documentFile = path.join(dir, 'openapi.json');
  const document = execFileSync(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', path.join(root, 'scripts/openapi-document.mjs')],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  writeFileSync(documentFile, document);

  console.log('== Redocly CLI lint (recommended rules)');
  run(bin('redocly'), [
    'lint',
    '--config',
    path.join(root, 'redocly.yaml'),
    '--format',
    'summary',
    documentFile,
  ]);

  console.log('== openapi-typescript, then tsc --strict');
  const types = astToString(await openapiTS(new URL(`file://${documentFile}`)));
  writeFileSync(path.join(dir, 'openapi.ts'), types);
  // A consumer that uses the generated types, so they are checked as code and not skipped as a .d.ts.
  writeFileSync(
    path.join(dir, 'consumer.ts'),
    [
      "import type { components, operations, paths } from './openapi.js';",
      "type Approved = paths['/intent']['post']['responses'][200]['content']['application/json'];",
      "export const outcome: Approved['authorityDecision']['decision'] = 'APPROVED';",
      "export const tenant: operations['submitIntent']['parameters']['header']['x-tenant-id'] = 'acme';",
      "export type Envelope = components['schemas']['ErrorEnvelope'];",
      '',
    ].join('\n'),
  );
  run(bin('tsc'), [
    '--strict',
    '--noEmit',
    '--skipLibCheck',
    'false',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    path.join(dir, 'consumer.ts'),
    path.join(dir, 'openapi.ts'),
  ]);
  console.log('OpenAPI document: Redocly recommended lint has 0 errors; its generated types compile.');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
