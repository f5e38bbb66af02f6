import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.js';
import type { CidrBlock } from '../../foundation/ip-allowlist.js';
import type { PortalUserPrincipal } from '../../identity/principal.js';
import { MAX_PASSWORD_LENGTH } from '../../portal/password-hash.js';
import type { PortalService } from '../../portal/portal-service.js';
import { MAX_EMAIL_LENGTH, normalizeEmail } from '../../portal/portal-users.js';
import { PORTAL_SESSION, PUBLIC } from '../access.js';
import { requestAddress } from '../client-address.js';
import { addressBucket, LOGIN_LIMIT_PER_MINUTE } from '../rate-limit/limits.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { ErrorResponse, IsoDateTime, RoleSchema, tenantErrors } from '../schemas.js';

const portalSecurity: Array<Record<string, string[]>> = [{ portalSession: [] }];

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
      schema: {
        tags: ['portal'],
        summary: 'Sign a console user in; 10 attempts a minute per address and per account; failures audited',
        body: Type.Object(
          {
            tenantId: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,62}$' }),
            email: Type.String({ minLength: 3, maxLength: MAX_EMAIL_LENGTH }),
            password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            sessionId: Type.String({ description: 'Send as x-portal-session-id; shown only here' }),
            mfaRequired: Type.Boolean({
              description: 'The session must pass POST /portal/mfa before routes outside /portal/*',
            }),
            mfaEnrolled: Type.Boolean(),
            expiresAt: IsoDateTime,
            user: Type.Object({ id: Type.String(), email: Type.String(), role: RoleSchema }),
          }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          429: ErrorResponse,
          500: ErrorResponse,
          503: ErrorResponse,
        },
      },
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
      schema: {
        tags: ['portal'],
        summary:
          'Start TOTP enrollment: a new secret as an otpauth URI, active once POST /portal/mfa confirms it',
        security: portalSecurity,
        response: {
          200: Type.Object({
            otpauthUri: Type.String(),
            secret: Type.String({ description: 'The same secret in base32, for manual entry' }),
          }),
          ...tenantErrors,
        },
      },
    },
    async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await portal.enroll(portalPrincipalOf(request))),
  );

  app.post(
    '/portal/mfa',
    {
      config: { access: PORTAL_SESSION },
      schema: {
        tags: ['portal'],
        summary:
          'Verify a TOTP code for the session (each code is accepted once); confirms a pending enrollment and issues a new sessionId',
        security: portalSecurity,
        body: Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            mfaVerified: Type.Literal(true),
            enrolled: Type.Boolean(),
            sessionId: Type.String({
              description: 'The session from now on: the id used for this request has ended',
            }),
          }),
          409: ErrorResponse,
          ...tenantErrors,
        },
      },
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
      schema: {
        tags: ['portal'],
        summary: 'End the session',
        security: portalSecurity,
        response: { 204: Type.Null(), ...tenantErrors },
      },
    },
    async (request, reply) => {
      await portal.logout(portalPrincipalOf(request));
      return reply.code(204).send(null);
    },
  );
};
