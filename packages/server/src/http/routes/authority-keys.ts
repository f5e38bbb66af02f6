import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SigningKeyService } from '../../tokens/signing-keys.js';
import type { TenantSecrets } from '../../tokens/tenant-secrets.js';
import { needs } from '../access.js';
import { principalOf } from '../principal.js';
import { wireSchema } from '../wire-schema.js';

export const authorityKeyRoutes: FastifyPluginAsyncTypebox<{
  signingKeys: SigningKeyService;
  secrets: TenantSecrets;
}> = async (app, { signingKeys, secrets }) => {
  app.get(
    '/authority/keys',
    {
      config: needs('authority:keys:read'),
      schema: wireSchema(WIRE_ROUTES.listSigningKeys),
    },
    async (request) => ({ keys: await signingKeys.list(principalOf(request).tenantId) }),
  );

  app.post(
    '/authority/keys/rotate',
    {
      config: needs('authority:keys:write'),
      schema: wireSchema(WIRE_ROUTES.rotateSigningKey),
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
      schema: wireSchema(WIRE_ROUTES.setSigningAlgorithm),
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
      schema: wireSchema(WIRE_ROUTES.registerExternalKey),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return reply
        .code(201)
        .send(await signingKeys.registerExternal(principal.tenantId, principal, request.body));
    },
  );

  const rotations = [
    { kind: 'evidence', route: WIRE_ROUTES.rotateEvidenceSecret },
    { kind: 'permission', route: WIRE_ROUTES.rotatePermissionSecret },
  ] as const;
  for (const { kind, route } of rotations) {
    app.post(
      `/authority/secrets/${kind}/rotate`,
      {
        config: needs('tenant:admin'),
        schema: wireSchema(route),
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const rotated = await secrets.rotate(principal.tenantId, kind, principal);
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
