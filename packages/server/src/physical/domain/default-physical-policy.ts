/**
 * The policy a tenant has until it uploads its own (contract §9); `GET /physical/policy` then
 * answers `{active: DEFAULT_PHYSICAL_POLICY, version: 0, activatedAt: null}`. Clause ids are fixed
 * by the contract; the descriptions are ours.
 */
import type { PhysicalClause, PhysicalPolicyDocument } from './physical-clause.js';

export const DEFAULT_POLICY_VERSION = 0;

/** The default policy's last clause: ALLOW when no other clause fires. */
export const ALLOW_WHEN_CLEAR = 'allow-when-clear';

/** Age limit of the safety inputs the default deny clauses read. */
export const DEFAULT_SAFETY_STATE_MAX_AGE_MS = 1_000;

/** Confidence below which the default policy asks an operator. */
export const DEFAULT_LOW_CONFIDENCE_BELOW = 0.6;

const CLAUSES: PhysicalClause[] = [
  {
    id: 'deny-on-emergency-stop',
    description:
      'Deny while the emergency stop is engaged, or when its state is not known from a safety-rated channel.',
    effect: 'deny',
    when: [{ predicate: 'safety/emergency-stop', op: 'eq', value: true }],
    maxStateAgeMs: DEFAULT_SAFETY_STATE_MAX_AGE_MS,
    safeDefault: 'stop',
    citations: ['OI-2901'],
  },
  {
    id: 'deny-on-light-curtain-breach',
    description: 'Deny arm motion while a light curtain of the cell reports a breach.',
    effect: 'deny',
    appliesTo: { actorKinds: ['robot', 'cobot'] },
    when: [{ predicate: 'safety/light-curtain-breached', op: 'eq', value: true }],
    maxStateAgeMs: DEFAULT_SAFETY_STATE_MAX_AGE_MS,
    safeDefault: 'stop',
    citations: ['OI-2903'],
  },
  {
    id: 'deny-on-human-in-cell',
    description: 'Deny while a person is detected inside the robot cell.',
    effect: 'deny',
    appliesTo: { actorKinds: ['robot', 'cobot'] },
    when: [{ predicate: 'cell/human-present', op: 'eq', value: true }],
    maxStateAgeMs: DEFAULT_SAFETY_STATE_MAX_AGE_MS,
    safeDefault: 'hold-position',
    citations: ['OI-2903'],
  },
  {
    id: 'escalate-on-low-confidence',
    description: 'Ask an operator when the classifier is not sure what the goal is.',
    effect: 'escalate',
    when: [{ predicate: 'classifier/confidence', op: 'lt', value: DEFAULT_LOW_CONFIDENCE_BELOW }],
    safeDefault: 'request-operator',
  },
  {
    id: ALLOW_WHEN_CLEAR,
    description: 'Allow when no other clause fires (every other clause is more severe).',
    effect: 'allow',
    safeDefault: 'stop',
  },
];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export const DEFAULT_PHYSICAL_POLICY: Readonly<PhysicalPolicyDocument> = deepFreeze({
  description: 'Default physical policy: deny on emergency stop, light-curtain breach and human in cell.',
  clauses: CLAUSES,
});
