import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { IsoDateTime, tenantErrors, tenantSecurity } from '../../http/schemas.js';
import { getPack, POLICY_PACKS } from '../../policy/packs.js';
import type { PolicyStore, PolicyVersion } from '../use-cases/policy-store.js';

export const PolicyVersionSchema = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  active: Type.Boolean(),
  rules: Type.Array(Type.Unknown()),
  packs: Type.Array(Type.String()),
  createdAt: IsoDateTime,
  createdBy: Type.String(),
  activatedAt: Type.Union([IsoDateTime, Type.Null()]),
  status: Type.Union([
    Type.Literal('draft'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('active'),
    Type.Literal('inactive'),
  ]),
  author: Type.String(),
  reviews: Type.Array(
    Type.Object({
      principalId: Type.String(),
      decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
      comment: Type.String(),
      createdAt: IsoDateTime,
    }),
  ),
  requiredApprovals: Type.Union([Type.Integer(), Type.Null()]),
});
const PackSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  rules: Type.Array(Type.Unknown()),
});
const errors = { ...tenantErrors, 409: tenantErrors[404] };

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
      schema: {
        tags: ['policy'],
        summary: "The tenant's active policy version (the starter pack until changed)",
        security: tenantSecurity,
        response: { 200: PolicyVersionSchema, ...errors },
      },
    },
    async (request) => view(await policies.activeView(principalOf(request).tenantId)),
  );

  app.get(
    '/authority/policy/versions',
    {
      config: needs('authority:policy:read'),
      schema: {
        tags: ['policy'],
        summary: 'Every policy version, newest first',
        security: tenantSecurity,
        response: {
          200: Type.Object({
            versions: Type.Array(PolicyVersionSchema),
            review: Type.Object({ required: Type.Boolean(), approvals: Type.Integer() }),
          }),
          ...errors,
        },
      },
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
      schema: {
        tags: ['policy'],
        summary:
          'Save a new policy version (validated; pack rules kept unless replacePacks); activate defaults to false',
        security: tenantSecurity,
        body: Type.Object(
          {
            rules: Type.Array(Type.Unknown(), { maxItems: 2_000 }),
            activate: Type.Optional(Type.Boolean()),
            replacePacks: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: PolicyVersionSchema, ...errors },
      },
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
      schema: {
        tags: ['policy'],
        summary:
          'Activate a stored policy version (409 review_required without its approvals; a rollback needs none)',
        security: tenantSecurity,
        params: Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
        response: { 200: PolicyVersionSchema, ...errors },
      },
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
      schema: {
        tags: ['policy'],
        summary: 'The catalog of policy packs',
        security: tenantSecurity,
        response: { 200: Type.Object({ packs: Type.Array(PackSchema) }), ...errors },
      },
    },
    async () => ({ packs: POLICY_PACKS.map((p) => ({ ...p, rules: [...p.rules] })) }),
  );

  app.post(
    '/policy-packs/install',
    {
      config: needs('authority:policy:write'),
      schema: {
        tags: ['policy'],
        summary:
          'Install a pack: a new version with the active rules plus the pack (activate defaults to true)',
        security: tenantSecurity,
        body: Type.Object(
          { pack: Type.String({ minLength: 1, maxLength: 100 }), activate: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ pack: PackSchema, policy: PolicyVersionSchema }), ...errors },
      },
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
      schema: {
        tags: ['policy'],
        summary: 'Packs installed in the active policy version',
        security: tenantSecurity,
        response: {
          200: Type.Object({
            packs: Type.Array(
              Type.Object({ id: Type.String(), name: Type.String(), version: Type.String() }),
            ),
          }),
          ...errors,
        },
      },
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
