import type { TSchema } from 'typebox';
import * as approvals from './approvals.js';
import * as audit from './audit.js';
import { ErrorEnvelope, ValidationIssue } from './common.js';
import * as connectors from './connectors.js';
import * as evaluate from './evaluate.js';
import * as intent from './intent.js';
import * as keys from './keys.js';
import * as physical from './physical.js';
import * as physicalRequest from './physical-request.js';
import * as policy from './policy.js';
import * as tenant from './tenant.js';
import * as tokens from './tokens.js';
import * as webhooks from './webhooks.js';

function isTypeBoxSchema(value: unknown): value is TSchema {
  return typeof value === 'object' && value !== null && '~kind' in value;
}

function named(...modules: ReadonlyArray<Record<string, unknown>>): Readonly<Record<string, TSchema>> {
  const out: Record<string, TSchema> = {};
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) if (isTypeBoxSchema(value)) out[name] = value;
  }
  return Object.freeze(out);
}

/**
 * Every named schema of the wire contract, by the name it is exported under: the names of the
 * OpenAPI document's `components.schemas`. A generator replaces each occurrence of one of these
 * objects in a route schema by a `$ref` to its component.
 *
 * @example
 * ```ts
 * import { WIRE_COMPONENTS } from '@authority-runtime/sdk/wire';
 *
 * Object.keys(WIRE_COMPONENTS).includes('IntentResponse'); // true
 * ```
 */
export const WIRE_COMPONENTS = named(
  { ErrorEnvelope, ValidationIssue },
  intent,
  approvals,
  evaluate,
  tokens,
  policy,
  audit,
  keys,
  webhooks,
  connectors,
  tenant,
  physicalRequest,
  physical,
);
