import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SIGNING_ALGS } from '../../crypto/signing-algorithms.js';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import type { TenantSecrets } from '../../tokens/tenant-secrets.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../schemas.js';

const SigningKeySchema = Type.Object({
  kid: Type.String(),
  tenantId: Type.String(),
  alg: Type.Enum(SIGNING_ALGS),
  status: Type.Enum(['ACTIVE', 'PREVIOUS', 'RETIRED']),
  publicJwk: Type.Record(Type.String(), Type.Unknown()),
  createdAt: IsoDateTime,
  rotatedAt: Type.Union([IsoDateTime, Type.Null()]),
  retiredAt: Type.Union([IsoDateTime, Type.Null()]),
  source: Type.Enum(['local', 'external']),
  signUrl: Type.Optional(Type.String()),
});

const SecretSchema = Type.Object({
  secretId: Type.String(),
  secret: Type.String({ description: 'base64url; shown only in this response' }),
  kind: Type.Enum(['evidence', 'permission']),
  createdAt: IsoDateTime,
});

const errors = { ...tenantErrors, 409: tenantErrors[404] };

export const authorityKeyRoutes: FastifyPluginAsyncTypebox<{
  signingKeys: SigningKeyService;
  secrets: TenantSecrets;
}> = async (app, { signingKeys, secrets }) => {
  app.get(
    '/authority/keys',
    {
      config: needs('authority:keys:read'),
      schema: {
        tags: ['keys'],
        summary: "The tenant's signing keys with their statuses (never private material)",
        security: tenantSecurity,
        response: { 200: Type.Object({ keys: Type.Array(SigningKeySchema) }), ...errors },
      },
    },
    async (request) => ({ keys: await signingKeys.list(principalOf(request).tenantId) }),
  );

  app.post(
    '/authority/keys/rotate',
    {
      config: needs('authority:keys:write'),
      schema: {
        tags: ['keys'],
        summary:
          'Rotate: a new ACTIVE key, ACTIVE becomes PREVIOUS, PREVIOUS becomes RETIRED (409 within 305 s)',
        security: tenantSecurity,
        response: { 201: SigningKeySchema, ...errors },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return reply.code(201).send(await signingKeys.rotate(principal.tenantId, principal));
    },
  );

  app.put(
    '/authority/keys/algorithm',
    {
      config: needs('authority:keys:write'),
      schema: {
        tags: ['keys'],
        summary: 'Switch algorithm (EdDSA, RS256 with RSA-4096, ES256): rotates at once to a new key',
        security: tenantSecurity,
        body: Type.Object({ alg: Type.Enum(SIGNING_ALGS) }, { additionalProperties: false }),
        response: { 200: SigningKeySchema, ...errors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return signingKeys.rotate(principal.tenantId, principal, request.body.alg);
    },
  );

  app.post(
    '/authority/keys/external',
    {
      config: needs('authority:keys:write'),
      schema: {
        tags: ['keys'],
        summary: 'Register a customer-managed key (Vault transit sign protocol); it becomes ACTIVE',
        security: tenantSecurity,
        body: Type.Object(
          {
            kid: Type.String({ maxLength: 200 }),
            alg: Type.String(),
            publicJwk: Type.Record(Type.String(), Type.Unknown()),
            signUrl: Type.String({ maxLength: 2000 }),
            headers: Type.Optional(
              Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { maxProperties: 20 }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: SigningKeySchema, ...errors },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return reply
        .code(201)
        .send(await signingKeys.registerExternal(principal.tenantId, principal, request.body));
    },
  );

  for (const kind of ['evidence', 'permission'] as const) {
    app.post(
      `/authority/secrets/${kind}/rotate`,
      {
        config: needs('tenant:admin'),
        schema: {
          tags: ['keys'],
          summary: `Rotate the tenant's ${kind} HMAC secret; the new secret is shown once`,
          security: tenantSecurity,
          response: { 201: SecretSchema, ...errors },
        },
      },
      async (request, reply) => {
        const rotated = await secrets.rotate(principalOf(request).tenantId, kind);
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({
            secretId: rotated.id,
            secret: rotated.secret.toString('base64url'),
            kind,
            createdAt: rotated.createdAt,
          });
      },
    );
  }
};
