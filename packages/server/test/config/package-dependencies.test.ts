import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';

const PACKAGES = path.resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** The packages a source file loads at run time (type-only imports are erased). */
function runtimeImports(text: string): string[] {
  const found: string[] = [];
  // Block comments (TSDoc examples) hold import lines that are not code; a clause never crosses a `;`.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '');
  const statement = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm;
  for (const match of code.matchAll(statement)) {
    if (match[2] !== undefined) continue;
    const specifier = match[3] ?? match[4] ?? '';
    if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier))
      continue;
    found.push(
      specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : (specifier.split('/')[0] ?? ''),
    );
  }
  return found;
}

describe('what the published packages load at run time is a declared dependency', () => {
  for (const pkg of ['server', 'sdk']) {
    test(`@authority-runtime/${pkg}: every runtime import of src/ is in "dependencies"`, () => {
      const manifest = JSON.parse(readFileSync(path.join(PACKAGES, pkg, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      const declared = new Set(Object.keys(manifest.dependencies ?? {}));
      const missing = new Set<string>();
      for (const file of sources(path.join(PACKAGES, pkg, 'src'))) {
        for (const name of runtimeImports(readFileSync(file, 'utf8'))) {
          if (!declared.has(name)) missing.add(`${name} (${path.relative(PACKAGES, file)})`);
        }
      }
      assert.deepEqual([...missing], []);
    });
  }
});
