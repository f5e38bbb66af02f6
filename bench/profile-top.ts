// Prints the functions with the most self time in a V8 .cpuprofile (from `node --cpu-prof`).
// Run: npx tsx bench/profile-top.ts <file.cpuprofile> [--top 25]
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
  options: { top: { type: 'string', default: '25' } },
  allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) throw new Error('usage: profile-top.ts <file.cpuprofile> [--top N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

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
  const key = `${functionName || '(anonymous)'}${where}`;
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
