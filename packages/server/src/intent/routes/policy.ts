import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors } from '../../http/schemas.js';
import { wireSchema } from '../../http/wire-schema.js';
import { getPack, POLICY_PACKS } from '../../policy/packs.js';
import type { PolicyStore, PolicyVersion } from '../use-cases/policy-store.js';

const _PolicyVersionSchema = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  active: Type.Boolean(),
  rules: Type.Array(Type.Unknown()),
  packs: Type.Array(Type.String()),
  createdAt: IsoDateTime,
  createdBy: Type.String(),
  activatedAt: Type.Union([IsoDateTime, Type.Null()]),
});
const _PackSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  rules: Type.Array(Type.Unknown()),
});
const _errors = { ...tenantErrors, 409: tenantErrors[404] };

function view(policy: PolicyVersion) {
  const { tenantId, ...rest } = policy;
  return { id: `${tenantId}/v${policy.version}`, ...rest };
}

export const policyRoutes: FastifyPluginAsyncTypebox<{ policies: PolicyStore }> = async (
  app,
  { policies },
) => {
  app.get(
    '/authority/policy',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.getPolicy),
    },
    async (request) => view(await policies.activeView(principalOf(request).tenantId)),
  );

  app.get(
    '/authority/policy/versions',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.listPolicyVersions),
    },
    async (request) => ({ versions: (await policies.versions(principalOf(request).tenantId)).map(view) }),
  );

  app.post(
    '/authority/policy',
    {
      config: needs('authority:policy:write'),
      schema: wireSchema(WIRE_ROUTES.savePolicy),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return reply.code(201).send(view(await policies.save(principal.tenantId, principal, request.body)));
    },
  );

  app.post(
    '/authority/policy/versions/:version/activate',
    {
      config: needs('authority:policy:write'),
      schema: wireSchema(WIRE_ROUTES.activatePolicyVersion),
    },
    async (request) => {
      const principal = principalOf(request);
      return view(await policies.activate(principal.tenantId, principal, request.params.version));
    },
  );

  app.get(
    '/policy-packs',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.listPolicyPacks),
    },
    async () => ({ packs: POLICY_PACKS.map((p) => ({ ...p, rules: [...p.rules] })) }),
  );

  app.post(
    '/policy-packs/install',
    {
      config: needs('authority:policy:write'),
      schema: wireSchema(WIRE_ROUTES.installPolicyPack),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { pack, policy } = await policies.installPack(
        principal.tenantId,
        principal,
        request.body.pack,
        request.body.activate !== false,
      );
      return reply.code(201).send({ pack: { ...pack, rules: [...pack.rules] }, policy: view(policy) });
    },
  );

  app.get(
    '/policy-packs/installed',
    {
      config: needs('authority:policy:read'),
      schema: wireSchema(WIRE_ROUTES.listInstalledPacks),
    },
    async (request) => {
      const installed = await policies.installedPacks(principalOf(request).tenantId);
      return {
        packs: installed.flatMap((id) => {
          const pack = getPack(id);
          return pack ? [{ id: pack.id, name: pack.name, version: pack.version }] : [];
        }),
      };
    },
  );
};
