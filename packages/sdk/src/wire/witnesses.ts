import { type Static, Type } from 'typebox';
import { Closed, Nullable } from './common.js';

/** The witnesses of a tenant's transparency log (contract §15, C2SP tlog-witness). */

/** At most this many witnesses per tenant: each checkpoint is pushed to every one. */
export const MAX_WITNESSES = 16;

/** One witness as configured: its name, its add-checkpoint base URL and its cosignature key. */
export const WitnessSpec = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The witness's key name; must equal the name of verifierKey",
    }),
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Absolute http(s) base URL: the service POSTs to `<url>/add-checkpoint`, through the egress guard',
    }),
    verifierKey: Type.String({
      minLength: 1,
      maxLength: 400,
      description:
        'The witness verifier key `<name>+<key ID>+<base64(0x04 ‖ Ed25519 public key)>` (cosignature/v1)',
    }),
  },
  Closed,
);
export type WitnessSpec = Static<typeof WitnessSpec>;

/** `PUT /audit/witnesses`: replaces the tenant's witnesses and the quorum a verifier should require. */
export const WitnessConfigRequest = Type.Object(
  {
    witnesses: Type.Array(WitnessSpec, { maxItems: MAX_WITNESSES }),
    quorum: Type.Integer({
      minimum: 0,
      maximum: MAX_WITNESSES,
      description: 'How many witness cosignatures a checkpoint needs; at most the number of witnesses',
    }),
  },
  Closed,
);
export type WitnessConfigRequest = Static<typeof WitnessConfigRequest>;

/** A configured witness with what the service knows of it. */
export const WitnessStatus = Type.Object({
  name: Type.String(),
  url: Type.String(),
  verifierKey: Type.String(),
  cosignedSize: Type.Integer({
    minimum: 0,
    description: 'The tree size the witness last cosigned for this log (0: none yet)',
  }),
  lastError: Nullable(Type.String({ description: 'Why the last push failed, until one succeeds' })),
});
export type WitnessStatus = Static<typeof WitnessStatus>;

/** The tenant's witness configuration. */
export const WitnessConfig = Type.Object({
  witnesses: Type.Array(WitnessStatus),
  quorum: Type.Integer({ minimum: 0 }),
});
export type WitnessConfig = Static<typeof WitnessConfig>;
