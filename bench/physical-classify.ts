// In-process latency of the physical classifier (median and p99 of one classification) over a
// realistic mix of structured goals from every corpus area, plus out-of-corpus goals; beside it,
// the whole pure decision (classification, built-ins and the default policy over an attested state)
// and the validation + compilation of a 2,000-clause uploaded policy.
// Run: npx tsx --conditions=development bench/physical-classify.ts [--seconds 1]
import { parseArgs } from 'node:util';
import { classify, createClassifier } from '../packages/server/src/physical/domain/classifier.js';
import { CLASSIFIER_CORPUS } from '../packages/server/src/physical/domain/classifier-corpus.js';
import {
  compilePhysicalPolicy,
  defaultCompiledPolicy,
} from '../packages/server/src/physical/domain/compile-physical-policy.js';
import { evaluatePhysical } from '../packages/server/src/physical/domain/evaluate-physical.js';
import type { PhysicalClause } from '../packages/server/src/physical/domain/physical-clause.js';
import type {
  ActorKind,
  PhysicalStateValue,
  StructuredGoal,
} from '../packages/server/src/physical/domain/physical-types.js';
import { machineLine } from './machine.js';
import { formatMicros, measure, type Stats } from './micro-timer.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const seconds = Number(values.seconds);

const timed = (work: (i: number) => unknown, budgetSeconds = seconds, maxSamples = 500_000): Stats =>
  measure(work, budgetSeconds, maxSamples);
const us = (value: number) => formatMicros(value);
const cell = (s: Stats) => `median ${us(s.median)}  p99 ${us(s.p99)}  (${s.n} samples)`;

// ---------------------------------------------------------------- goals

/** Goals as edge agents send them: vendor schema versions, mixed case, objects with ids. */
const AREA_GOALS: Array<[string, string, string | null, ActorKind]> = [
  ['robot.manipulation/v1', 'pick', 'bracket-17', 'robot'],
  ['cobot.ur/v2', 'hand-over', 'torque wrench to operator', 'cobot'],
  ['ros2.moveit/humble', 'move-to-pose', 'pre-grasp', 'robot'],
  ['ros2.nav2/humble', 'navigate-to', 'dock-4', 'amr'],
  ['robot.quadruped/spot-3.2', 'climb-stairs', null, 'robot'],
  ['industrial.line/v1', 'set-line-speed', 'line-2', 'robot'],
  ['opcua.plant/v1', 'open', 'coolant-valve-2', 'other'],
  ['cnc.fanuc/v3', 'start-spindle', 'S1', 'other'],
  ['aerial.mission/v1', 'takeoff', null, 'drone'],
  ['mavlink.px4/v2', 'follow-waypoints', 'survey-grid-7', 'drone'],
  ['uas.delivery/v1', 'winch-down', 'parcel 8812', 'drone'],
  ['surgical.console/v1', 'suture', 'port-3', 'robot'],
  ['medical.table/v1', 'tilt-table', null, 'robot'],
  ['vda5050/2.0.0', 'travel', 'station-12', 'agv'],
  ['forklift.agv/v1', 'lift-pallet', 'P-000913', 'agv'],
  ['warehouse.g2p/v1', 'pick-tote', 'T-7781', 'amr'],
  ['vehicle.av/v1', 'change-lane', 'left', 'vehicle'],
  ['road.shuttle/v1', 'disengage-autopilot', null, 'vehicle'],
  ['grid.substation/v1', 'open', 'Breaker Q12', 'other'],
  ['energy.bess/v1', 'discharge-battery', 'rack-3', 'other'],
  ['mining.openpit/v1', 'fire-blast', 'bench-14', 'vehicle'],
  ['mining.aht/v1', 'haul', 'ore to crusher', 'vehicle'],
  ['construction.excavator/v1', 'trench', 'utility corridor', 'vehicle'],
  ['crane.tower/v1', 'slew', null, 'other'],
  ['marine.usv/v1', 'set-course', '045', 'other'],
  ['rov.workclass/v1', 'launch-rov', null, 'rov'],
  ['port.sts-crane/v1', 'unload-container', 'MSCU 123456 7', 'other'],
  ['agriculture.tractor/v1', 'harvest', 'field 12', 'vehicle'],
  ['isobus/tc', 'engage-pto', null, 'vehicle'],
  ['industrial.cell/v1', 'mute', 'Light-Curtain-3', 'robot'],
  ['robot.arm/v1', 'emergency-stop', null, 'robot'],
  ['robot.arm/v1', 'move', 'home', 'robot'],
];
/** About one goal in eight is outside the corpus, as with an agent that was not onboarded yet. */
const OUT_OF_CORPUS: Array<[string, string, string | null, ActorKind]> = [
  ['acme.kitchen/v1', 'bake', 'bread', 'other'],
  ['acme.private/v9', 'pick', null, 'robot'],
  ['robot.manipulation/v1', 'dance', null, 'robot'],
  ['grid.substation/v1', 'open', 'the pod bay doors', 'other'],
];

