import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import { getPack, POLICY_PACKS } from '../../policy/packs.js';
import type { PolicyStore, PolicyVersion } from '../use-cases/policy-store.js';

/**
 * The save's body as the route reads it: `rules` are checked by the domain validator
 * (`validate-policy.ts`), whose 400 names the rule and the field (`Rule friday-freeze (rules[0])`,
 * contract §4.5); the wire's full rule schema would answer first with a JSON Schema path instead.
 */
const SaveBody = Type.Object(
  {
    rules: Type.Array(Type.Unknown(), { maxItems: 2_000 }),
    activate: Type.Optional(Type.Boolean()),
    replacePacks: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** The API's form of a version: `id` is `<tenantId>/v<version>`. */
export function view(policy: PolicyVersion) {
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
    async (request) => {
      const { versions, review } = await policies.versions(principalOf(request).tenantId);
      return {
        versions: versions.map(view),
        review: { required: review.required, approvals: review.approvals },
      };
    },
  );

  app.post(
    '/authority/policy',
    {
      config: needs('authority:policy:write'),
      schema: { ...wireSchema(WIRE_ROUTES.savePolicy), body: SaveBody },
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
