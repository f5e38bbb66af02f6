import { type Static, Type } from 'typebox';
import { ChainIndex } from './audit.js';
import { Closed } from './common.js';

/** The size of a tree a proof can be asked of: at least one leaf (contract §15). */
const Size = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
/** A SHA-256 hash as 64 lower-case hex digits. */
const HexHash = Type.String({ pattern: '^[0-9a-f]{64}$' });

/** `GET /audit/:tenantId/proof/inclusion` query: 0 ≤ index < treeSize ≤ the chain length (contract §15). */
export const InclusionProofQuery = Type.Object(
  { index: ChainIndex, treeSize: Size },
  {
    ...Closed,
    description: 'Requires 0 ≤ index < treeSize ≤ the chain length; else 400 naming the parameter',
  },
);
export type InclusionProofQuery = Static<typeof InclusionProofQuery>;

/** An RFC 9162 inclusion proof: the audit path of the leaf, from its sibling up, hex. */
export const InclusionProof = Type.Object({
  index: Type.Integer(),
  treeSize: Type.Integer(),
  leafHash: HexHash,
  proof: Type.Array(HexHash),
});
export type InclusionProof = Static<typeof InclusionProof>;

/** `GET /audit/:tenantId/proof/consistency` query: 1 ≤ from ≤ to ≤ the chain length (contract §15). */
export const ConsistencyProofQuery = Type.Object(
  { from: Size, to: Size },
  { ...Closed, description: 'Requires 1 ≤ from ≤ to ≤ the chain length; from = to answers an empty proof' },
);
export type ConsistencyProofQuery = Static<typeof ConsistencyProofQuery>;

/** An RFC 9162 consistency proof between two tree sizes, hex. */
export const ConsistencyProof = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  proof: Type.Array(HexHash),
});
export type ConsistencyProof = Static<typeof ConsistencyProof>;
