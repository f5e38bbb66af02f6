import { WIRE_COMPONENTS, WIRE_ROUTE_LIST } from '@authority-runtime/sdk/wire';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerAjvFormats, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Redis } from 'ioredis';
import { observeCheckpointLag } from '../audit/checkpoint-metrics.js';
import type { Config } from '../config/config.js';
import { countConnectorExecutions } from '../connectors/connector-metrics.js';
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../foundation/clock.js';
import { VERSION } from '../foundation/version.js';
import { PUBLIC } from '../http/access.js';
import { type AccessControl, checkAccess, checkTenantReferences } from '../http/authentication.js';
import { clientErrorHandler } from '../http/client-error.js';
import { isCorsPreflightRoute, registerCors } from '../http/cors.js';
import { sendError, toAppError } from '../http/error-envelope.js';
import { createHttpMetrics, observePool } from '../http/metrics.js';
import { openApiOptions } from '../http/openapi.js';
import { counterStore } from '../http/rate-limit/counter-store.js';
import { createRateLimiter } from '../http/rate-limit/rate-limiter.js';
import { registerBodyParsers } from '../http/request-body.js';
import { requestIdFor, stripVersionPrefix } from '../http/request-id.js';
import { loggedRequest, requestLogController, traceRequests } from '../http/request-tracing.js';
import { type RegisteredRoute, recordRoute } from '../http/route-table.js';
import { adminRoutes } from '../http/routes/admin.js';
import { auditRoutes } from '../http/routes/audit.js';
import { authorityKeyRoutes } from '../http/routes/authority-keys.js';
import { connectorRoutes } from '../http/routes/connectors.js';
import { consoleRoutes, defaultConsoleDir } from '../http/routes/console.js';
import { healthRoutes } from '../http/routes/health.js';
import { ipAllowlistRoutes } from '../http/routes/ip-allowlist.js';
import { jwksRoutes } from '../http/routes/jwks.js';
import { keyRoutes } from '../http/routes/keys.js';
import { portalRoutes } from '../http/routes/portal.js';
import { tenantRoutes } from '../http/routes/tenant.js';
import { tenantControlRoutes } from '../http/routes/tenant-controls.js';
import { transparencyRoutes } from '../http/routes/transparency.js';
import { webhookRoutes } from '../http/routes/webhooks.js';
import { witnessRoutes } from '../http/routes/witnesses.js';
import { strictTypeBoxValidatorCompiler } from '../http/validator-compiler.js';
import { approvalRoutes } from '../intent/routes/approvals.js';
import { authorityEvaluateRoutes } from '../intent/routes/authority-evaluate.js';
import { budgetRoutes } from '../intent/routes/budgets.js';
import { intentEvidenceRoutes } from '../intent/routes/intent-evidence.js';
import { intentRoutes } from '../intent/routes/intents.js';
import { policyRoutes } from '../intent/routes/policy.js';
import { policyReviewRoutes } from '../intent/routes/policy-review.js';
import { policySimulationRoutes } from '../intent/routes/policy-simulation.js';
import { thresholdRoutes } from '../intent/routes/thresholds.js';
import { tokenRoutes } from '../intent/routes/tokens.js';
import { physicalRoutes } from '../physical/routes/physical-routes.js';
import type { Storage } from '../storage/database.js';
import { countWebhookDeliveries, observeWebhookOutbox } from '../webhooks/webhook-metrics.js';
import { observeDecisionCommits, observePendingApprovals } from './decision-metrics.js';
import { createServices, type Services } from './services.js';

/**
 * Path parameters are ids of up to 200 characters (actor ids, §4.1), percent-encoded up to 12
 * characters each: find-my-way's default of 100 refused longer ones before authentication (400
 * without issues, and 404 instead of 405 for a wrong method).
 */
const MAX_PARAM_LENGTH = 2_400;
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** How long a closing server keeps answering 503 on open connections before it closes the idle ones. */
export const DRAIN_MS = 1_000;
const DRAIN_POLL_MS = 25;

function openConnections(app: App): Promise<number> {
  return new Promise((resolve) => app.server.getConnections((error, count) => resolve(error ? 0 : count)));
}
/** How often lapsed escalations are written down as EXPIRED (reads already show them expired). */
const APPROVAL_SWEEP_MS = 15_000;
/** How often the counters of past budget windows are deleted (contract §16). */
const BUDGET_SWEEP_MS = 600_000;

