import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { approvedIntentRequest, measure, measureEmptyRoute, warmUp } from './load.js';
import { machineLine } from './machine.js';

// The least an approval can cost on this machine with this design, beside the empty route of the
// same run: a Fastify route that does only what no approval can skip and nothing else (no
// authentication, validation, policy, idempotency or tracing): parse the body, sign a token with
// Ed25519 on the thread pool, seal three chained audit entries with SHA-256, and commit the
// intent row, the three entries and the chain head through a group commit on SQLite (WAL,
// synchronous=NORMAL), answering after the commit. Its ratio to the empty route bounds what
// `POST /intent` can reach here (issue 19's 0.15 x).
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

console.log(`machine: ${machineLine()}`);
console.log(
  `autocannon: ${connections} connections, ${duration} s per run, load generator in a worker thread`,
);

const ceiling = await measureEmptyRoute({ connections, duration });

const dir = mkdtempSync(path.join(tmpdir(), 'authority-floor-'));
const db = new SqliteDatabase(path.join(dir, 'floor.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  create table intents (tenant_id text not null, id text not null, request text not null,
    decision text not null, token text not null, created_at integer not null, primary key (tenant_id, id));
  create table audit_entries (tenant_id text not null, idx integer not null, intent_id text not null,
    previous_hash text not null, entry_hash text not null, canonical text not null, created_at integer not null,
    primary key (tenant_id, idx));
  create table audit_heads (tenant_id text primary key, last_index integer not null, last_hash text not null);
  insert into audit_heads values ('bench', -1, '${'0'.repeat(64)}');
`);
const insertIntent = db.prepare('insert into intents values (?, ?, ?, ?, ?, ?)');
const insertEntry = db.prepare('insert into audit_entries values (?, ?, ?, ?, ?, ?, ?)');
const readHead = db.prepare('select last_index, last_hash from audit_heads where tenant_id = ?');
const writeHead = db.prepare('update audit_heads set last_index = ?, last_hash = ? where tenant_id = ?');
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');

interface Pending {
  intentId: string;
  request: string;
  decision: string;
  token: string;
  events: string[];
  resolve: (latestHash: string) => void;
}
let queue: Pending[] = [];
let flushScheduled = false;

function flush() {
  flushScheduled = false;
  const batch = queue;
  queue = [];
  const now = Date.now();
  begin.run();
  const head = readHead.get('bench') as { last_index: number; last_hash: string };
  let index = head.last_index;
  let previous = head.last_hash;
  const latest: string[] = [];
  for (const item of batch) {
    insertIntent.run('bench', item.intentId, item.request, item.decision, item.token, now);
    for (const event of item.events) {
      index += 1;
      const canonical = `{"event":${event},"index":${index},"previousHash":"${previous}","tenantId":"bench"}`;
      const hash = createHash('sha256').update(canonical).digest('hex');
      insertEntry.run('bench', index, item.intentId, previous, hash, canonical, now);
      previous = hash;
    }
    latest.push(previous);
  }
  writeHead.run(index, previous, 'bench');
  commit.run();
  for (const [at, item] of batch.entries()) item.resolve(latest[at] as string);
}

const { privateKey } = generateKeyPairSync('ed25519');
const signAsync = (input: Buffer) =>
  new Promise<Buffer>((resolve, reject) =>
    sign(null, input, privateKey, (error, signature) => (error ? reject(error) : resolve(signature))),
  );
const header = Buffer.from('{"alg":"EdDSA","typ":"JWT","kid":"bench-1-ABCDEFGH"}').toString('base64url');

const floor = Fastify();
floor.post('/intent', async (request) => {
  const body = request.body as { actor: { id: string }; targetSystem: string; proposedAction: string };
  const intentId = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    intentId,
    tenantId: 'bench',
    targetSystem: body.targetSystem,
    proposedAction: body.proposedAction,
    decision: 'APPROVED',
    iat: now,
    exp: now + 300,
    nonce: randomUUID(),
  };
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const token = `${input}.${(await signAsync(Buffer.from(input))).toString('base64url')}`;
  const decision = JSON.stringify({ decision: 'APPROVED', riskScore: 10, reasons: ['policy allows'] });
  const events = ['INTENT_RECEIVED', 'AUTHORITY_DECISION', 'TOKEN_ISSUED'].map((type) =>
    JSON.stringify({ type, intentId, actorId: body.actor.id, targetSystem: body.targetSystem, decision }),
  );
  const latestHash = await new Promise<string>((resolve) => {
    queue.push({ intentId, request: JSON.stringify(body), decision, token, events, resolve });
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  });
  return { intentId, authorityDecision: JSON.parse(decision), authorityDecisionToken: token, latestHash };
});
const url = `${await floor.listen({ port: 0, host: '127.0.0.1' })}/intent`;
const request = approvedIntentRequest();
await warmUp(url, request);
const least = await measure('least approval (sign, seal 3, group commit)', url, {
  ...request,
  connections,
  duration,
});
console.log(`ratio to the empty route: ${(least / ceiling).toFixed(3)}`);
await floor.close();
// Requests autocannon left in flight still commit: wait for the last batch before closing SQLite.
while (flushScheduled || queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
const entries = (db.prepare('select count(*) as n from audit_entries').get() as { n: number }).n;
console.log(`entries written: ${entries}`);
db.close();
rmSync(dir, { recursive: true, force: true });
