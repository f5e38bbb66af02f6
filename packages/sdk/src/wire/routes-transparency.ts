import { Type } from 'typebox';
import { ErrorEnvelope, PublicTenantParams, TenantParams, tenantErrors } from './common.js';
import { route } from './route.js';
import {
  ConsistencyProof,
  ConsistencyProofQuery,
  InclusionProof,
  InclusionProofQuery,
} from './transparency.js';

/** The transparency log of each tenant's chain (contract §15): log key, checkpoint note, proofs. */
export const TRANSPARENCY_ROUTES = {
  getLogKey: route({
    operationId: 'getLogKey',
    method: 'GET',
    path: '/.well-known/authority/:tenantId/log-key',
    tag: 'audit',
    summary: "The tenant's log verifier key (C2SP signed-note, Ed25519): one line of text",
    security: 'public',
    produces: 'text/plain',
    schema: {
      params: PublicTenantParams,
      response: {
        200: Type.String({
          description: '<origin>+<key ID, 8 hex digits>+<base64(0x01 ‖ public key)> and a newline',
        }),
        404: ErrorEnvelope,
        429: ErrorEnvelope,
      },
    },
  }),
  getLogCheckpoint: route({
    operationId: 'getLogCheckpoint',
    method: 'GET',
    path: '/audit/:tenantId/checkpoint',
    tag: 'audit',
    summary: 'The signed checkpoint note (C2SP tlog-checkpoint) of the current chain length',
    security: 'tenant',
    produces: 'text/plain',
    schema: {
      params: TenantParams,
      response: {
        200: Type.String({
          description: 'origin, tree size, base64 root hash, an empty line, signature lines',
        }),
        ...tenantErrors,
      },
    },
  }),
  getInclusionProof: route({
    operationId: 'getInclusionProof',
    method: 'GET',
    path: '/audit/:tenantId/proof/inclusion',
    tag: 'audit',
    summary: 'RFC 9162 inclusion proof of entry `index` in the tree of `treeSize` entries',
    security: 'tenant',
    schema: {
      params: TenantParams,
      querystring: InclusionProofQuery,
      response: { 200: InclusionProof, ...tenantErrors },
    },
  }),
  getConsistencyProof: route({
    operationId: 'getConsistencyProof',
    method: 'GET',
    path: '/audit/:tenantId/proof/consistency',
    tag: 'audit',
    summary: 'RFC 9162 consistency proof from the tree of `from` entries to the tree of `to` entries',
    security: 'tenant',
    schema: {
      params: TenantParams,
      querystring: ConsistencyProofQuery,
      response: { 200: ConsistencyProof, ...tenantErrors },
    },
  }),
} as const;