export interface ServerDeps {
  config: Config;
  storage: Storage;
  clock: Clock;
  /** 32 bytes (AUTHORITY_MASTER_KEY, or the embedded key file). */
  masterKey: Buffer;
  redis?: Redis | undefined;
  /** Fastify logger options; tests pass false. */
  logger?: FastifyServerOptions['logger'];
  /** Prebuilt services (tests keep a handle on them); built from the deps otherwise. */
  services?: Services;
  /** Background jobs (checkpoint sweeps); tests that drive them by hand turn them off. */
  backgroundJobs?: boolean;
  /** The console's build folder (default: the `@authority-runtime/console` workspace's `dist`). */
  consoleDir?: string | undefined;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

registerAjvFormats();

/**
 * Whether a route matched with an empty parameter (`/intent/` against `/intent/:id`): no declared
 * path has one (every id is at least one character), so such a path is unknown, 404, rather than
 * a sibling's 405 or 400. The console's and the docs' wildcards (`*`) may be empty.
 */
function hasEmptyParam(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false;
  return Object.entries(params).some(([name, value]) => name !== '*' && value === '');
}

function notFound(method: string, url: string): AppError {
  return new AppError('NOT_FOUND', `Route ${method} ${url.split('?')[0] ?? '/'} not found`);
}

/** The logger's options with the request serializer that never logs a query value. */
function loggerOptions(logger: ServerDeps['logger']): ServerDeps['logger'] {
  if (logger === undefined || logger === false) return false;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: loggedRequest } };
}

