import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import fc from 'fast-check';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import {
  type BatchVerificationReport,
  EDGE_VERIFICATION_REASONS,
  EDGE_VERIFIER_AUDIENCE,
  type EdgeServiceError,
  type EdgeVerification,
  type EdgeVerificationReason,
  EdgeVerifier,
  type EdgeVerifierOptions,
  type Revocation,
} from '../src/index.js';

// ---------------------------------------------------------------------------------------------
// A local peer implementing the three routes the edge verifier uses, exactly as documents 02 and
// 03 define them: the physical JWKS, the revocation list with `since` paging, and the batch
// verification-report route. Authentication, validation and the error envelope follow section 1.
// ---------------------------------------------------------------------------------------------

const TENANT = 'acme';
const OTHER_TENANT = 'globex';
const API_KEY = `service_live_${'k'.repeat(43)}`;
const ACTOR = 'devid:arm-7';
const EDGE_NODE = 'cell-4-controller';
const T0 = 1_750_000_000_000;
const PAGE_LIMIT = 1000;

interface PeerRequest {
  method: string;
  path: string;
  since?: string;
  headers: IncomingMessage['headers'];
}

class Peer {
  jwks: JWK[] = [];
  /** Audit entries of the tenant: a report for another jti is rejected with not_found. */
  readonly jtis = new Set<string>();
  readonly revocations: Revocation[] = [];
  readonly reports: BatchVerificationReport[] = [];
  readonly batches: number[] = [];
  readonly requests: PeerRequest[] = [];
  /** While true, every connection is destroyed: a network outage. */
  down = false;
  /** Statuses the next report POSTs answer with instead of handling them. */
  reportFailures: number[] = [];
  /** A server that follows document 02 only (no `hasMore`). */
  omitHasMore = false;
  serverTimeMs = T0;
  url = '';
  #server: Server | undefined;

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      if (this.down) {
        req.socket.destroy();
        return;
      }
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => this.#handle(req, res, body));
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  reset(): void {
    this.jwks = [];
    this.jtis.clear();
    this.revocations.length = 0;
    this.reports.length = 0;
    this.batches.length = 0;
    this.requests.length = 0;
    this.down = false;
    this.reportFailures = [];
    this.omitHasMore = false;
  }

  /** `revokedAtMs = max(now, previous + 1)`, as the contract assigns it; revoking twice is a no-op. */
  revoke(jti: string, atMs = this.serverTimeMs, reason = 'operator revoked'): Revocation {
    const known = this.revocations.find((r) => r.tokenJti === jti);
    if (known !== undefined) return known;
    const last = this.revocations.at(-1)?.revokedAtMs ?? 0;
    const revocation = { tokenJti: jti, revokedAtMs: Math.max(atMs, last + 1), reason };
    this.revocations.push(revocation);
    return revocation;
  }

