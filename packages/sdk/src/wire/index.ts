/**
 * The wire contract of Authority Runtime, written once: TypeBox schemas (JSON Schema) of every
 * request and answer of both surfaces, with their static types, the route catalogue and the wire
 * vocabulary. Import it as `@authority-runtime/sdk/wire`; the package root re-exports the types.
 */
export * from './approvals.js';
export * from './audit.js';
export * from './common.js';
export * from './components.js';
export * from './connectors.js';
export * from './constants.js';
export * from './evaluate.js';
export * from './intent.js';
export * from './keys.js';
export * from './physical.js';
export * from './physical-request.js';
export * from './policy.js';
export * from './route.js';
export * from './routes.js';
export * from './routes-intent.js';
export * from './routes-physical.js';
export * from './routes-platform.js';
export * from './routes-records.js';
export * from './tenant.js';
export * from './tokens.js';
export * from './webhooks.js';
export * from './witnesses.js';
