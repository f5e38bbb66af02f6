import { bodyErrors } from './common.js';
import { route } from './route.js';
import { WitnessConfig, WitnessConfigRequest } from './witnesses.js';

/** The witnesses of the tenant's transparency log (contract §15). */
export const WITNESS_ROUTES = {
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
