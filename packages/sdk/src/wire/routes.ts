import type { WireRoute } from './route.js';
import { INTENT_ROUTES } from './routes-intent.js';
import { PHYSICAL_ROUTES } from './routes-physical.js';
import { PLATFORM_ROUTES } from './routes-platform.js';
import { RECORD_ROUTES } from './routes-records.js';
import { WITNESS_ROUTES } from './routes-witnesses.js';

/**
 * Every route of the service, keyed by `operationId`: both surfaces, the operator (`/admin`) and
 * console (`/portal`) routes, health and the public key sets. The service validates with these
 * schemas and documents them in its OpenAPI document; the client's types are derived from them.
 *
 * @example
 * ```ts
 * import { WIRE_ROUTES } from '@authority-runtime/sdk/wire';
 *
 * const { method, path } = WIRE_ROUTES.submitIntent; // 'POST', '/intent'
 * ```
 */
export const WIRE_ROUTES = {
  ...INTENT_ROUTES,
  ...RECORD_ROUTES,
  ...PLATFORM_ROUTES,
  ...PHYSICAL_ROUTES,
  ...WITNESS_ROUTES,
} as const;

/** The operation ids of {@link WIRE_ROUTES}. */
export type OperationId = keyof typeof WIRE_ROUTES;

/** {@link WIRE_ROUTES} as a list, for code that walks every route. */
export const WIRE_ROUTE_LIST: readonly WireRoute[] = Object.values(WIRE_ROUTES);
