import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import type { CidrBlock } from '../../foundation/ip-allowlist.js';
import type { PortalUserPrincipal } from '../../identity/principal.js';
import type { PortalService } from '../../portal/portal-service.js';
import { normalizeEmail } from '../../portal/portal-users.js';
import { PORTAL_SESSION, PUBLIC } from '../access.js';
import { requestAddress } from '../client-address.js';
import { addressBucket, LOGIN_LIMIT_PER_MINUTE } from '../rate-limit/limits.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { wireSchema } from '../wire-schema.js';

function portalPrincipalOf(request: FastifyRequest): PortalUserPrincipal {
  const principal = request.principal;
  if (principal?.type !== 'portal_user') {
    throw new AppError('UNAUTHORIZED', 'This route needs a portal session', {
      reason: 'portal_session_required',
    });
  }
  return principal;
}

/** Console sign-in (contract section 2): login, second factor, logout. */
export const portalRoutes: FastifyPluginAsyncTypebox<{
  portal: PortalService;
  limiter: RateLimiter;
  trustProxy: readonly CidrBlock[];
}> = async (app, { portal, limiter, trustProxy }) => {
  app.post(
    '/portal/login',
    {
      config: { access: PUBLIC },
      // 10 attempts a minute per address, before the body is read; per account once it is.
      onRequest: async (request, reply) => {
        const address = addressBucket(requestAddress(request, trustProxy));
        await limiter.enforce(request, reply, [
          { scope: 'login_address', key: `login_address:${address}`, limit: LOGIN_LIMIT_PER_MINUTE },
        ]);
      },
      schema: wireSchema(WIRE_ROUTES.portalLogin),
    },
    async (request, reply) => {
      const { tenantId, email } = request.body;
      await limiter.enforce(request, reply, [
        {
          scope: 'login_account',
          key: `login_account:${tenantId}:${normalizeEmail(email)}`,
          limit: LOGIN_LIMIT_PER_MINUTE,
        },
      ]);
      const result = await portal.login(request.body, requestAddress(request, trustProxy));
      return reply.header('cache-control', 'no-store').send(result);
    },
  );

  app.post(
    '/portal/mfa/enroll',
    {
      config: { access: PORTAL_SESSION },
      schema: wireSchema(WIRE_ROUTES.portalMfaEnroll),
    },
    async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await portal.enroll(portalPrincipalOf(request))),
  );

  app.post(
    '/portal/mfa',
    {
      config: { access: PORTAL_SESSION },
      schema: wireSchema(WIRE_ROUTES.portalMfa),
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send(await portal.verifyMfa(portalPrincipalOf(request), request.body.code)),
  );

  app.post(
    '/portal/logout',
    {
      config: { access: PORTAL_SESSION },
      schema: wireSchema(WIRE_ROUTES.portalLogout),
    },
    async (request, reply) => {
      await portal.logout(portalPrincipalOf(request));
      return reply.code(204).send(null);
    },
  );
};
