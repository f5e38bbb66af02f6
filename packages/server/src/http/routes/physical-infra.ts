import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import { physicalActorRoutes } from './physical-actors.js';
import { physicalApprovalRoutes } from './physical-approvals.js';
import { physicalAuditRoutes } from './physical-audit.js';
import { physicalJwksRoutes } from './physical-jwks.js';
import { physicalRevocationRoutes } from './physical-revocations.js';
import { physicalSnapshotRoutes } from './physical-snapshots.js';

/**
 * The physical surface around the decision endpoints: signer keys, roster, tickets, audit and
 * verification reports, revocations and snapshots. The decision endpoints register separately.
 */
export const physicalInfraRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (
  app,
  options,
) => {
  await app.register(physicalJwksRoutes, options);
  await app.register(physicalActorRoutes, options);
  await app.register(physicalApprovalRoutes, options);
  await app.register(physicalAuditRoutes, options);
  await app.register(physicalRevocationRoutes, options);
  await app.register(physicalSnapshotRoutes, options);
};
