import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validationError } from '../../errors/app-error.js';
import { decodeIdCursor, nextIdCursor } from '../../foundation/cursor.js';
import { needs } from '../../http/access.js';
import { principalOf } from '../../http/principal.js';
import { wireSchema } from '../../http/wire-schema.js';
import type { PhysicalActors } from '../use-cases/physical-actors.js';
import { DEFAULT_PAGE_LIMIT } from './physical-schemas.js';

/** Largest `metadata`, measured as the UTF-8 length of its JSON. */
const MAX_METADATA_BYTES = 16 * 1024;

const _NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f]+$';

/** The tenant's roster of physical actors (document 02 "Actors", contract §9). */
export const physicalActorRoutes: FastifyPluginAsyncTypebox<{ actors: PhysicalActors }> = async (
  app,
  { actors },
) => {
  app.post(
    '/physical/actors',
    {
      config: needs('physical:actors:write'),
      schema: wireSchema(WIRE_ROUTES.registerPhysicalActor),
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
      schema: wireSchema(WIRE_ROUTES.listPhysicalActors),
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
