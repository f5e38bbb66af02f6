import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpMetrics } from '../../http/metrics.js';
import type { PhysicalIssuance } from '../use-cases/physical-issuance.js';
import type { PhysicalPolicyStore } from '../use-cases/physical-policy-store.js';
import type { PhysicalServices } from '../use-cases/physical-services.js';
import { physicalActorRoutes } from './physical-actors.js';
import { physicalApprovalRoutes } from './physical-approvals.js';
import { physicalAuditRoutes } from './physical-audit.js';
import { physicalAuthorityRoutes } from './physical-authority.js';
import { physicalJwksRoutes } from './physical-jwks.js';
import { physicalPolicyRoutes } from './physical-policy.js';
import { physicalRevocationRoutes } from './physical-revocations.js';
import { physicalSnapshotRoutes } from './physical-snapshots.js';

/**
 * Every route of the physical surface (`/v1/physical/*` and its JWKS): signer keys, roster,
 * tickets, audit and verification reports, revocations, snapshots, then the decision endpoints
 * (classify, authority-tokens) and the clause policy.
 */
export const physicalRoutes: FastifyPluginAsyncTypebox<{
  physical: PhysicalServices;
  issuance: PhysicalIssuance;
  policies: PhysicalPolicyStore;
  metrics: HttpMetrics;
}> = async (app, { physical, issuance, policies, metrics }) => {
  await app.register(physicalJwksRoutes, { signer: physical.signer });
  await app.register(physicalActorRoutes, { actors: physical.actors });
  await app.register(physicalApprovalRoutes, {
    tickets: physical.tickets,
    ticketRequests: physical.ticketRequests,
  });
  await app.register(physicalAuditRoutes, { audit: physical.audit });
  await app.register(physicalRevocationRoutes, { revocations: physical.revocations });
  await app.register(physicalSnapshotRoutes, {
    snapshots: physical.snapshots,
    idempotency: physical.idempotency,
  });
  await app.register(physicalAuthorityRoutes, { issuance, idempotency: physical.idempotency, metrics });
  await app.register(physicalPolicyRoutes, { policies });
};
