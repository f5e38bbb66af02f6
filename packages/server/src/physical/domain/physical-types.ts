/**
 * Wire vocabulary of the physical surface (spec 02-physical-api.md, contract §9): enumerations, the
 * structured goal, the attested physical state and the classification result. Field names are the
 * specification's, literally. Pure types and constants; the HTTP layer builds its schemas from the
 * enumerations exported here.
 */

export const ACTOR_KINDS = ['robot', 'drone', 'vehicle', 'cobot', 'agv', 'amr', 'rov', 'other'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

export const SAFE_DEFAULTS = [
  'stop',
  'hold-position',
  'request-operator',
  'transition-safe-state',
  'abort-mission',
  'ignore',
] as const;
export type SafeDefault = (typeof SAFE_DEFAULTS)[number];

export const REAL_TIME_TIERS = ['best-effort', 'rt-soft', 'rt-hard'] as const;
export type RealTimeTier = (typeof REAL_TIME_TIERS)[number];
export const DEFAULT_REAL_TIME_TIER: RealTimeTier = 'best-effort';

export const ATTESTATION_PROTOCOLS = [
  'fsoe',
  'profisafe',
  'vendor-pss',
  'opc-ua-safety',
  'ros2-quality-of-service',
  'trusted-bus',
  'untrusted',
] as const;
export type AttestationProtocol = (typeof ATTESTATION_PROTOCOLS)[number];

/** The identity kind of a roster actor when none is given, and of the token's `actorIdentityKind`. */
export const DEFAULT_ACTOR_IDENTITY_KIND = 'ieee-802-1ar-devid';

/** A category code `OI-NNN` or `OI-NNNN`, as the document writes it. */
export const OI_CODE_PATTERN = /^OI-\d{3,4}$/;
/** A safety citation `OI-29NN`. */
export const SAFETY_CITATION_PATTERN = /^OI-29\d{2}$/;

export interface StructuredGoal {
  /** Namespace of the payload; drives which rule matches. */
  schema: string;
  /** Lower-case kebab action. */
  verb: string;
  object?: string | null;
  /** Flat key/value bag; default `{}`. */
  parameters?: Record<string, unknown>;
  actor: { kind: ActorKind; identifier: string };
  /** Edge-side origin time, for the replay window. */
  sourceTimestampMs?: number;
}

export interface Attestation {
  channel: string;
  /** Default false. */
  safetyRated?: boolean;
  /** Default `untrusted`. */
  protocol?: AttestationProtocol;
}

export type PhysicalStateValue =
  | { kind: 'boolean'; value: boolean; asOfTimestampMs: number; attestation: Attestation }
  | { kind: 'number'; value: number; unit?: string; asOfTimestampMs: number; attestation: Attestation }
  | { kind: 'string'; value: string; asOfTimestampMs: number; attestation: Attestation }
  | { kind: 'unavailable'; reason: string; asOfTimestampMs?: number };

/** `physicalState` of a request: predicate name (a path-like string) to its attested value. */
export type PhysicalState = Readonly<Record<string, PhysicalStateValue>>;

export interface ClassificationAlternative {
  oiCode: string;
  confidence: number;
}

/** The classification result, exactly the document's shape. */
export interface ClassificationResult {
  oiCode: string;
  confidence: number;
  safetyBit: boolean;
  safetyCitations: string[];
  alternatives: ClassificationAlternative[];
  failClosed: boolean;
  explanation: string | null;
}
