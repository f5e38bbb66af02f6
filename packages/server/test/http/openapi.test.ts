import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IntentResponse, PolicyRule, WIRE_ROUTE_LIST } from '@authority-runtime/sdk/wire';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Value } from 'typebox/value';
import { documentedPath } from '../../src/http/openapi.js';
import { portalLogin } from '../access/portal-helpers.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';

/** The OpenAPI document against contract §13.4 (the outside tools run in `npm run check:openapi`). */

interface Parameter {
  name: string;
  in: string;
  required: boolean;
}
interface Response {
  $ref?: string;
  content?: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }>;
}
interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  responses: Record<string, Response>;
}
interface Document {
  servers: unknown;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
    responses: Record<string, { headers: Record<string, unknown> }>;
  };
}

/** Non-2xx answers that are not errors: decisions (DENIED, a physical deny) and the readiness report. */
const NOT_ERRORS = new Set([
  'post /intent 403',
  'get /ready 503',
  'post /v1/physical/authority-tokens 422',
  'post /v1/physical/authority-tokens 423',
]);

const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Document;
  before(async () => {
    t = await createTestApp('sqlite');
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  after(async () => {
    await t.close();
  });

  it('has one operation per wire route, each with its operationId, and relative servers', () => {
    const ids = operations(doc).map(({ operation }) => operation.operationId);
    assert.deepEqual(ids.sort(), WIRE_ROUTE_LIST.map((route) => route.operationId).sort());
    assert.deepEqual(doc.servers, [{ url: '/' }]);
  });

  it('documents the physical surface under /v1/physical, as the contract names it', () => {
    const physical = Object.keys(doc.paths).filter((path) => path.includes('/physical/'));
    assert.ok(physical.length > 10, physical.join(', '));
    assert.deepEqual(
      physical.filter((path) => !path.startsWith('/v1/physical/')),
      [],
    );
    assert.ok(doc.paths['/v1/physical/authority-tokens']?.post);
    assert.ok(doc.paths['/v1/physical/authority-tokens/{jti}/revoke']?.post);
  });

  it('declares x-tenant-id inline and the security of every tenant route', () => {
    for (const route of WIRE_ROUTE_LIST) {
      const path = documentedPath(route.path);
      const operation = doc.paths[path]?.[route.method.toLowerCase()];
      assert.ok(operation, `${route.method} ${path}`);
      const tenantHeader = operation.parameters?.find((p) => p.name === 'x-tenant-id');
      const idempotencyKey = operation.parameters?.find((p) => p.name === 'idempotency-key');
      if (route.security === 'tenant' || route.security === 'portal') {
        // Every request but the public and operator ones names its tenant (contract §2), console
        // sessions included.
        assert.deepEqual(
          tenantHeader && { in: tenantHeader.in, required: tenantHeader.required },
          { in: 'header', required: true },
          route.operationId,
        );
        assert.deepEqual(
          operation.security,
          route.security === 'tenant'
            ? [{ bearer: [] }, { apiKey: [] }, { portalSession: [] }]
            : [{ portalSession: [] }],
        );
      } else assert.equal(tenantHeader, undefined, route.operationId);
      assert.equal(idempotencyKey?.required ?? null, route.idempotent ? false : null, route.operationId);
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) assert.ok(doc.components.securitySchemes[scheme]);
      }
    }
    const submit = doc.paths['/intent']?.post;
    assert.ok(submit?.parameters?.some((p) => p.name === 'idempotency-key'));
    assert.ok(doc.paths['/intent/{id}/token']?.post?.parameters?.some((p) => p.name === 'idempotency-key'));
  });

  it('types every status, errors with the shared envelope, and 405 with allow', () => {
    for (const { path, method, operation } of operations(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const where = `${method} ${path} ${status}`;
        if (status === '405') {
          assert.equal(response.$ref, '#/components/responses/MethodNotAllowed', where);
          continue;
        }
        if (status === '204') continue;
        const media = Object.values(response.content ?? {});
        assert.equal(media.length, 1, where);
        assert.ok(media[0]?.schema, where);
        if (Number(status) >= 400 && !NOT_ERRORS.has(`${method} ${path} ${status}`)) {
          assert.deepEqual(media[0]?.schema, { $ref: '#/components/schemas/ErrorEnvelope' }, where);
        }
      }
    }
    assert.ok(doc.components.responses.MethodNotAllowed?.headers.allow);
  });

  it('declares 429 on every route a rate limit covers: all but /health and /ready (contract §3)', () => {
    for (const { path, method, operation } of operations(doc)) {
      const limited = path !== '/health' && path !== '/ready';
      assert.equal('429' in operation.responses, limited, `${method} ${path}`);
    }
  });

  it("answers a public document of a tenant id no tenant can have 404, as an unknown tenant's", async () => {
    const tenantId = 'a'.repeat(64);
    for (const url of ['jwks.json', 'jwks-archive.json', 'log-key']) {
      const res = await t.app.inject({ url: `/.well-known/authority/${tenantId}/${url}` });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'NOT_FOUND');
    }
  });

  it('compiles every component with a JSON Schema 2020-12 validator: each reference resolves', () => {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12: an `$id` inside a component would rebase the
    // `#/components/...` references under it, so a standard validator could not resolve them.
    const base = 'https://authority.example/openapi.json';
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: base, components: doc.components });
    for (const name of Object.keys(doc.components.schemas)) {
      assert.doesNotThrow(() => ajv.compile({ $ref: `${base}#/components/schemas/${name}` }), name);
    }
    assert.equal(JSON.stringify(doc).includes('"$id"'), false);
    const validRule = ajv.compile({ $ref: `${base}#/components/schemas/PolicyRule` });
    const rule = {
      id: 'r1',
      effect: 'ALLOW',
      priority: 10,
      conditions: { any: [{ path: 'riskScore', op: 'LT', value: 50 }, { not: { all: [] } }] },
    };
    assert.ok(Value.Check(PolicyRule, rule));
    assert.equal(validRule(rule), true, JSON.stringify(validRule.errors));
    const nested = { ...rule, conditions: { all: [{ not: { path: 'riskScore', op: 'NOPE' } }] } };
    assert.equal(Value.Check(PolicyRule, nested), false);
    assert.equal(validRule(nested), false);
  });

  it('names the main shapes as components', () => {
    for (const name of [
      'ErrorEnvelope',
      'IntentRequest',
      'IntentResponse',
      'AuthorityDecision',
      'Execution',
      'PolicyRule',
      'ConditionGroup',
      'DecisionTokenClaims',
      'AuditEntry',
      'Receipt',
      'Checkpoint',
      'WebhookPayload',
    ]) {
      assert.ok(doc.components.schemas[name], name);
    }
    const approved = doc.paths['/intent']?.post?.responses['200']?.content?.['application/json']?.schema;
    assert.deepEqual(approved, { $ref: '#/components/schemas/IntentResponse' });
  });

  it('types the decision records at the core: no untyped member in them, args values aside', () => {
    /** JSON pointers of the empty schemas under `schema` (a record's free values are not walked). */
    const untyped = (schema: unknown, at: string, seen: Set<string>): string[] => {
      if (typeof schema !== 'object' || schema === null) return [];
      const node = schema as Record<string, unknown>;
      const ref = typeof node.$ref === 'string' ? node.$ref.replace('#/components/schemas/', '') : undefined;
      if (ref !== undefined) {
        if (seen.has(ref)) return [];
        seen.add(ref);
        return untyped(doc.components.schemas[ref], `${at}→${ref}`, seen);
      }
      if (Object.keys(node).every((key) => key === 'description')) return [at];
      const found: string[] = [];
      for (const [name, member] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
        found.push(...untyped(member, `${at}/${name}`, seen));
      }
      if (node.items !== undefined) found.push(...untyped(node.items, `${at}[]`, seen));
      for (const key of ['anyOf', 'oneOf', 'allOf']) {
        for (const member of (node[key] ?? []) as unknown[]) found.push(...untyped(member, at, seen));
      }
      return found;
    };
    for (const name of ['IntentResponse', 'IntentView', 'EscalationDetail', 'EscalationView']) {
      assert.ok(doc.components.schemas[name], name);
      assert.deepEqual(untyped({ $ref: `#/components/schemas/${name}` }, '', new Set()), [], name);
    }
  });

  it('gives POST /intent an example of each outcome, each a valid IntentResponse', () => {
    const responses = doc.paths['/intent']?.post?.responses ?? {};
    const outcomes = ['200', '202', '403'].map((status) => {
      const examples = Object.values(responses[status]?.content?.['application/json']?.examples ?? {});
      assert.equal(examples.length, 1, status);
      const value = examples[0]?.value;
      assert.ok(Value.Check(IntentResponse, value), [...Value.Errors(IntentResponse, value)].join('; '));
      return (value as IntentResponse).authorityDecision.decision;
    });
    assert.deepEqual(outcomes, ['APPROVED', 'ESCALATED', 'DENIED']);
  });
});

