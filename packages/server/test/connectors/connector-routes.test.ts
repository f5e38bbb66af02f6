import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Resolver } from '../../src/egress/egress-client.js';
import { createTestApp, type Headers, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { assertError } from '../helpers/tokens.js';

/** Public names resolve to a documentation address; `internal.` names to a private one. */
const resolver: Resolver = async (host) => {
  if (host === 'deploy.example.test' || host === 'api.github.com') return ['93.184.216.34'];
  if (host === 'internal.example.test') return ['10.1.2.3'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

const GITHUB_TOKEN = 'ghp_routeTestToken0123456789abcdefABCDEF';
const HEADER_SECRET = 'receiver-key-5f1e2d3c4b5a69788796a5b4';

const VIEW_KEYS = [
  'autoExecute',
  'config',
  'createdAt',
  'id',
  'lastCheckedAt',
  'lastError',
  'latencyMs',
  'name',
  'status',
  'targetSystem',
  'type',
];

for (const engine of ENGINES) {
  describe(`connector registry API (${engine})`, () => {
    let t: TestApp;
    let owner: Headers;
    let admin: Headers;
    let auditor: Headers;
    let agent: Headers;
    let other: Headers;

    before(async () => {
      t = await createTestApp(engine, {}, undefined, { resolver });
      owner = await t.ownerHeaders('acme');
      admin = await t.roleHeaders('acme', 'admin');
      auditor = await t.roleHeaders('acme', 'auditor');
      agent = await t.roleHeaders('acme', 'agent');
      other = await t.ownerHeaders('globex');
    });
    after(async () => {
      await t.close();
    });

    const create = (headers: Headers, payload: unknown) =>
      t.app.inject({ method: 'POST', url: '/connectors', headers, payload: payload as object });
    const list = async (headers: Headers) => {
      const res = await t.app.inject({ method: 'GET', url: '/connectors', headers });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().connectors as Array<Record<string, unknown>>;
    };

    async function chainText(tenant: string): Promise<string> {
      const rows = await t.storage.db
        .selectFrom('audit_entries')
        .select('canonical')
        .where('tenant_id', '=', tenant)
        .orderBy('idx')
        .execute();
      return rows.map((row) => row.canonical).join('\n');
    }

    async function lastEntry(tenant: string) {
      const row = await t.storage.db
        .selectFrom('audit_entries')
        .select(['event_type', 'actor_id', 'canonical'])
        .where('tenant_id', '=', tenant)
        .orderBy('idx', 'desc')
        .executeTakeFirstOrThrow();
      return { eventType: row.event_type, actorId: row.actor_id, payload: JSON.parse(row.canonical).payload };
    }

    it('registers an http connector: 201 with its settings, its header secrets sealed and never shown', async () => {
      const res = await create(admin, {
        type: 'http',
        name: 'deployer',
        targetSystem: 'acme/deploy',
        config: {
          url: 'https://deploy.example.test/authority/execute?tenant=acme',
          healthUrl: 'https://deploy.example.test/healthz',
          headers: { 'X-Receiver-Key': HEADER_SECRET },
        },
        autoExecute: true,
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), VIEW_KEYS);
      assert.match(body.id, /^[0-9a-f-]{36}$/);
      assert.equal(body.type, 'http');
      assert.equal(body.status, 'unknown');
      assert.equal(body.lastCheckedAt, null);
      assert.equal(body.latencyMs, null);
      assert.equal(body.autoExecute, true);
      assert.deepEqual(body.config, {
        url: 'https://deploy.example.test/authority/execute?tenant=acme',
        healthUrl: 'https://deploy.example.test/healthz',
      });
      assert.equal(body.createdAt, new Date(t.clock()).toISOString());
      assert.ok(!res.body.includes(HEADER_SECRET));

      const row = await t.storage.db
        .selectFrom('connectors')
        .selectAll()
        .where('tenant_id', '=', 'acme')
        .where('id', '=', body.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.secrets !== null && !row.secrets.includes(HEADER_SECRET), 'sealed, not in clear');
      assert.ok(!row.config.includes(HEADER_SECRET));

      const entry = await lastEntry('acme');
      assert.equal(entry.eventType, 'connector.created');
      assert.deepEqual(entry.payload, {
        connectorId: body.id,
        type: 'http',
        name: 'deployer',
        targetSystem: 'acme/deploy',
        autoExecute: true,
        config: {
          url: 'https://deploy.example.test/authority/execute',
          healthUrl: 'https://deploy.example.test/healthz',
          headerNames: ['x-receiver-key'],
        },
      });
    });

    it('registers a github connector whose token appears in no response, row or audit entry', async () => {
      const res = await create(owner, {
        type: 'github',
        name: 'api repo',
        targetSystem: 'acme/api',
        config: { token: GITHUB_TOKEN },
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.deepEqual(body.config, { baseUrl: 'https://api.github.com' });
      assert.equal(body.autoExecute, false, 'autoExecute defaults to false');
      const listed = await t.app.inject({ method: 'GET', url: '/connectors', headers: auditor });
      assert.equal(listed.statusCode, 200);
      for (const text of [res.body, listed.body, await chainText('acme')])
        assert.ok(!text.includes(GITHUB_TOKEN));
      const rows = await t.storage.db.selectFrom('connectors').select(['config', 'secrets']).execute();
      for (const row of rows) assert.ok(!`${row.config}${row.secrets}`.includes(GITHUB_TOKEN));
      assert.deepEqual((await lastEntry('acme')).payload.config, {
        baseUrl: 'https://api.github.com',
        secrets: ['token'],
      });
    });

    it('lists with health fields, in creation order, to connectors:read (the auditor)', async () => {
      const connectors = await list(auditor);
      assert.deepEqual(
        connectors.map((c) => c.targetSystem),
        ['acme/deploy', 'acme/api'],
      );
      for (const connector of connectors) assert.deepEqual(Object.keys(connector).sort(), VIEW_KEYS);
    });

    it('allows one connector per tenant and targetSystem (409), whatever the type; other tenants are apart', async () => {
      const again = await create(admin, { type: 'noop', name: 'dry', targetSystem: 'acme/api', config: {} });
      const error = assertError(again, 409, 'CONFLICT');
      assert.deepEqual(error.details, { targetSystem: 'acme/api' });
      const elsewhere = await create(other, {
        type: 'noop',
        name: 'dry',
        targetSystem: 'acme/api',
        config: {},
      });
      assert.equal(elsewhere.statusCode, 201, elsewhere.body);
      assert.equal((await list(owner)).length, 2);
      assert.equal((await list(other)).length, 1);
    });

    it('refuses malformed bodies and configs with 400 VALIDATION_ERROR naming the path', async () => {
      const cases: Array<[unknown, string]> = [
        [{ type: 'ftp', name: 'x', targetSystem: 'acme/x', config: {} }, '/type'],
        [{ type: 'noop', name: '', targetSystem: 'acme/x', config: {} }, '/name'],
        [{ type: 'noop', name: 'x', targetSystem: 'not a repo', config: {} }, '/targetSystem'],
        [{ type: 'noop', name: 'x', targetSystem: 'acme/x' }, '/config'],
        [{ type: 'noop', name: 'x', targetSystem: 'acme/x', config: {}, secret: 1 }, '/secret'],
        [{ type: 'noop', name: 'x', targetSystem: 'acme/x', config: {}, autoExecute: 'yes' }, '/autoExecute'],
        [
          { type: 'http', name: 'x', targetSystem: 'acme/x', config: { url: 'file:///etc/passwd' } },
          '/config/url',
        ],
        [
          {
            type: 'github',
            name: 'x',
            targetSystem: 'acme/x',
            config: { baseUrl: 'https://api.github.com' },
          },
          '/config/token',
        ],
      ];
      for (const [payload, path] of cases) {
        const error = assertError(await create(admin, payload), 400, 'VALIDATION_ERROR');
        const issues = (error.details?.issues ?? []) as Array<{ path: string }>;
        // Only the field at fault (or the object holding it): a config is checked by its type alone,
        // so no issue names a member of another type's config.
        assert.ok(
          issues.length > 0 &&
            issues.every((issue) => issue.path.startsWith(path) || path.startsWith(issue.path)),
          `${JSON.stringify(payload)} → ${JSON.stringify(issues)}`,
        );
      }
      assert.equal((await list(owner)).length, 2, 'nothing was created');
    });

    it('ignores config members the type does not know, and stores none of them (contract §4.1)', async () => {
      const made: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        [
          'http',
          { url: 'https://deploy.example.test/extra', timeoutMs: 5, future: { nested: true } },
          { url: 'https://deploy.example.test/extra', healthUrl: null },
        ],
        ['github', { token: 'ghp_extra_members', owner: 'acme', url: 'https://x.example' }, {}],
        ['noop', { anything: 1 }, {}],
      ];
      for (const [type, config, shown] of made) {
        const targetSystem = `acme/extra-${type}`;
        const res = await create(admin, { type, name: `extra ${type}`, targetSystem, config });
        assert.equal(res.statusCode, 201, res.body);
        const body = res.json() as { id: string; config: Record<string, unknown> };
        if (type === 'github') assert.equal(body.config.baseUrl, 'https://api.github.com');
        else assert.deepEqual(body.config, shown);
        const row = await t.storage.db
          .selectFrom('connectors')
          .selectAll()
          .where('id', '=', body.id)
          .executeTakeFirstOrThrow();
        const stored = JSON.stringify(row);
        for (const member of ['timeoutMs', 'future', 'nested', 'owner', 'x.example', 'anything']) {
          assert.ok(!stored.includes(member), `${member} was stored: ${stored}`);
        }
        assert.ok(!(await chainText('acme')).includes('future'), 'nor written to the chain');
        const removed = await t.app.inject({
          method: 'DELETE',
          url: `/connectors/${body.id}`,
          headers: admin,
        });
        assert.equal(removed.statusCode, 204, removed.body);
      }
    });

    it('refuses private, loopback and link-local targets unless the operator opened them', async () => {
      const targets: Array<[string, Record<string, unknown>, string]> = [
        ['http', { url: 'https://internal.example.test/run' }, '/config/url'],
        ['http', { url: 'http://127.0.0.1:9/run' }, '/config/url'],
        [
          'http',
          { url: 'https://deploy.example.test/run', healthUrl: 'http://169.254.169.254/latest' },
          '/config/healthUrl',
        ],
        ['github', { token: 't', baseUrl: 'http://[::1]:8080/api/v3' }, '/config/baseUrl'],
        ['github', { token: 't', baseUrl: 'http://[::127.0.0.1]:8080/api/v3' }, '/config/baseUrl'],
        ['http', { url: 'http://[::a00:1]/run' }, '/config/url'],
        ['http', { url: 'http://[2002:7f00:1::1]/run' }, '/config/url'],
        ['http', { url: 'https://nowhere.example.test/run' }, '/config/url'],
      ];
      for (const [type, config, path] of targets) {
        const error = assertError(
          await create(admin, { type, name: 'x', targetSystem: 'acme/private', config }),
          400,
          'VALIDATION_ERROR',
        );
        assert.deepEqual(
          ((error.details?.issues ?? []) as Array<{ path: string }>).map((issue) => issue.path),
          [path],
          JSON.stringify(config),
        );
      }
      const opened = await createTestApp(engine, { EGRESS_ALLOW_CIDRS: '127.0.0.0/8' }, undefined, {
        resolver,
      });
      try {
        const headers = await opened.ownerHeaders('acme');
        const res = await opened.app.inject({
          method: 'POST',
          url: '/connectors',
          headers,
          payload: {
            type: 'http',
            name: 'x',
            targetSystem: 'acme/private',
            config: { url: 'http://127.0.0.1:9/run' },
          },
        });
        assert.equal(res.statusCode, 201, res.body);
        const refused = await opened.app.inject({
          method: 'POST',
          url: '/connectors',
          headers,
          payload: {
            type: 'http',
            name: 'y',
            targetSystem: 'acme/other',
            config: { url: 'https://internal.example.test/run' },
          },
        });
        assertError(refused, 400, 'VALIDATION_ERROR');
      } finally {
        await opened.close();
      }
    });

    it('checks permissions: connectors:write to create and delete, connectors:read to list, connectors:test to test', async () => {
      const [connector] = await list(owner);
      const id = connector?.id as string;
      const denied: Array<[Headers, string, string, string]> = [
        [auditor, 'POST', '/connectors', 'connectors:write'],
        [auditor, 'DELETE', `/connectors/${id}`, 'connectors:write'],
        [auditor, 'POST', `/connectors/${id}/test`, 'connectors:test'],
        [agent, 'GET', '/connectors', 'connectors:read'],
      ];
      for (const [headers, method, url, permission] of denied) {
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          headers,
          ...(method === 'POST' && url === '/connectors'
            ? { payload: { type: 'noop', name: 'x', targetSystem: 'acme/x', config: {} } }
            : {}),
        });
        assert.deepEqual(assertError(res, 403, 'FORBIDDEN').details, { permission }, `${method} ${url}`);
      }
    });

    it('answers any malformed body with a 4xx envelope, never a 5xx, and writes no audit entry (property)', async () => {
      const field = <T>(valid: fc.Arbitrary<T>) => fc.oneof(valid, fc.jsonValue());
      const config = fc.oneof(
        fc.record(
          {
            url: field(
              fc.constantFrom('https://deploy.example.test/x', 'http://10.0.0.1/', 'https://[::1]/', ''),
            ),
            healthUrl: field(fc.webUrl()),
            headers: field(
              fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
            ),
            token: field(fc.string({ maxLength: 30 })),
            baseUrl: field(fc.constantFrom('https://api.github.com', 'https://internal.example.test/api/v3')),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue(),
      );
      const body = fc.oneof(
        fc.record(
          {
            type: field(fc.constantFrom('http', 'github', 'noop')),
            name: field(fc.string({ maxLength: 120 })),
            targetSystem: field(fc.constantFrom('acme/prop', 'acme/', 'a/b/c', 'acme/api')),
            config,
            autoExecute: field(fc.boolean()),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue(),
      );
      const chainLength = async () =>
        (
          await t.storage.db
            .selectFrom('audit_entries')
            .select('idx')
            .where('tenant_id', '=', 'acme')
            .execute()
        ).length;
      await fc.assert(
        fc.asyncProperty(body, async (payload) => {
          const before = await chainLength();
          const res = await t.app.inject({
            method: 'POST',
            url: '/connectors',
            headers: { ...admin, 'content-type': 'application/json' },
            payload: JSON.stringify(payload),
          });
          if (res.statusCode === 201) {
            await t.app.inject({ method: 'DELETE', url: `/connectors/${res.json().id}`, headers: admin });
            return;
          }
          assert.ok(
            res.statusCode >= 400 && res.statusCode < 500,
            `${res.statusCode} for ${JSON.stringify(payload)}`,
          );
          assert.equal(typeof res.json().error.code, 'string');
          assert.equal(await chainLength(), before);
        }),
        { numRuns: 150 },
      );
    });

    it("deletes with an audit entry; another tenant's id and a second delete answer 404", async () => {
      const [first] = await list(owner);
      const id = first?.id as string;
      assertError(
        await t.app.inject({ method: 'DELETE', url: `/connectors/${id}`, headers: other }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await t.app.inject({ method: 'POST', url: `/connectors/${id}/test`, headers: other }),
        404,
        'NOT_FOUND',
      );
      const res = await t.app.inject({ method: 'DELETE', url: `/connectors/${id}`, headers: admin });
      assert.equal(res.statusCode, 204, res.body);
      const entry = await lastEntry('acme');
      assert.equal(entry.eventType, 'connector.deleted');
      assert.deepEqual(entry.payload, { connectorId: id, type: 'http', targetSystem: 'acme/deploy' });
      assertError(
        await t.app.inject({ method: 'DELETE', url: `/connectors/${id}`, headers: admin }),
        404,
        'NOT_FOUND',
      );
      assert.deepEqual(
        (await list(owner)).map((c) => c.targetSystem),
        ['acme/api'],
      );
      // The target is free again.
      const again = await create(admin, {
        type: 'noop',
        name: 'dry',
        targetSystem: 'acme/deploy',
        config: {},
      });
      assert.equal(again.statusCode, 201, again.body);
    });
  });
}
