import { parseArgs } from 'node:util';
import canonicalize from 'canonicalize';
import { canonicalJson } from '../packages/server/src/crypto/canonical-json.js';
import { startEmbeddedServer } from './embedded-server.js';
import { approvedIntentRequest } from './load.js';
import { machineLine } from './machine.js';
import { formatMicros } from './micro-timer.js';

// RFC 8785 text of the three audit entries a `POST /intent` APPROVED seals (intent.received,
// intent.decided, token.issued; taken from a real decision's export), beside the `canonicalize`
// package (an independent JCS implementation) and JSON.stringify (not canonical: the ceiling of
// writing the same values). Rounds alternate the three so a busy machine weighs on each alike.
const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, iterations: { type: 'string', default: '20000' } },
});
const rounds = Number(values.rounds);
const iterations = Number(values.iterations);

const server = await startEmbeddedServer();
const request = approvedIntentRequest(server.headers);
const decided = await server.app.inject({
  method: 'POST',
  url: '/intent',
  headers: request.headers,
  payload: request.body,
});
if (decided.statusCode !== 200) throw new Error(`the decision answered ${decided.statusCode}`);
const exported = await server.app.inject({
  method: 'GET',
  url: '/audit/bench/export',
  headers: server.headers,
});
await server.close();
const entries = exported.body
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as { entry?: Record<string, unknown> })
  .flatMap((line) => (line.entry ? [line.entry] : []))
  .slice(-3)
  .map(({ entryHash: _hash, ...unsealed }) => unsealed);
if (entries.length !== 3)
  throw new Error(`expected the decision's 3 entries, the export had ${entries.length}`);
for (const entry of entries) {
  if (canonicalJson(entry) !== canonicalize(entry)) throw new Error('the two JCS implementations disagree');
}

const candidates: Array<[string, (value: unknown) => string | undefined]> = [
  ['canonicalJson (ours)', canonicalJson],
  ['canonicalize (npm)', canonicalize],
  ['JSON.stringify (ceiling)', (value) => JSON.stringify(value)],
];
const perDecision = new Map<string, number[]>(candidates.map(([name]) => [name, []]));

console.log(`machine: ${machineLine()}`);
console.log(
  `the 3 entries of one decision (${entries.map((entry) => canonicalJson(entry).length).join(' + ')} bytes), ` +
    `${iterations} decisions per round, ${rounds} rounds`,
);
let sink = 0;
for (let round = 0; round <= rounds; round += 1) {
  for (const [name, encode] of candidates) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) {
      for (const entry of entries) sink += encode(entry)?.length ?? 0;
    }
    // Round 0 warms up.
    if (round > 0) perDecision.get(name)?.push(Number(process.hrtime.bigint() - started) / 1e3 / iterations);
  }
}
for (const [name, samples] of perDecision) {
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? Number.NaN;
  console.log(
    `${name.padEnd(26)} ${formatMicros(median)} per decision (median of rounds; ` +
      `fastest ${formatMicros(samples[0] ?? Number.NaN).trim()}, slowest ${formatMicros(samples.at(-1) ?? Number.NaN).trim()})`,
  );
}
if (sink === 0) throw new Error('nothing was encoded');
