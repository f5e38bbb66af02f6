import { type Static, Type } from 'typebox';

/** Most reports one `POST /v1/physical/verifications` takes. */
export const MAX_REPORTS_PER_BATCH = 500;

/** One report of an edge verifier (contract §9); `jti` only in the batch form. */
export const VerificationReportSchema = Type.Object(
  {
    edgeNodeId: Type.String({ minLength: 1, maxLength: 200 }),
    result: Type.Enum(['accepted', 'rejected']),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    atMs: Type.Integer({ minimum: 0, description: 'When the edge verified the token (edge clock), ms' }),
  },
  { additionalProperties: false },
);
export type VerificationReport = Static<typeof VerificationReportSchema>;

export const BatchReportSchema = Type.Object(
  {
    jti: Type.String({ minLength: 1, maxLength: 200 }),
    ...VerificationReportSchema.properties,
  },
  { additionalProperties: false },
);
export type BatchReport = Static<typeof BatchReportSchema>;

/** A report as an audit entry lists it. */
export interface Verification {
  atMs: number;
  edgeNodeId: string;
  result: 'accepted' | 'rejected';
  reason?: string;
}
