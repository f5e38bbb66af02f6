import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One source file: its folder (relative to the source root, `''` for the root) and what it imports. */
export interface SourceModule {
  file: string;
  folder: string;
  /** Files of the tree it imports (relative to the root, `.ts`). */
  local: string[];
  /** Packages it imports: `fastify`, `@fastify/static`, `kysely`, `node:fs`, … */
  packages: string[];
  /** Whether its text calls a query builder's entry point (`db.selectFrom(…)` and the like). */
  buildsQueries: boolean;
}

export interface Violation {
  rule: string;
  detail: string;
}

/** The rules of ARCHITECTURE.md that a machine can check, with the folders they name. */
export interface ArchitectureRules {
  /** Folders whose modules must stay pure: no framework, no database, no I/O. */
  domainFolders: readonly string[];
  /** Folders where Fastify may be imported (the HTTP adapter, the composition root, the CLI). */
  fastifyFolders: readonly string[];
  /** Folders that may build queries besides the `*-repository.ts` files. */
  queryFolders: readonly string[];
  /** Layers of a surface, lowest first: a layer imports its own and lower layers only. */
  surfaceLayers: readonly string[];
}

/** Node modules that do I/O: a domain module imports none of them. */
const IO_MODULES = new Set([
  'child_process',
  'cluster',
  'dgram',
  'dns',
  'dns/promises',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'readline',
  'tls',
  'worker_threads',
]);
/** Drivers and clients of outside systems: I/O as much as `node:net`. */
const IO_PACKAGES = new Set(['better-sqlite3', 'pg', 'ioredis', '@octokit/rest', 'prom-client']);
const QUERY_CALL = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\s*\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [file] : [];
  });
}

function packageOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/**
 * Every `.ts` file under `root` with its imports, parsed by the TypeScript compiler's import
 * scanner (static, type-only, re-exports, side-effect and literal dynamic imports alike).
 */
export function readSourceTree(root: string): SourceModule[] {
  return sourceFiles(root).map((absolute) => {
    const text = readFileSync(absolute, 'utf8');
    const file = path.relative(root, absolute).split(path.sep).join('/');
    const local: string[] = [];
    const packages: string[] = [];
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (fileName.startsWith('.')) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName));
        local.push(target.replace(/\.js$/, '.ts'));
      } else {
        packages.push(packageOf(fileName));
      }
    }
    return {
      file,
      folder: path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file),
      local,
      packages,
      buildsQueries: QUERY_CALL.test(text),
    };
  });
}

function topFolder(folder: string): string {
  return folder.split('/')[0] ?? '';
}

/** The folder graph at one depth: `top` (first-level folders) or `leaf` (the folder of each file). */
export function folderGraph(
  modules: readonly SourceModule[],
  depth: 'top' | 'leaf',
): Map<string, Set<string>> {
  const folderOf = new Map(modules.map((m) => [m.file, depth === 'top' ? topFolder(m.folder) : m.folder]));
  const graph = new Map<string, Set<string>>();
  for (const module of modules) {
    const from = folderOf.get(module.file) as string;
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of module.local) {
      const to = folderOf.get(target);
      if (to !== undefined && to !== from) graph.get(from)?.add(to);
    }
  }
  return graph;
}

/** The folder cycles of a graph (strongly connected components of two or more folders), sorted. */
export function folderCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => (a.join() < b.join() ? -1 : 1));
}

const inFolder = (folder: string, parent: string) => folder === parent || folder.startsWith(`${parent}/`);
const isRepository = (file: string) => file.endsWith('-repository.ts');

/** Every broken rule of the tree, each named with the module and what it imports. */
export function checkArchitecture(modules: readonly SourceModule[], rules: ArchitectureRules): Violation[] {
  const violations: Violation[] = [];
  for (const depth of ['top', 'leaf'] as const) {
    for (const cycle of folderCycles(folderGraph(modules, depth))) {
      violations.push({ rule: `no ${depth}-level folder cycle`, detail: cycle.join(' → ') });
    }
  }
  for (const module of modules) {
    const domain = rules.domainFolders.some((folder) => inFolder(module.folder, folder));
    const mayQuery = isRepository(module.file) || rules.queryFolders.some((f) => inFolder(module.folder, f));
    for (const name of module.packages) {
      const bare = name.replace(/^node:/, '');
      const framework = name === 'fastify' || name.startsWith('@fastify/');
      if (domain && (framework || name === 'kysely' || IO_MODULES.has(bare) || IO_PACKAGES.has(name))) {
        violations.push({
          rule: 'a domain module imports no framework, database or I/O',
          detail: `${module.file} imports ${name}`,
        });
      }
      if (framework && !rules.fastifyFolders.some((folder) => inFolder(module.folder, folder))) {
        violations.push({
          rule: 'only the HTTP adapter imports Fastify',
          detail: `${module.file} imports ${name}`,
        });
      }
      if (name === 'kysely' && !mayQuery) {
        violations.push({
          rule: 'only repositories and storage import Kysely',
          detail: `${module.file} imports kysely`,
        });
      }
    }
    if (module.buildsQueries && !mayQuery) {
      violations.push({
        rule: 'only repositories and storage build queries',
        detail: `${module.file} calls a query builder`,
      });
    }
    const layer = rules.surfaceLayers.findIndex((name) => module.folder.endsWith(`/${name}`));
    if (layer === -1) continue;
    const surface = module.folder.slice(0, module.folder.lastIndexOf('/'));
    for (const target of module.local) {
      const targetFolder = path.posix.dirname(target);
      if (!inFolder(targetFolder, surface)) continue;
      const targetLayer = rules.surfaceLayers.findIndex((name) => targetFolder === `${surface}/${name}`);
      if (targetLayer > layer) {
        violations.push({
          rule: 'a surface layer imports only lower layers',
          detail: `${module.file} imports ${target}`,
        });
      }
    }
  }
  return violations;
}
