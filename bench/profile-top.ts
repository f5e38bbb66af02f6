// Prints the functions with the most self time in a V8 .cpuprofile (from `node --cpu-prof`).
// Run: npx tsx bench/profile-top.ts <file.cpuprofile> [--top 25] [--by function|module]
// `--by module` adds up self time per package (node_modules/<name>), per source folder of ours
// (packages/server/src/<folder>), node's own modules, and V8's entries such as (garbage collector).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' }, by: { type: 'string', default: 'function' } },
  allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) throw new Error('usage: profile-top.ts <file.cpuprofile> [--top N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

function moduleOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return `node_modules/${dependency[1]}`;
  const ours = /packages\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (ours) return `packages/${ours[1]}/src/${ours[2]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^.*\/(bench\/)/, '$1');
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const node = byId.get(id);
  const delta = profile.timeDeltas[index] ?? 0;
  if (node === undefined) return;
  const { functionName, url, lineNumber } = node.callFrame;
  const where =
    url === '' ? '' : ` ${url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${lineNumber + 1}`;
  const key =
    values.by === 'module' ? moduleOf(url, functionName) : `${functionName || '(anonymous)'}${where}`;
  selfMicros.set(key, (selfMicros.get(key) ?? 0) + delta);
  total += delta;
});
const rows = [...selfMicros.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
console.log(`${(total / 1e6).toFixed(2)} s sampled; top self time:`);
for (const [key, micros] of rows) {
  console.log(
    `${((micros / total) * 100).toFixed(1).padStart(5)} %  ${(micros / 1e3).toFixed(0).padStart(7)} ms  ${key}`,
  );
}