/**
 * Every route that can be sent a body answers a body of another media type with 415 and a body over
 * 1 MiB with 413 (contract §1), those that take none included, so its operation must declare both
 * (contract §13.4: every status it can answer has a schema).
 */
describe('body-capable operations declare the 413 and 415 they answer', () => {
  let t: TestApp;
  let doc: Document;
  const headersFor: Record<string, Record<string, string>> = {};
  before(async () => {
    t = await createTestApp('sqlite');
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const owner = await t.ownerHeaders('acme');
    headersFor.tenant = owner;
    headersFor.admin = { 'x-admin-token': ADMIN_TOKEN };
    headersFor.portal = (await portalLogin(t, 'acme', 'owner')).headers;
    headersFor.public = {};
  });
  after(async () => {
    await t.close();
  });

  it('sends each a text/plain body and a 1.1 MiB JSON body', async () => {
    const checked: string[] = [];
    for (const route of WIRE_ROUTE_LIST) {
      if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method)) continue;
      const url = route.path.replace(/:tenantId\b/g, 'acme').replace(/:[A-Za-z]+/g, 'x1');
      const headers = headersFor[route.security ?? 'public'] ?? {};
      const method = route.method as 'POST' | 'PUT' | 'PATCH' | 'DELETE';
      const operation = doc.paths[documentedPath(route.path)]?.[method.toLowerCase()];
      assert.ok(operation, `${method} ${route.path} in the document`);
      const text = await t.app.inject({
        method,
        url,
        headers: { ...headers, 'content-type': 'text/plain' },
        payload: 'not json',
      });
      const big = await t.app.inject({
        method,
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ padding: 'x'.repeat(1_150_000) }),
      });
      const answered = [text.statusCode, big.statusCode];
      assert.deepEqual(
        answered,
        [415, 413],
        `${method} ${route.path}: ${text.body} ${big.body.slice(0, 200)}`,
      );
      for (const status of answered) {
        assert.ok(operation.responses[String(status)], `${method} ${route.path} declares ${status}`);
      }
      checked.push(`${method} ${route.path}`);
    }
    assert.ok(checked.length > 40, `${checked.length} operations`);
  });
});
