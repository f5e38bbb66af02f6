import { bodyErrors, tenantErrors } from './common.js';
import { route } from './route.js';
import { WitnessConfig, WitnessConfigRequest } from './witnesses.js';

/** The witnesses of the tenant's transparency log (contract §15). */
export const WITNESS_ROUTES = {
  getWitnesses: route({
    operationId: 'getWitnesses',
    method: 'GET',
    path: '/audit/witnesses',
    tag: 'audit',
    summary:
      "The tenant's log witnesses and quorum, each with the tree size it last cosigned and its last push error",
    security: 'tenant',
    schema: { response: { 200: WitnessConfig, ...tenantErrors } },
  }),
  setWitnesses: route({
    operationId: 'setWitnesses',
    method: 'PUT',
    path: '/audit/witnesses',
    tag: 'audit',
    summary:
      "Replace the tenant's log witnesses (C2SP tlog-witness) and quorum; each new checkpoint is pushed to them; audited",
    security: 'tenant',
    schema: { body: WitnessConfigRequest, response: { 200: WitnessConfig, ...bodyErrors } },
  }),
} as const;