  requestsTo(path: string): PeerRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string) {
    const url = new URL(req.url ?? '/', 'http://peer');
    const path = url.pathname.replace(/^\/v1(?=\/)/, '');
    this.requests.push({
      method: req.method ?? '',
      path,
      since: url.searchParams.get('since') ?? undefined,
      headers: req.headers,
    });
    if (req.method === 'GET' && path === '/.well-known/jwks.json') {
      send(res, 200, { keys: this.jwks }, { 'cache-control': 'public, max-age=300' });
      return;
    }
    const routes = ['GET /physical/revocations', 'POST /physical/verifications'];
    const route = `${req.method} ${path}`;
    if (!routes.includes(route)) return fail(res, 404, 'not_found', 'route not found');
    const authorization = req.headers.authorization;
    if (authorization !== `Bearer ${API_KEY}`) {
      return fail(res, 401, 'unauthenticated', 'no verified tenant context', { reason: 'invalid_api_key' });
    }
    const tenant = req.headers['x-tenant-id'];
    if (tenant === undefined) {
      return fail(res, 401, 'unauthenticated', 'x-tenant-id missing', { reason: 'tenant_header_missing' });
    }
    if (tenant !== TENANT) return fail(res, 403, 'tenant_mismatch', 'the key belongs to another tenant');
    if (route === 'GET /physical/revocations') this.#revocationsRoute(res, url);
    else this.#verificationsRoute(req, res, body);
  }

  #revocationsRoute(res: ServerResponse, url: URL) {
    const raw = url.searchParams.get('since') ?? '0';
    if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
      return fail(res, 400, 'validation_error', 'since must be an integer >= 0', {
        issues: [{ path: 'since', message: 'must be an integer >= 0' }],
      });
    }
    const since = Number(raw);
    const page = this.revocations.filter((r) => r.revokedAtMs > since).slice(0, PAGE_LIMIT);
    send(res, 200, {
      revocations: page,
      asOfMs: page.at(-1)?.revokedAtMs ?? since,
      ...(this.omitHasMore ? {} : { hasMore: page.length === PAGE_LIMIT }),
      serverTimeMs: this.serverTimeMs,
    });
  }

  #verificationsRoute(req: IncomingMessage, res: ServerResponse, body: string) {
    const forced = this.reportFailures.shift();
    if (forced !== undefined)
      return fail(res, forced, forced === 503 ? 'service_unavailable' : 'validation_error', 'forced');
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return fail(res, 415, 'unsupported_media_type', 'JSON only');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return fail(res, 400, 'validation_error', 'malformed JSON');
    }
    const reports = (parsed as { reports?: unknown }).reports;
    const issue = reportsIssue(parsed, reports);
    if (issue !== undefined)
      return fail(res, 400, 'validation_error', issue, { issues: [{ path: 'reports', message: issue }] });
    const list = reports as BatchVerificationReport[];
    this.batches.push(list.length);
    const rejected: { index: number; code: string }[] = [];
    list.forEach((report, index) => {
      if (this.jtis.has(report.jti)) this.reports.push(report);
      else rejected.push({ index, code: 'not_found' });
    });
    send(res, 200, { accepted: list.length - rejected.length, rejected });
  }
}

/** Validates `{reports: [{jti, edgeNodeId, result, reason?, atMs}] (≤ 500)}` with no other members. */
function reportsIssue(body: unknown, reports: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'reports') {
    return 'body must be exactly {reports}';
  }
  if (!Array.isArray(reports) || reports.length < 1 || reports.length > 500) return 'reports: 1..500 items';
  for (const report of reports) {
    if (typeof report !== 'object' || report === null) return 'report is not an object';
    const { jti, edgeNodeId, result, reason, atMs, ...rest } = report as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return `unknown member ${Object.keys(rest).join()}`;
    if (typeof jti !== 'string' || typeof edgeNodeId !== 'string') return 'jti and edgeNodeId are strings';
    if (result !== 'accepted' && result !== 'rejected') return 'result is accepted or rejected';
    if (reason !== undefined && typeof reason !== 'string') return 'reason is a string';
    if (!Number.isSafeInteger(atMs)) return 'atMs is an integer';
  }
  return undefined;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, code: string, message: string, details?: unknown): void {
  send(res, status, {
    error: { code, message, ...(details === undefined ? {} : { details }), requestId: randomUUID() },
  });
}

// ---------------------------------------------------------------------------------------------
// Keys, tokens, clock.
// ---------------------------------------------------------------------------------------------

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function rsaKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', {
    extractable: true,
    modulusLength: 2048,
  });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

let now = T0;
const clock = () => now;

interface TokenSpec {
  key?: SigningKey;
  issuedAtMs?: number;
  deadlineMs?: number;
  actorIdentity?: string;
  tenantId?: string;
  jti?: string;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  service?: Record<string, unknown>;
  /** Register the jti as an audit entry of the tenant on the peer (default true). */
  audited?: boolean;
}

let peer: Peer;
let signer: SigningKey;
let rotated: SigningKey;
let unpublished: SigningKey;