function goalOf(
  [schema, verb, object, kind]: [string, string, string | null, ActorKind],
  i: number,
): StructuredGoal {
  return {
    schema: i % 5 === 0 ? schema.toUpperCase() : schema,
    verb,
    object,
    parameters: { speed: 0.2 + (i % 7) / 10 },
    actor: { kind, identifier: `devid:${kind}-${i % 50}` },
  };
}

const GOALS: StructuredGoal[] = Array.from({ length: 1024 }, (_, i) => {
  const pool = i % 8 === 7 ? OUT_OF_CORPUS : AREA_GOALS;
  return goalOf(pool[(i * 7919) % pool.length] as [string, string, string | null, ActorKind], i);
});

// ---------------------------------------------------------------- run

console.log(`machine: ${machineLine()}`);
console.log(
  `${CLASSIFIER_CORPUS.length} corpus rules; ${GOALS.length} goals (${GOALS.filter((g) => classify(g).failClosed).length} out of corpus); ${seconds} s per measurement`,
);

const compileStart = process.hrtime.bigint();
createClassifier();
console.log(
  `corpus compile                   ${(Number(process.hrtime.bigint() - compileStart) / 1e6).toFixed(2)} ms`,
);

const classifyStats = timed((i) => classify(GOALS[i & 1023] as StructuredGoal));
console.log(`classify                         ${cell(classifyStats)}`);

const now = 1_767_225_600_000;
const attested = (value: boolean): PhysicalStateValue => ({
  kind: 'boolean',
  value,
  asOfTimestampMs: now - 20,
  attestation: { channel: 'fsoe:cell', safetyRated: true, protocol: 'fsoe' },
});
const state = {
  'safety/emergency-stop': attested(false),
  'safety/light-curtain-breached': attested(false),
  'cell/human-present': attested(false),
  'arm/joint-torque-nm': {
    kind: 'number',
    value: 12.5,
    unit: 'N·m',
    asOfTimestampMs: now - 5,
    attestation: { channel: 'ethercat' },
  },
} satisfies Record<string, PhysicalStateValue>;
const policy = defaultCompiledPolicy();
const decide = (i: number) => {
  const goal = GOALS[i & 1023] as StructuredGoal;
  return evaluatePhysical({
    policy,
    goal,
    classification: classify(goal),
    callerOiCodes: ['OI-1502'],
    physicalState: state,
    requestSafeDefault: 'hold-position',
    nowMs: now,
    killSwitchEnabled: false,
    unacknowledgedChainBreak: false,
  });
};
const outcomes = new Map<string, number>();
for (let i = 0; i < 1024; i += 1) {
  const d = decide(i);
  outcomes.set(d.decision, (outcomes.get(d.decision) ?? 0) + 1);
}
const decideStats = timed(decide);
console.log(
  `classify + evaluate (default)    ${cell(decideStats)}  outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`,
);

const clauses: PhysicalClause[] = Array.from({ length: 2_000 }, (_, i) => ({
  id: `clause-${i}`,
  effect: i % 10 === 0 ? 'deny' : i % 10 === 1 ? 'escalate' : 'allow',
  appliesTo: { oiCodes: [`OI-${15 + (i % 14)}*`], actorKinds: ['robot', 'cobot'] },
  when: [{ predicate: `cell/sensor-${i % 40}`, op: 'eq', value: true }],
  maxStateAgeMs: 1_000,
  safeDefault: 'stop',
}));
const uploadStats = timed(() => compilePhysicalPolicy({ clauses }), seconds, 200);
console.log(`validate + compile 2,000 clauses ${cell(uploadStats)}`);
