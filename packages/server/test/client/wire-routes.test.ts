import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WIRE_ROUTE_LIST } from '@authority-runtime/sdk/wire';
import swagger from '@fastify/swagger';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * Routes the service registers that are not API operations: the interactive reference and its
 * document, and the web console's static files.
 */
const NOT_OPERATIONS = /^\/(docs|openapi\.json|console)/;

describe('the wire route catalogue', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(async () => {
    await t.close();
  });

  it('names exactly the routes the service registers, with the same kind of access', () => {
    const service = t.app.registeredRoutes
      .filter((route) => !NOT_OPERATIONS.test(route.url))
      .map((route) => `${route.method} ${route.url} ${route.access.kind}`)
      .sort();
    const wire = WIRE_ROUTE_LIST.map((route) => `${route.method} ${route.path} ${route.security}`).sort();
    assert.deepEqual(wire, service);
  });

  it('serves as Fastify route schemas: TypeBox validation, response serialization and an OpenAPI document', async () => {
    const app = Fastify();
    app.setValidatorCompiler(TypeBoxValidatorCompiler);
    app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) =>
      reply.code(error.statusCode ?? 500).send({
        error: { code: 'VALIDATION_ERROR', message: error.message, requestId: request.id },
      }),
    );
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 'wire', version: '1' } } });
    for (const route of WIRE_ROUTE_LIST) {
      app.route({
        method: route.method,
        url: route.path,
        schema: {
          ...route.schema,
          operationId: route.operationId,
          tags: [route.tag],
          summary: route.summary,
        },
        handler: async (_request, reply) => reply.code(204).send(),
      });
    }
    try {
      await app.ready();
      const document = app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> };
      const operationIds = Object.values(document.paths).flatMap((methods) =>
        Object.values(methods).map((operation) => operation.operationId),
      );
      assert.deepEqual(operationIds.sort(), WIRE_ROUTE_LIST.map((route) => route.operationId).sort());

      const headers = { 'x-tenant-id': 'acme' };
      const invalid = await app.inject({
        method: 'POST',
        url: '/intent',
        headers,
        payload: { tenantId: 'acme' },
      });
      assert.equal(invalid.statusCode, 400, 'the IntentRequest schema validates the body');
      assert.equal(invalid.json().error.code, 'VALIDATION_ERROR', 'and the envelope serializes');
      const valid = await app.inject({
        method: 'POST',
        url: '/intent',
        headers,
        payload: {
          tenantId: 'acme',
          actor: { id: 'a', type: 'agent' },
          targetSystem: 'acme/payments',
          proposedAction: 'list',
          riskContext: { baseRiskScore: 1 },
        },
      });
      assert.equal(valid.statusCode, 204);
    } finally {
      await app.close();
    }
  });
});