/** A physical authority token with the claims of document 02, signed RS256. */
async function issue(spec: TokenSpec = {}): Promise<{ token: string; jti: string }> {
  const key = spec.key ?? signer;
  const issuedAtMs = spec.issuedAtMs ?? now;
  const deadlineMs = spec.deadlineMs ?? 60_000;
  const actorIdentity = spec.actorIdentity ?? ACTOR;
  const jti = spec.jti ?? randomUUID();
  const iat = Math.floor(issuedAtMs / 1000);
  const payload = {
    // The service's PUBLIC_BASE_URL: here the peer's address, which every verifier is given.
    iss: peer.url,
    sub: actorIdentity,
    aud: EDGE_VERIFIER_AUDIENCE,
    iat,
    exp: iat + Math.ceil(deadlineMs / 1000),
    jti,
    service: {
      version: 2,
      oiCode: 'OI-1501',
      tenantId: spec.tenantId ?? TENANT,
      actorIdentity,
      actorIdentityKind: 'ieee-802-1ar-devid',
      deadlineMs,
      issuedAtMs,
      expiresAtMs: issuedAtMs + deadlineMs,
      safeDefault: 'hold-position',
      safetyBit: true,
      safetyCitations: ['OI-2903'],
      dagNodeId: 'pick-and-place-3',
      realTimeTier: 'rt-soft',
      physicalStateRef: null,
      operatorTicketId: null,
      ...spec.service,
    },
    ...spec.claims,
  };
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...spec.header })
    .sign(key.privateKey);
  if (spec.audited !== false && (spec.tenantId ?? TENANT) === TENANT) peer.jtis.add(jti);
  return { token, jti };
}

function verifier(options: Partial<EdgeVerifierOptions> = {}): EdgeVerifier {
  return new EdgeVerifier({
    baseUrl: peer.url,
    apiKey: API_KEY,
    tenantId: TENANT,
    edgeNodeId: EDGE_NODE,
    actorIdentity: ACTOR,
    clock,
    ...options,
  });
}

function assertValid(result: EdgeVerification): void {
  assert.equal(
    result.valid,
    true,
    result.valid ? '' : `expected valid, got ${result.reason} (${result.detail})`,
  );
}

