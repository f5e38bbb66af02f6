// Physical authority tokens over HTTP on the embedded default (SQLite), RSA-2048 signer:
// POST /v1/physical/authority-tokens ALLOW throughput and latency, the p99 at a fixed 500 req/s,
// and SDK EdgeVerifier verifications per second in process with a cached JWKS and a revocation list
// of --revocations entries (100,000 by default: synthetic pages served before the service's own).
// Run: npx tsx --conditions=development bench/physical-tokens.ts [--duration 10] [--connections 32]
//      [--revocations 100000] [--edge-only] [--profile edge.cpuprofile]
//      [--profile-http allow.cpuprofile]
// The HTTP runs start with an empty Fastify route, the ceiling of the same run.
import { createPublicKey, type JsonWebKey, randomUUID, verify } from 'node:crypto';
import { parseArgs } from 'node:util';
import { EdgeVerifier } from '@authority-runtime/sdk';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig } from '../packages/server/src/config/config.js';
import { DEFAULT_PHYSICAL_POLICY } from '../packages/server/src/physical/domain/index.js';
import { profiled } from './cpu-profile.js';
import { startEmbeddedServer } from './embedded-server.js';
import { machineLine } from './machine.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    'verify-seconds': { type: 'string', default: '3' },
    revocations: { type: 'string', default: '100000' },
    // Skips the HTTP runs: only the EdgeVerifier figure.
    'edge-only': { type: 'boolean', default: false },
    // Writes a CPU profile of the verification loop.
    profile: { type: 'string' },
    // Writes a CPU profile of the server's thread during the ALLOW run at 500 req/s.
    'profile-http': { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const verifySeconds = Number(values['verify-seconds']);

async function measure(title: string, url: string, options: Partial<autocannon.Options>) {
  const result = await autocannon({ url, connections, duration, workers: 1, ...options });
  const bad = result.errors + result.timeouts + (result.non2xx ?? 0);
  console.log(
    `${title.padEnd(58)} ${Math.round(result.requests.average).toString().padStart(6)} req/s  ` +
      `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx/errors ${bad}`,
  );
}

console.log(`machine: ${machineLine()}`);
console.log(
  `autocannon: ${connections} connections, ${duration} s per run, load generator in a worker thread`,
);

const server = await startEmbeddedServer();
const json = { ...server.headers, 'content-type': 'application/json' };
const call = async (method: string, path: string, body: unknown) => {
  const res = await server.app.inject({
    method: method as 'POST',
    url: path,
    headers: json,
    payload: body as object,
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
  return res.json();
};

const actorIdentity = 'devid:bench-arm';
await call('POST', '/v1/physical/actors', { actorIdentity, actorKind: 'robot' });
// The default policy's clauses, with the age limit of the safety readings raised so that one fixed
// request body stays fresh for the whole run; the evaluation work is the default policy's.
const policy = {
  clauses: DEFAULT_PHYSICAL_POLICY.clauses.map((clause) =>
    clause.maxStateAgeMs === undefined ? clause : { ...clause, maxStateAgeMs: 86_400_000 },
  ),
};
await call('POST', '/v1/physical/policy', { policy, activate: true });

const reading = (asOfTimestampMs: number) => ({
  kind: 'boolean',
  value: false,
  asOfTimestampMs,
  attestation: { channel: 'cell-safety-plc', safetyRated: true, protocol: 'fsoe' },
});
const now = Date.now();
const issuance = {
  intent: {
    structuredGoal: {
      schema: 'robot.manipulation',
      verb: 'pick',
      object: 'tote',
      parameters: { cell: 4 },
      actor: { kind: 'robot', identifier: actorIdentity },
    },
  },
  dagNode: { nodeId: 'pick-tote', oiCode: 'OI-1502', deadlineMs: 300_000, safeDefault: 'stop' },
  claims: { actorIdentity, deadlineMs: 300_000, safeDefault: 'stop' },
  physicalState: {
    'safety/emergency-stop': reading(now),
    'safety/light-curtain-breached': reading(now),
    'cell/human-present': reading(now),
  },
};
const first = await call('POST', '/v1/physical/authority-tokens', issuance);
if (first.decision !== 'ALLOW') throw new Error(`expected ALLOW, got ${JSON.stringify(first)}`);

const url = `${server.base}/v1/physical/authority-tokens`;
const request = { method: 'POST' as const, headers: json, body: JSON.stringify(issuance) };
if (!values['edge-only']) {
  const empty = Fastify();
  empty.get('/', async () => ({ ok: true }));
  await empty.listen({ port: 0, host: '127.0.0.1' });
  const emptyAddress = empty.server.address();
  await measure(
    'empty Fastify route (ceiling)',
    `http://127.0.0.1:${typeof emptyAddress === 'object' && emptyAddress ? emptyAddress.port : 0}/`,
    {},
  );
  await empty.close();
  // Warm up: JIT, statement caches.
  await autocannon({ url, connections: 4, amount: 500, ...request });
  await measure('POST /physical/authority-tokens ALLOW (RSA-2048, snapshot)', url, request);
  // autocannon paces a fixed rate per connection and starts every connection at the same instant,
  // so N connections at 500 req/s arrive as bursts of N requests every N × 2 ms; 8 connections keep
  // the bursts small enough that the p99 measures a request, not the drain of a burst.
  await profiled(values['profile-http'], () =>
    measure('POST /physical/authority-tokens ALLOW at 500 req/s, 8 conns', url, {
      ...request,
      connections: 8,
      overallRate: 500,
    }),
  );
}

const metrics = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
const allows = /^authority_physical_decisions_total\{decision="ALLOW"\} (\S+)$/m.exec(metrics)?.[1];
const verified = await server.app.inject({
  method: 'POST',
  url: '/audit/verify-chain',
  headers: server.headers,
});
console.log(
  `ALLOW decisions made: ${allows}; chain: ${verified.json().length} entries, valid=${verified.json().valid}`,
);

// Edge verification: the SDK verifier in this process, JWKS and revocations synced once. The first
// revocation pages are synthetic (random jtis, revoked within the last minutes, so none is pruned);
// then the service's own route answers.
const syntheticRevocations = Number(values.revocations);
let served = 0;
const firstRevokedAt = Date.now() - syntheticRevocations - 1_000;
const fetchWithRevocations: typeof fetch = async (input, init) => {
  const address = new URL(input instanceof Request ? input.url : String(input));
  if (!address.pathname.endsWith('/physical/revocations') || served >= syntheticRevocations) {
    return fetch(input, init);
  }
  const count = Math.min(1_000, syntheticRevocations - served);
  const revocations = Array.from({ length: count }, (_, i) => ({
    tokenJti: randomUUID(),
    revokedAtMs: firstRevokedAt + served + i,
    reason: 'bench',
  }));
  served += count;
  const asOfMs = firstRevokedAt + served - 1;
  return Response.json({ revocations, asOfMs, hasMore: true });
};
const edgeKey = await call('POST', '/keys', { name: 'bench-edge', role: 'edge' });
const edge = new EdgeVerifier({
  baseUrl: `${server.base}/v1`,
  apiKey: edgeKey.key,
  tenantId: 'bench',
  edgeNodeId: 'bench-cell',
  actorIdentity,
  maxQueuedReports: 1_000,
  fetch: fetchWithRevocations,
  // The embedded server signs with its configured public base URL as the issuer.
  issuer: loadConfig({}).publicBaseUrl,
});
const synced = await edge.sync();
const token = first.token as string;
const check = await edge.verify(token);
if (!check.valid) throw new Error(`the edge refused the token: ${JSON.stringify(check)}`);
let verifications = 0;
const elapsed = await profiled(values.profile, async () => {
  const end = process.hrtime.bigint() + BigInt(verifySeconds * 1e9);
  const start = process.hrtime.bigint();
  while (process.hrtime.bigint() < end) {
    const result = await edge.verify(token);
    if (!result.valid) throw new Error(`verification failed: ${result.reason}`);
    verifications += 1;
  }
  return Number(process.hrtime.bigint() - start) / 1e9;
});
// The ceiling: node:crypto's one-shot RSA verification of the same token, nothing else.
const jwks = (await (await fetch(`${server.base}/.well-known/jwks.json`)).json()) as { keys: JsonWebKey[] };
const [headerPart, payloadPart, signaturePart] = token.split('.') as [string, string, string];
const kid = JSON.parse(Buffer.from(headerPart, 'base64url').toString()).kid;
const signerJwk = jwks.keys.find((k) => k.kid === kid);
if (signerJwk === undefined) throw new Error(`kid ${kid} is not in the JWKS`);
const rsaKey = createPublicKey({ key: signerJwk, format: 'jwk' });
const signedBytes = Buffer.from(`${headerPart}.${payloadPart}`);
const signatureBytes = Buffer.from(signaturePart, 'base64url');
const rawEnd = process.hrtime.bigint() + BigInt(verifySeconds * 1e9);
const rawStart = process.hrtime.bigint();
let raw = 0;
while (process.hrtime.bigint() < rawEnd) {
  if (!verify('sha256', signedBytes, rsaKey, signatureBytes)) throw new Error('raw verification failed');
  raw += 1;
}
console.log(
  `node:crypto verify, RS256 one-shot (ceiling)`.padEnd(58) +
    ` ${Math.round(raw / (Number(process.hrtime.bigint() - rawStart) / 1e9))
      .toString()
      .padStart(6)} verifications/s on one thread`,
);
console.log(
  `EdgeVerifier.verify (RS256, cached JWKS, ${synced.revocationsHeld} revocations held)`.padEnd(58) +
    ` ${Math.round(verifications / elapsed)
      .toString()
      .padStart(6)} verifications/s on one thread`,
);
await server.close();
