import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { validationError } from '../../errors/app-error.js';
import { decodeIdCursor, nextIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { Nullable, tenantSecurity } from '../../http/schemas.js';
import { ACTOR_KINDS } from '../domain/index.js';
import type { PhysicalActors } from '../use-cases/physical-actors.js';
import { ACTOR_STATUSES } from '../use-cases/physical-actors.js';
import { DEFAULT_PAGE_LIMIT, Millis, PageQuery, physicalErrors } from './physical-schemas.js';

/** Largest `metadata`, measured as the UTF-8 length of its JSON. */
const MAX_METADATA_BYTES = 16 * 1024;

const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f]+$';

const ActorSchema = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  actorIdentity: Type.String(),
  actorIdentityKind: Type.String(),
  actorKind: Type.Enum(ACTOR_KINDS),
  displayName: Nullable(Type.String()),
  status: Type.Enum(ACTOR_STATUSES),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  createdAtMs: Millis,
  updatedAtMs: Millis,
});

const RegistrationSchema = Type.Object(
  {
    actorIdentity: Type.String({ minLength: 1, maxLength: 256, pattern: NO_CONTROL_CHARACTERS }),
    actorKind: Type.Enum(ACTOR_KINDS),
    actorIdentityKind: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: NO_CONTROL_CHARACTERS,
        description: 'Default ieee-802-1ar-devid',
      }),
    ),
    displayName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    status: Type.Optional(Type.Enum(ACTOR_STATUSES, { description: 'Default active' })),
  },
  { additionalProperties: false },
);

/** The tenant's roster of physical actors (document 02 "Actors", contract §9). */
export const physicalActorRoutes: FastifyPluginAsyncTypebox<{ actors: PhysicalActors }> = async (
  app,
  { actors },
) => {
  app.post(
    '/physical/actors',
    {
      config: needs('physical:actors:write'),
      schema: {
        tags: ['physical'],
        summary:
          'Register an actor, or update it: idempotent on actorIdentity; omitted fields keep their values',
        security: tenantSecurity,
        body: RegistrationSchema,
        response: { 200: ActorSchema, ...physicalErrors },
      },
    },
    async (request) => {
      const { metadata } = request.body;
      if (metadata != null && Buffer.byteLength(JSON.stringify(metadata), 'utf8') > MAX_METADATA_BYTES) {
        throw validationError([
          { path: '/metadata', message: `metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON` },
        ]);
      }
      const principal = principalOf(request);
      return actors.register(principal.tenantId, principal, request.body);
    },
  );

  app.get(
    '/physical/actors',
    {
      config: needs('physical:actors:read'),
      schema: {
        tags: ['physical'],
        summary: 'The roster, most recently registered first',
        security: tenantSecurity,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: Type.Object({ actors: Type.Array(ActorSchema), nextCursor: Nullable(Type.String()) }),
          ...physicalErrors,
        },
      },
    },
    async (request) => {
      const page = await actors.list(principalOf(request).tenantId, {
        limit: request.query.limit ?? DEFAULT_PAGE_LIMIT,
        before: decodeIdCursor(request.query.cursor),
      });
      return {
        actors: page.actors,
        nextCursor: nextIdCursor(page.actors, page.hasMore, (actor) => actor.id),
      };
    },
  );
};
