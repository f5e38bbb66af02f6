import { classify } from '../../src/physical/domain/classifier.js';
import { defaultCompiledPolicy } from '../../src/physical/domain/compile-physical-policy.js';
import type { PhysicalEvaluationInput } from '../../src/physical/domain/evaluate-physical.js';
import type {
  ActorKind,
  AttestationProtocol,
  PhysicalState,
  PhysicalStateValue,
  StructuredGoal,
} from '../../src/physical/domain/physical-types.js';
import type { PhysicalTokenRequest } from '../../src/physical/domain/request-consistency.js';

export const NOW = 1_767_225_600_123;

export function goal(overrides: Partial<StructuredGoal> = {}, kind: ActorKind = 'robot'): StructuredGoal {
  return {
    schema: 'robot.manipulation/v1',
    verb: 'pick',
    object: 'bracket-17',
    parameters: {},
    actor: { kind, identifier: 'devid:arm-7' },
    ...overrides,
  };
}

/** A value from a safety-rated FSoE channel, `ageMs` old. */
export function rated(
  value: boolean | number | string,
  ageMs = 10,
  protocol: AttestationProtocol = 'fsoe',
): PhysicalStateValue {
  const attestation = { channel: 'fsoe:cell-3', safetyRated: true, protocol };
  if (typeof value === 'boolean')
    return { kind: 'boolean', value, asOfTimestampMs: NOW - ageMs, attestation };
  if (typeof value === 'number') return { kind: 'number', value, asOfTimestampMs: NOW - ageMs, attestation };
  return { kind: 'string', value, asOfTimestampMs: NOW - ageMs, attestation };
}

/** A value as the edge reports it without any safety attestation. */
export function unrated(value: boolean, ageMs = 10): PhysicalStateValue {
  return { kind: 'boolean', value, asOfTimestampMs: NOW - ageMs, attestation: { channel: 'mqtt:telemetry' } };
}

/** The three default safety predicates, all clear and trusted. */
export function clearCell(): Record<string, PhysicalStateValue> {
  return {
    'safety/emergency-stop': rated(false),
    'safety/light-curtain-breached': rated(false),
    'cell/human-present': rated(false),
  };
}

export function input(
  overrides: Partial<PhysicalEvaluationInput> & { physicalState?: PhysicalState } = {},
): PhysicalEvaluationInput {
  const g = overrides.goal ?? goal();
  return {
    policy: defaultCompiledPolicy(),
    goal: g,
    classification: classify(g),
    physicalState: clearCell(),
    requestSafeDefault: 'hold-position',
    nowMs: NOW,
    killSwitchEnabled: false,
    unacknowledgedChainBreak: false,
    ...overrides,
  };
}

export function tokenRequest(overrides: Partial<PhysicalTokenRequest> = {}): PhysicalTokenRequest {
  return {
    intent: { structuredGoal: goal() },
    dagNode: { nodeId: 'node-12', oiCode: 'OI-1502', deadlineMs: 1_500, safeDefault: 'hold-position' },
    claims: { actorIdentity: 'devid:arm-7', deadlineMs: 1_500, safeDefault: 'hold-position' },
    physicalState: clearCell(),
    ...overrides,
  };
}