/** Builds the HTTP application without listening, so tests drive it with inject() or a real port. */
export async function buildServer(deps: ServerDeps): Promise<App> {
  const { config, storage, clock } = deps;
  const app = Fastify({
    logger: loggerOptions(deps.logger),
    logController: requestLogController(),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: requestIdFor,
    requestIdHeader: false,
    rewriteUrl: (req) => stripVersionPrefix(req.url ?? '/'),
    trustProxy: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // While closing, requests get 503 in our envelope (the onRequest hook below), not Fastify's.
    return503OnClosing: false,
    // What Node's HTTP parser refuses is answered in the envelope too, with a request id.
    clientErrorHandler,
    // Errors Fastify raises before routing (a malformed URL) bypass setErrorHandler; render them here.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      sendError(request, reply, toAppError(error).appError);
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  traceRequests(app);
  app.setValidatorCompiler(strictTypeBoxValidatorCompiler);
  app.decorateRequest('principal', null);
  app.decorateRequest('clientAddress', null);
  app.decorateRequest('rateLimits', null);
  const registeredRoutes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', registeredRoutes);

  const metrics = createHttpMetrics();
  const services =
    deps.services ??
    createServices({
      config,
      storage,
      clock,
      masterKey: deps.masterKey,
      onBackgroundError: (error) => app.log.warn({ err: error }, 'background work failed'),
    });
  const accessControl: AccessControl = {
    authenticator: services.authenticator,
    portal: services.portal,
    tenantAccess: services.tenantAccess,
    limiter: createRateLimiter({
      store: counterStore(deps, (error) => app.log.warn({ err: error }, 'rate-limit counters unavailable')),
      rateLimitPerIp: config.rateLimitPerIp,
      registry: metrics.registry,
    }),
    trustProxy: config.trustProxy,
    adminToken: config.adminToken,
  };

  registerBodyParsers(app);

  // The methods each path takes, so a known path called with another method answers 405 with
  // `allow` (contract §1) rather than 404. Fastify's own router is not public; this one mirrors it.
  const methods = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  const knownMethods = new Set<HTTPMethod>();

  // Every route must say who may call it; routes added by plugins (the docs UI) are public.
  app.addHook('onRoute', (route) => {
    if (isCorsPreflightRoute(route.method, route.url)) {
      // Answered by the CORS hook before routing; it is no path of the API and takes no 405.
      route.config = { ...(route.config ?? {}), access: PUBLIC };
      return;
    }
    for (const method of typeof route.method === 'string' ? [route.method] : route.method) {
      methods.on(method as HTTPMethod, route.url, () => {});
      knownMethods.add(method as HTTPMethod);
    }
    if (route.url.startsWith('/docs')) {
      route.config = { ...(route.config ?? {}), access: PUBLIC };
      route.schema = { ...(route.schema ?? {}), hide: true };
    }
    if (route.config?.access === undefined)
      throw new Error(`route ${route.method} ${route.url} declares no access`);
    recordRoute(registeredRoutes, route.method, route.url, route.config.access);
  });

  // Shutdown drains before the listener closes: until no connection is open, or for DRAIN_MS at
  // most, requests in flight finish and every new request, on a new or a kept-alive connection, is
  // answered 503 with `connection: close` (below); only then are the connections still idle
  // closed. Closing idle keep-alive connections at once resets the requests clients send on them.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    if (!app.server.listening) return;
    app.log.info('shutting down: new requests get 503 while the requests in flight finish');
    const deadline = Date.now() + DRAIN_MS;
    while (Date.now() < deadline && (await openConnections(app)) > 0) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
    app.log.info({ openConnections: await openConnections(app) }, 'drained; closing the listener');
  });
  /** 405 with `allow` when the path takes other methods, else 404 (contract §1). */
  const answerUnrouted = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...knownMethods].filter((method) => {
      const match = methods.find(method, path);
      return match !== null && !hasEmptyParam(match.params);
    });
    if (allowed.length > 0) {
      reply.header('allow', allowed.sort().join(', '));
      return sendError(
        request,
        reply,
        new AppError(
          'METHOD_NOT_ALLOWED',
          `${path} does not take ${request.method}; it takes ${allowed.join(', ')}`,
        ),
      );
    }
    return sendError(request, reply, notFound(request.method, request.url));
  };
  app.setNotFoundHandler(answerUnrouted);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      // Expected while draining: answered here, not thrown, so it is not logged as a failure.
      reply.header('connection', 'close');
      return sendError(request, reply, new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    }
    if (hasEmptyParam(request.params)) throw notFound(request.method, request.url);
  });
  // CORS before access checks, so that refusals carry its headers and preflights need no credential.
  if (config.corsOrigins.length > 0) await registerCors(app, config.corsOrigins);
  // 404 and 405 come first (contract §1): answered here, with CORS headers but before any limit,
  // credential or body (a malformed or oversized body on an unknown route is still 404).
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return answerUnrouted(request, reply);
  });
  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (access === undefined) return;
    request.principal = await checkAccess(request, reply, accessControl, access);
  });

  app.addHook('preValidation', async (request) => {
    // An absent body is an empty object to the schema: optional-only bodies (verify-chain) accept
    // it, and required fields are reported by name rather than as "must be object".
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) request.body = {};
    if (request.principal !== null) checkTenantReferences(request, request.principal);
    // An id with NUL in it names nothing (and PostgreSQL could not even look it up).
    const params = request.params as Record<string, unknown> | undefined;
    if (params && Object.values(params).some((v) => typeof v === 'string' && v.includes('\u0000'))) {
      throw new AppError('NOT_FOUND');
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error, request, reply) => {
    if (request.raw.destroyed && (error as { code?: unknown }).code === 'ECONNRESET') {
      // The client closed the connection before its body arrived: nothing failed here, and the
      // answer has nowhere to go. Not an error of the service (nor an unreachable database).
      request.log.info({ requestId: request.id }, 'the client closed the request before its body arrived');
      return reply.code(400).send();
    }
    const { appError, unexpected } = toAppError(error);
    if (unexpected) request.log.error({ err: error, requestId: request.id }, 'request failed');
    reply.header('x-request-id', request.id);
    return sendError(request, reply, appError);
  });

  await app.register(
    swagger,
    openApiOptions(VERSION, () => app.registeredRoutes, {
      routes: WIRE_ROUTE_LIST,
      components: WIRE_COMPONENTS,
    }),
  );
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply
          .header('content-security-policy', "frame-ancestors 'none'")
          .header('x-frame-options', 'DENY')
          .header('x-content-type-options', 'nosniff');
        done();
      },
    },
  });

  await app.register(healthRoutes, { config, storage, redis: deps.redis, metrics });
  await app.register(tenantRoutes, { tenants: services.tenants });
  await app.register(ipAllowlistRoutes, {
    tenantAccess: services.tenantAccess,
    trustProxy: config.trustProxy,
  });
  await app.register(portalRoutes, {
    portal: services.portal,
    limiter: accessControl.limiter,
    trustProxy: config.trustProxy,
  });
  await app.register(keyRoutes, { keys: services.apiKeys });
  await app.register(authorityKeyRoutes, { signingKeys: services.signingKeys, secrets: services.secrets });
  await app.register(jwksRoutes, { tenants: services.tenants, signingKeys: services.signingKeys });
  await app.register(tokenRoutes, { tokenConsumption: services.tokenConsumption });
  await app.register(auditRoutes, { audit: services.audit });
  await app.register(witnessRoutes, { witnesses: services.witnessSettings });
  await app.register(transparencyRoutes, { tenants: services.tenants, transparency: services.transparency });
  await app.register(intentEvidenceRoutes, { intentEvidence: services.intentEvidence });
  await app.register(tenantControlRoutes, { controls: services.controls });
  await app.register(thresholdRoutes, { thresholds: services.thresholds });
  await app.register(budgetRoutes, { budgets: services.budgets });
  await app.register(intentRoutes, {
    decisionLoop: services.decisionLoop,
    intentReads: services.intentReads,
    metrics,
  });
  await app.register(approvalRoutes, { approvals: services.approvals });
  await app.register(policyRoutes, { policies: services.policies });
  await app.register(policySimulationRoutes, { simulate: services.policySimulation });
  await app.register(policyReviewRoutes, { reviews: services.policyReviews });
  await app.register(authorityEvaluateRoutes, { permissionEvaluation: services.permissionEvaluation });
  await app.register(webhookRoutes, { webhooks: services.webhooks });
  await app.register(connectorRoutes, { connectors: services.connectors });
  await app.register(physicalRoutes, {
    physical: services.physical,
    issuance: services.physicalIssuance,
    policies: services.physicalPolicies,
    metrics,
  });
  await app.register(consoleRoutes, { root: deps.consoleDir ?? defaultConsoleDir() });
  countWebhookDeliveries(metrics.registry, services.webhookWorker);
  // A failed delivery is a log line too: retried (info), or given up on (warn, a dead letter).
  services.webhookWorker.onAttempt((status, attempt) => {
    if (status === 'retrying')
      app.log.info({ webhook: attempt }, 'webhook delivery failed; it will be retried');
    if (status === 'dead')
      app.log.warn(
        { webhook: attempt },
        'webhook delivery dead: no more retries (redeliver it after fixing the receiver)',
      );
  });
  countConnectorExecutions(metrics.registry, services.connectors);
  observeDecisionCommits(metrics.registry, [services.decisionLoop, services.physicalIssuance]);
  // The pool is read first in a scrape, before the gauges below put their queries on it.
  observePool(metrics.registry, storage);
  observePendingApprovals(metrics.registry, storage, clock);
  observeWebhookOutbox(metrics.registry, storage);
  observeCheckpointLag(metrics.registry, storage, clock);
  if (config.adminToken !== undefined) await app.register(adminRoutes, { tenants: services.tenants });

  if (deps.backgroundJobs !== false) {
    // Checkpoints are due by count (1,000 entries) or by time; a short sweep covers both.
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      timer = setInterval(
        () => {
          services.checkpointer
            .sweep()
            .catch((error: unknown) => app.log.warn({ err: error }, 'checkpoint sweep failed'));
        },
        Math.min(config.checkpointIntervalMs, 1_000),
      );
      timer.unref();
    });
    app.addHook('onClose', async () => clearInterval(timer));

    // Escalations past their deadline read as expired at once; the sweep writes the expiry down,
    // with its audit entry and decision.denied event.
    let approvalTimer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      approvalTimer = setInterval(() => {
        services.approvals
          .sweepExpired()
          .catch((error: unknown) => app.log.warn({ err: error }, 'escalation expiry sweep failed'));
      }, APPROVAL_SWEEP_MS);
      approvalTimer.unref();
    });
    app.addHook('onClose', async () => clearInterval(approvalTimer));

    // Budget counters of past windows are never read again: a sweep keeps the table to two days.
    let budgetTimer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      budgetTimer = setInterval(() => {
        services.budgets
          .sweepPast()
          .catch((error: unknown) => app.log.warn({ err: error }, 'budget counter sweep failed'));
      }, BUDGET_SWEEP_MS);
      budgetTimer.unref();
    });
    app.addHook('onClose', async () => clearInterval(budgetTimer));

    // Webhook deliveries: every instance polls; claims keep them from sending one delivery twice.
    app.addHook('onReady', async () => services.webhookWorker.start(config.webhookPollMs));
    app.addHook('onClose', async () => services.webhookWorker.stop());

    // Witness pushes (contract §15): a checkpoint this instance signs is pushed at once; every
    // instance also polls (failed pushes, checkpoints another instance signed). A duplicate push is
    // answered 409 or cosigned again.
    let stopPrompting: (() => void) | undefined;
    app.addHook('onReady', async () => {
      stopPrompting = services.transparency.onCheckpointSigned((tenantId) =>
        services.witnessPusher.checkpointSigned(tenantId),
      );
      services.witnessPusher.start(config.webhookPollMs);
    });
    app.addHook('onClose', async () => {
      stopPrompting?.();
      await services.witnessPusher.stop();
    });

    // Connector health: every instance polls for due checks; claims keep a check from running twice.
    app.addHook('onReady', async () =>
      services.connectorHealth.start(Math.min(config.connectorHealthIntervalMs, 1_000)),
    );
    app.addHook('onClose', async () => services.connectorHealth.stop());
  }

  return app;
}
