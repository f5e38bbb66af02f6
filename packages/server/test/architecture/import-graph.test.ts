import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  type ArchitectureRules,
  checkArchitecture,
  folderCycles,
  folderGraph,
  readSourceTree,
} from './import-graph.js';

/** The checkable rules of ARCHITECTURE.md for packages/server/src. */
const SERVER_RULES: ArchitectureRules = {
  domainFolders: ['crypto', 'identity', 'intent/domain', 'physical/domain', 'policy', 'taxonomy'],
  fastifyFolders: ['app', 'cli', 'http', 'intent/routes', 'physical/routes'],
  queryFolders: ['storage'],
  surfaceLayers: ['domain', 'repositories', 'use-cases', 'routes'],
};

const PACKAGES = path.resolve(import.meta.dirname, '../../..');

/** Writes a small source tree: file path (relative) to its text. */
function fixtureTree(files: Record<string, string>): { root: string; dispose(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'authority-import-graph-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

describe('the import graph of the server', () => {
  const modules = readSourceTree(path.join(PACKAGES, 'server/src'));

  it('reads every source file and its imports', () => {
    assert.ok(modules.length > 200, `only ${modules.length} files`);
    const loop = modules.find((m) => m.file === 'intent/use-cases/decision-loop.ts');
    assert.ok(loop?.local.includes('intent/domain/evaluate-intent.ts'));
    assert.ok(loop?.local.includes('storage/database.ts'), 'type-only imports count');
  });

  it('keeps every rule of ARCHITECTURE.md: no folder cycle, pure domains, queries in repositories only', () => {
    assert.deepEqual(checkArchitecture(modules, SERVER_RULES), []);
  });

  it('is a hierarchy at the first level a reader can draw', () => {
    const graph = folderGraph(modules, 'top');
    assert.ok(graph.size >= 20, `only ${graph.size} folders`);
    assert.deepEqual(folderCycles(graph), []);
  });

  it('leaves the SDK free of server code', () => {
    const sdk = readSourceTree(path.join(PACKAGES, 'sdk/src'));
    assert.ok(sdk.length > 10);
    assert.deepEqual(
      sdk.flatMap((m) => m.local.filter((target) => target.startsWith('../')).map((t) => `${m.file} → ${t}`)),
      [],
    );
  });
});

describe('the import-graph check itself', () => {
  it('finds a folder cycle, at the first level and between leaf folders', () => {
    const tree = fixtureTree({
      'a/one.ts': "import { two } from '../b/two.js';\nexport const one = two;\n",
      'b/two.ts': "import type { three } from '../c/deep/three.js';\nexport const two: three = 2;\n",
      'c/deep/three.ts': "export { one } from '../../a/one.js';\nexport type three = number;\n",
      'd/alone.ts': "import { one } from '../a/one.js';\nexport const alone = one;\n",
    });
    try {
      const modules = readSourceTree(tree.root);
      assert.deepEqual(folderCycles(folderGraph(modules, 'top')), [['a', 'b', 'c']]);
      assert.deepEqual(folderCycles(folderGraph(modules, 'leaf')), [['a', 'b', 'c/deep']]);
      const rules = checkArchitecture(modules, SERVER_RULES).map((v) => v.rule);
      assert.deepEqual(rules, ['no top-level folder cycle', 'no leaf-level folder cycle']);
    } finally {
      tree.dispose();
    }
  });

  it('refuses a domain that imports Fastify, Kysely or node I/O, and queries outside repositories', () => {
    const tree = fixtureTree({
      'policy/rules.ts':
        "import type { FastifyInstance } from 'fastify';\nimport { readFileSync } from 'node:fs';\nexport type R = FastifyInstance;\nexport const f = readFileSync;\n",
      'intent/domain/gate.ts': "import type { Kysely } from 'kysely';\nexport type G = Kysely<never>;\n",
      'intent/use-cases/loop.ts':
        "export async function load(db: { selectFrom(t: string): { execute(): Promise<unknown> } }) {\n  return db.selectFrom('intents').execute();\n}\n",
      'intent/repositories/intent-repository.ts':
        "import { sql } from 'kysely';\nexport const q = sql`select 1`;\nexport const get = (db: { selectFrom(t: string): unknown }) => db.selectFrom('intents');\n",
      'intent/repositories/leak.ts':
        "import { load } from '../use-cases/loop.js';\nexport const leak = load;\n",
      'webhooks/sender.ts': "import fastify from 'fastify';\nexport const app = fastify;\n",
    });
    try {
      const found = checkArchitecture(readSourceTree(tree.root), SERVER_RULES).map(
        (v) => `${v.rule}: ${v.detail}`,
      );
      assert.deepEqual(found.sort(), [
        'a domain module imports no framework, database or I/O: intent/domain/gate.ts imports kysely',
        'a domain module imports no framework, database or I/O: policy/rules.ts imports fastify',
        'a domain module imports no framework, database or I/O: policy/rules.ts imports node:fs',
        'a surface layer imports only lower layers: intent/repositories/leak.ts imports intent/use-cases/loop.ts',
        'only repositories and storage build queries: intent/use-cases/loop.ts calls a query builder',
        'only repositories and storage import Kysely: intent/domain/gate.ts imports kysely',
        'only the HTTP adapter imports Fastify: policy/rules.ts imports fastify',
        'only the HTTP adapter imports Fastify: webhooks/sender.ts imports fastify',
      ]);
    } finally {
      tree.dispose();
    }
  });
});