function assertRejected(result: EdgeVerification, reason: EdgeVerificationReason): void {
  assert.equal(result.valid, false, `expected ${reason}, got valid`);
  if (!result.valid)
    assert.equal(result.reason, reason, `expected ${reason}, got ${result.reason} (${result.detail})`);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

before(async () => {
  [signer, rotated, unpublished] = await Promise.all([
    rsaKey('physical-1'),
    rsaKey('physical-2'),
    rsaKey('physical-1'), // same kid as the real key, other key material: a forgery
  ]);
  peer = new Peer();
  await peer.start();
});

after(async () => {
  await peer.close();
});

beforeEach(() => {
  peer.reset();
  peer.jwks = [signer.publicJwk];
  now = T0;
  peer.serverTimeMs = T0;
});

// ---------------------------------------------------------------------------------------------

describe('EdgeVerifier: verification', () => {
  it('accepts a token for this actor and tenant after a sync, with the claims of the token', async () => {
    const edge = verifier();
    await edge.sync();
    const { token, jti } = await issue();
    const result = await edge.verify(token);
    assertValid(result);
    assert.ok(result.valid);
    assert.equal(result.claims.jti, jti);
    assert.equal(result.claims.sub, ACTOR);
    assert.equal(result.claims.service.tenantId, TENANT);
    assert.equal(result.claims.service.safeDefault, 'hold-position');
    assert.deepEqual(result.claims.service.safetyCitations, ['OI-2903']);
  });

  it('sends the API key and tenant header on the authenticated routes and nothing secret to the JWKS', async () => {
    await verifier().sync();
    const [revocations] = peer.requestsTo('/physical/revocations');
    assert.equal(revocations?.headers.authorization, `Bearer ${API_KEY}`);
    assert.equal(revocations?.headers['x-tenant-id'], TENANT);
    assert.equal(revocations?.headers['content-type'], 'application/json');
    const [jwks] = peer.requestsTo('/.well-known/jwks.json');
    assert.equal(jwks?.headers.authorization, undefined);
  });

  it('fails closed before the first successful sync', async () => {
    const { token } = await issue();
    assertRejected(await verifier().verify(token), 'REVOCATIONS_STALE');
  });

  it('rejects a revoked token once a sync has pulled the revocation', async () => {
    const edge = verifier();
    await edge.sync();
    const { token, jti } = await issue();
    assertValid(await edge.verify(token));
    peer.revoke(jti);
    const result = await edge.sync();
    assert.equal(result.revocationsReceived, 1);
    const rejected = await edge.verify(token);
    assertRejected(rejected, 'TOKEN_REVOKED');
    assert.equal(rejected.valid === false && rejected.jti, jti);
  });

  it('rejects an expired token, allowing the configured clock skew', async () => {
    const edge = verifier({ clockSkewMs: 250 });
    await edge.sync();
    const { token } = await issue({ issuedAtMs: T0 - 8_000, deadlineMs: 9_000 });
    now = T0 + 1_000 + 249; // expiresAtMs + 249
    assertValid(await edge.verify(token));
    now = T0 + 1_000 + 250;
    assertRejected(await edge.verify(token), 'TOKEN_EXPIRED');
  });

  it('rejects a token issued (issuedAtMs, iat) or valid (nbf) beyond the skew in the future', async () => {
    const edge = verifier({ clockSkewMs: 250 });
    await edge.sync();
    // Issued 2 s ahead of this verifier's clock: iat and issuedAtMs agree, as the service writes them.
    const ahead = await issue({ issuedAtMs: T0 + 2_000 });
    assertRejected(await edge.verify(ahead.token), 'TOKEN_NOT_YET_VALID');
    now = T0 + 1_750;
    assertValid(await edge.verify(ahead.token));
    now = T0;
    const withinSkew = await issue({ issuedAtMs: T0 + 250 });
    assertValid(await edge.verify(withinSkew.token));
    const nbf = await issue({ claims: { nbf: Math.floor(T0 / 1000) + 10 } });
    assertRejected(await edge.verify(nbf.token), 'TOKEN_NOT_YET_VALID');
    now = T0 + 10_000;
    assertValid(await edge.verify(nbf.token));
    const badNbf = await issue({ claims: { nbf: 'later' } });
    assertRejected(await edge.verify(badNbf.token), 'TOKEN_MALFORMED');
  });

  it('orders TOKEN_REVOKED, then TOKEN_NOT_YET_VALID, then the actor and tenant (contract §9)', async () => {
    const edge = verifier();
    const future = await issue({ issuedAtMs: T0 + 60_000, actorIdentity: 'devid:other' });
    peer.revoke(future.jti);
    await edge.sync();
    assertRejected(await edge.verify(future.token), 'TOKEN_REVOKED');
    const notYet = await issue({ issuedAtMs: T0 + 60_000, actorIdentity: 'devid:other' });
    assertRejected(await edge.verify(notYet.token), 'TOKEN_NOT_YET_VALID');
    assert.deepEqual(EDGE_VERIFICATION_REASONS.slice(4, 8), [
      'TOKEN_EXPIRED',
      'TOKEN_REVOKED',
      'TOKEN_NOT_YET_VALID',
      'TOKEN_ACTOR_MISMATCH',
    ]);
  });

  it('rejects a token bound to another actor; a per-call actor overrides the default', async () => {
    const edge = verifier();
    await edge.sync();
    const { token } = await issue({ actorIdentity: 'devid:arm-8' });
    assertRejected(await edge.verify(token), 'TOKEN_ACTOR_MISMATCH');
    assertValid(await edge.verify(token, { actorIdentity: 'devid:arm-8' }));
    await assert.rejects(verifier({ actorIdentity: undefined }).verify(token), TypeError);
  });

  it("rejects another tenant's token (the physical signer is shared) and does not report it", async () => {
    const edge = verifier();
    await edge.sync();
    const { token } = await issue({ tenantId: OTHER_TENANT });
    assertRejected(await edge.verify(token), 'TOKEN_TENANT_MISMATCH');
    assert.equal(edge.status().reportsQueued, 0);
  });

  it('re-fetches the JWKS on an unknown kid (rate limited) and accepts a token of the new key', async () => {
    const edge = verifier({ jwksMinRefetchIntervalMs: 5_000 });
    await edge.sync();
    assert.equal(peer.requestsTo('/.well-known/jwks.json').length, 1);
    peer.jwks = [signer.publicJwk, rotated.publicJwk];
    const { token } = await issue({ key: rotated });
    // The sync's load starts no rate limit: the new kid is fetched at once.
    assertValid(await edge.verify(token));
    assert.equal(peer.requestsTo('/.well-known/jwks.json').length, 2);
    // That re-fetch does: another unknown kid within 5 s is not fetched, then it is.
    const unpublishedKid = await issue({ key: { ...rotated, kid: 'physical-published-later' } });
    assertRejected(await edge.verify(unpublishedKid.token), 'KID_MISMATCH');
    assert.equal(peer.requestsTo('/.well-known/jwks.json').length, 2);
    now += 5_000;
    assertRejected(await edge.verify(unpublishedKid.token), 'KID_MISMATCH');
    assert.equal(peer.requestsTo('/.well-known/jwks.json').length, 3);
  });

  it('rejects a kid still unknown after the refresh', async () => {
    const edge = verifier();
    await edge.sync();
    now += 10_000;
    const { token } = await issue({ key: { ...rotated, kid: 'physical-never-published' } });
    assertRejected(await edge.verify(token), 'KID_MISMATCH');
    assert.equal(peer.requestsTo('/.well-known/jwks.json').length, 2);
  });

  it('rejects forged and tampered tokens', async () => {
    const edge = verifier();
    await edge.sync();
    const forged = await issue({ key: unpublished });
    assertRejected(await edge.verify(forged.token), 'SIGNATURE_VERIFICATION_FAILED');
    assert.equal(edge.status().reportsQueued, 0, 'a forged jti is never reported');
    const wrongAudience = await issue({ claims: { aud: 'service-authority' } });
    assertRejected(await edge.verify(wrongAudience.token), 'SIGNATURE_VERIFICATION_FAILED');
    const hs256 = `${b64url({ alg: 'HS256', typ: 'JWT', kid: signer.kid })}.${b64url({ jti: 'x' })}.c2ln`;
    assertRejected(await edge.verify(hs256), 'SIGNATURE_VERIFICATION_FAILED');
    const none = `${b64url({ alg: 'none', typ: 'JWT', kid: signer.kid })}.${b64url({ jti: 'x' })}.`;
    assertRejected(await edge.verify(none), 'SIGNATURE_VERIFICATION_FAILED');
  });

  it('checks the header typ and the literal claims after the signature', async () => {
    const edge = verifier();
    await edge.sync();
    assertRejected(await edge.verify((await issue({ header: { typ: 'at+jwt' } })).token), 'TOKEN_MALFORMED');
    assertRejected(await edge.verify((await issue({ service: { version: 1 } })).token), 'TOKEN_MALFORMED');
    assertRejected(
      await edge.verify((await issue({ claims: { sub: 'someone-else' } })).token),
      'TOKEN_MALFORMED',
    );
    assertRejected(await edge.verify((await issue({ deadlineMs: 300_001 })).token), 'TOKEN_MALFORMED');
    assertRejected(await edge.verify('not-a-token'), 'TOKEN_MALFORMED');
    assertRejected(await edge.verify(42), 'TOKEN_MALFORMED');
  });

  it('requires iss = its base address by default (trailing / and /v1 aside), or exactly the configured issuer', async () => {
    const { token } = await issue();
    for (const baseUrl of [peer.url, `${peer.url}/`, `${peer.url}/v1`, `${peer.url}/v1/`]) {
      const byDefault = verifier({ baseUrl });
      await byDefault.sync();
      assertValid(await byDefault.verify(token));
    }
    const intentIssuer = await issue({ claims: { iss: 'service-authority' } });
    const edge = verifier();
    await edge.sync();
    assertRejected(await edge.verify(intentIssuer.token), 'SIGNATURE_VERIFICATION_FAILED');
    // Behind a proxy the edge names the service's own address.
    const proxied = verifier({ issuer: 'https://authority.example.com' });
    await proxied.sync();
    assertRejected(await proxied.verify(token), 'SIGNATURE_VERIFICATION_FAILED');
    const named = await issue({ claims: { iss: 'https://authority.example.com' } });
    assertValid(await proxied.verify(named.token));
  });

  it('uses pinned keys without fetching the JWKS', async () => {
    const edge = verifier({ jwks: { keys: [signer.publicJwk] } });
    await edge.sync();
    assertValid(await edge.verify((await issue()).token));
    assert.equal(peer.requestsTo('/.well-known/jwks.json').length, 0);
  });

  it('accepts a base URL ending in /v1', async () => {
    const edge = verifier({ baseUrl: `${peer.url}/v1/` });
    await edge.sync();
    assertValid(await edge.verify((await issue()).token));
    assert.equal(peer.requests.filter((r) => r.path === '/physical/revocations').length, 1);
  });
});

describe('EdgeVerifier: offline window', () => {
  it('keeps verifying through an outage within the window, then fails closed, then recovers', async () => {
    const edge = verifier({ offlineWindowMs: 30_000 });
    await edge.sync();
    peer.down = true;
    now += 20_000;
    await assert.rejects(edge.sync(), (error: EdgeServiceError) => {
      assert.equal(error.name, 'EdgeServiceError');
      assert.equal(error.status, undefined);
      return true;
    });
    assert.match(edge.status().lastSyncError ?? '', /failed/);
    assertValid(await edge.verify((await issue()).token));
    assert.equal(edge.status().revocationsStale, false);

    now = T0 + 30_000;
    assertValid(await edge.verify((await issue()).token));
    now = T0 + 30_001;
    const { token } = await issue();
    assertRejected(await edge.verify(token), 'REVOCATIONS_STALE');
    assertRejected(await edge.verify('garbage'), 'REVOCATIONS_STALE');
    assert.equal(edge.status().revocationsStale, true);

    peer.down = false;
    await edge.sync();
    assertValid(await edge.verify(token));
    assert.equal(edge.status().lastSyncError, null);
  });

  it('does not count a sync refused by the service (401) as successful', async () => {
    const edge = verifier({ apiKey: `service_live_${'x'.repeat(43)}` });
    await assert.rejects(edge.sync(), (error: EdgeServiceError) => {
      assert.equal(error.status, 401);
      assert.equal(error.code, 'unauthenticated');
      return true;
    });
    assertRejected(await edge.verify((await issue()).token), 'REVOCATIONS_STALE');
  });

  it('fails closed when the JWKS was never loaded', async () => {
    const edge = verifier();
    peer.down = true;
    await assert.rejects(edge.sync(), { name: 'KeySourceError' });
    assert.equal(edge.status().lastSyncAtMs, null);
  });
});

describe('EdgeVerifier: revocation sync', () => {
  it('pages through 2,500 revocations with since = the previous asOfMs, then syncs incrementally', async () => {
    const revoked: string[] = [];
    for (let i = 0; i < 2_500; i += 1) {
      const jti = randomUUID();
      revoked.push(jti);
      peer.revoke(jti, T0 - 5_000);
    }
    const edge = verifier();
    const first = await edge.sync();
    assert.equal(first.pages, 3);
    assert.equal(first.revocationsReceived, 2_500);
    assert.equal(first.revocationsHeld, 2_500);
    const sinces = peer.requestsTo('/physical/revocations').map((r) => r.since);
    const asOf = (n: number) => String(peer.revocations[n - 1]?.revokedAtMs);
    assert.deepEqual(sinces, ['0', asOf(1_000), asOf(2_000)]);
    assert.equal(first.asOfMs, peer.revocations[2_499]?.revokedAtMs);

    for (const index of [0, 999, 1_000, 1_999, 2_000, 2_499]) {
      const { token } = await issue({ jti: revoked[index] });
      assertRejected(await edge.verify(token), 'TOKEN_REVOKED');
    }

    const late = peer.revoke(randomUUID(), T0);
    const second = await edge.sync();
    assert.equal(second.pages, 1);
    assert.equal(second.revocationsReceived, 1);
    assert.equal(peer.requestsTo('/physical/revocations').at(-1)?.since, asOf(2_500));
    assert.equal(second.asOfMs, late.revokedAtMs);
  });

  it('pages on a full page when the service sends no hasMore (document 02 alone)', async () => {
    peer.omitHasMore = true;
    for (let i = 0; i < 2_000; i += 1) peer.revoke(randomUUID(), T0 - 5_000);
    const result = await verifier().sync();
    assert.equal(result.revocationsReceived, 2_000);
    assert.equal(result.pages, 3); // 1000, 1000, then an empty page
  });

  it('keeps the pages it received when a later page fails, and resumes from there', async () => {
    for (let i = 0; i < 1_500; i += 1) peer.revoke(randomUUID(), T0 - 5_000);
    const realFetch = globalThis.fetch;
    let calls = 0;
    const flaky: typeof fetch = (input, init) => {
      if (String(input).includes('/physical/revocations') && ++calls === 2) {
        return Promise.reject(new TypeError('connection reset'));
      }
      return realFetch(input, init);
    };
    const resuming = verifier({ fetch: flaky });
    await assert.rejects(resuming.sync(), { name: 'EdgeServiceError' });
    assert.equal(resuming.status().revocationsHeld, 1_000);
    assert.equal(resuming.status().lastSyncAtMs, null);
    const result = await resuming.sync();
    assert.equal(result.revocationsReceived, 500);
    assert.equal(
      peer.requestsTo('/physical/revocations').at(-1)?.since,
      String(peer.revocations[999]?.revokedAtMs),
    );
  });

  it('forgets revocations of tokens that have expired anyway; such tokens stay rejected', async () => {
    const old = peer.revoke(randomUUID(), T0 - 400_000);
    const recent = peer.revoke(randomUUID(), T0 - 1_000);
    const edge = verifier();
    const result = await edge.sync();
    assert.equal(result.revocationsReceived, 2);
    assert.equal(result.revocationsHeld, 1);
    const { token } = await issue({
      jti: old.tokenJti,
      issuedAtMs: T0 - 400_000 - 300_000,
      deadlineMs: 300_000,
    });
    assertRejected(await edge.verify(token), 'TOKEN_EXPIRED');
    assertRejected(await edge.verify((await issue({ jti: recent.tokenJti })).token), 'TOKEN_REVOKED');
  });
});

describe('EdgeVerifier: reports', () => {
  it('queues every result with a verified jti and posts them in batches', async () => {
    const edge = verifier({ reportBatchSize: 3 });
    await edge.sync();
    const expected: Partial<BatchVerificationReport>[] = [];
    for (let i = 0; i < 5; i += 1) {
      const { token, jti } = await issue();
      assertValid(await edge.verify(token));
      expected.push({ jti, result: 'accepted' });
    }
    const revoked = await issue();
    peer.revoke(revoked.jti);
    await edge.sync();
    assertRejected(await edge.verify(revoked.token), 'TOKEN_REVOKED');
    expected.push({ jti: revoked.jti, result: 'rejected', reason: 'TOKEN_REVOKED' });
    const wrongActor = await issue({ actorIdentity: 'devid:arm-9' });
    assertRejected(await edge.verify(wrongActor.token), 'TOKEN_ACTOR_MISMATCH');
    expected.push({ jti: wrongActor.jti, result: 'rejected', reason: 'TOKEN_ACTOR_MISMATCH' });
    assertRejected(await edge.verify('garbage'), 'TOKEN_MALFORMED'); // no jti: not reported

    assert.equal(edge.status().reportsQueued, 7);
    assert.deepEqual(await edge.flushReports(), { delivered: 7, refused: 0, pending: 0 });
    assert.deepEqual(peer.batches, [3, 3, 1]);
    assert.deepEqual(
      peer.reports.map(({ jti, result, reason }) => ({
        jti,
        result,
        ...(reason === undefined ? {} : { reason }),
      })),
      expected,
    );
    for (const report of peer.reports) {
      assert.equal(report.edgeNodeId, EDGE_NODE);
      assert.equal(report.atMs, T0);
      assert.equal(report.result === 'accepted', !('reason' in report));
    }
    assert.equal(edge.status().reportsDelivered, 7);
  });

  it('counts reports the service refuses per item and does not retry them', async () => {
    const edge = verifier();
    await edge.sync();
    assertValid(await edge.verify((await issue({ audited: false })).token));
    assertValid(await edge.verify((await issue()).token));
    assert.deepEqual(await edge.flushReports(), { delivered: 1, refused: 1, pending: 0 });
    assert.equal(edge.status().reportsRefused, 1);
  });

  it('retries a batch after a failure, in order, and drops a batch the service refuses as a whole', async () => {
    const edge = verifier({ reportBatchSize: 2 });
    await edge.sync();
    const jtis: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { token, jti } = await issue();
      jtis.push(jti);
      await edge.verify(token);
    }
    peer.reportFailures = [503];
    await assert.rejects(edge.flushReports(), (error: EdgeServiceError) => error.status === 503);
    assert.equal(edge.status().reportsQueued, 3);
    peer.down = true;
    await assert.rejects(edge.flushReports(), (error: EdgeServiceError) => error.status === undefined);
    peer.down = false;
    assert.deepEqual(await edge.flushReports(), { delivered: 3, refused: 0, pending: 0 });
    assert.deepEqual(
      peer.reports.map((r) => r.jti),
      jtis,
    );

    await edge.verify((await issue()).token);
    peer.reportFailures = [400];
    await assert.rejects(edge.flushReports(), (error: EdgeServiceError) => error.code === 'validation_error');
    assert.equal(edge.status().reportsQueued, 0);
    assert.equal(edge.status().reportsDropped, 1);
  });

  it('bounds the queue during an outage, dropping the oldest reports', async () => {
    const edge = verifier({ maxQueuedReports: 5, reportBatchSize: 2 });
    await edge.sync();
    const jtis: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const { token, jti } = await issue();
      jtis.push(jti);
      await edge.verify(token);
    }
    peer.down = true;
    await assert.rejects(edge.flushReports());
    assert.equal(edge.status().reportsQueued, 5);
    assert.equal(edge.status().reportsDropped, 3);
    peer.down = false;
    await edge.flushReports();
    assert.deepEqual(
      peer.reports.map((r) => r.jti),
      jtis.slice(3),
    );
  });
});

describe('EdgeVerifier: background work', () => {
  it('syncs on start, flushes a full batch at once, and stops', async () => {
    const errors: string[] = [];
    const edge = verifier({
      syncIntervalMs: 20,
      reportIntervalMs: 600_000,
      reportBatchSize: 2,
      onError: (error) => errors.push(error.message),
    });
    edge.start();
    edge.start(); // idempotent
    assert.equal(edge.status().running, true);
    await until(() => edge.status().lastSyncAtMs !== null, 'the first background sync');
    await until(() => peer.requestsTo('/physical/revocations').length >= 3, 'periodic syncs');

    const revoked = await issue();
    peer.revoke(revoked.jti);
    await until(() => edge.status().revocationsHeld === 1, 'the revocation to arrive in the background');
    assertRejected(await edge.verify(revoked.token), 'TOKEN_REVOKED');
    assertValid(await edge.verify((await issue()).token));
    await until(() => peer.reports.length === 2, 'the full batch to be flushed without waiting');

    peer.down = true;
    await until(() => errors.length > 0, 'a background error');
    await edge.stop();
    assert.equal(edge.status().running, false);
    peer.down = false;
    const count = peer.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(peer.requests.length, count, 'no request after stop()');
  });

  it('flushes on the report interval when batches are not full', async () => {
    const edge = verifier({ syncIntervalMs: 10_000, reportIntervalMs: 20 });
    await edge.sync();
    edge.start();
    assertValid(await edge.verify((await issue()).token));
    await until(() => peer.reports.length === 1, 'the periodic flush');
    await edge.stop();
  });
});

describe('EdgeVerifier: properties', () => {
  it('never throws and never accepts garbage', async () => {
    const edge = verifier();
    await edge.sync();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.jsonValue()), async (input) => {
        const result = await edge.verify(input);
        return result.valid === false && EDGE_VERIFICATION_REASONS.includes(result.reason);
      }),
      { numRuns: 300 },
    );
  });

  it('never accepts a token changed in one character', async () => {
    const edge = verifier();
    await edge.sync();
    const { token } = await issue();
    assertValid(await edge.verify(token));
    const alphabet = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'];
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(...alphabet), async (index, replacement) => {
        fc.pre(token[index] !== replacement);
        const mutated = token.slice(0, index) + replacement + token.slice(index + 1);
        return (await edge.verify(mutated)).valid === false;
      }),
      { numRuns: 300 },
    );
  });
});

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
