import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { classify } from '../../src/physical/domain/classifier.js';
import { compilePhysicalPolicy } from '../../src/physical/domain/compile-physical-policy.js';
import { evaluatePhysical, type PhysicalDecision } from '../../src/physical/domain/evaluate-physical.js';
import { newOperatorTicket } from '../../src/physical/domain/operator-ticket.js';
import {
  BUILT_IN_CLAUSES,
  type ClauseCondition,
  type PhysicalClause,
} from '../../src/physical/domain/physical-clause.js';
import {
  ACTOR_KINDS,
  ATTESTATION_PROTOCOLS,
  type PhysicalStateValue,
  type StructuredGoal,
} from '../../src/physical/domain/physical-types.js';
import { NOW } from './fixtures.js';

const PREDICATES = ['cell/a', 'cell/b', 'zone/c', 'hazard/1', 'hazard/2'];
const HAZARDS = ['hazard/1', 'hazard/2', 'hazard/3'];
const RESERVED = ['classifier/confidence', 'classifier/failClosed', 'classifier/safetyBit', 'goal/oiCode'];
const SAFE_DEFAULTS = [
  'stop',
  'hold-position',
  'request-operator',
  'transition-safe-state',
  'abort-mission',
] as const;

const GOALS: StructuredGoal[] = [
  { schema: 'robot.manipulation/v1', verb: 'pick', actor: { kind: 'robot', identifier: 'r' } },
  { schema: 'cobot.ur/v1', verb: 'move-arm', actor: { kind: 'cobot', identifier: 'c' } },
  { schema: 'aerial.mission/v1', verb: 'inspect', actor: { kind: 'drone', identifier: 'd' } },
  { schema: 'crane.tower/v1', verb: 'slew', actor: { kind: 'vehicle', identifier: 'v' } },
  { schema: 'robot.arm/v1', verb: 'emergency-stop', actor: { kind: 'robot', identifier: 'r' } },
  { schema: 'acme.kitchen/v1', verb: 'bake', actor: { kind: 'other', identifier: 'o' } },
];

const timeArb = fc.integer({ min: -4_000, max: 4_000 }).map((offset) => NOW - offset);
const attestationArb = fc.record(
  {
    channel: fc.constantFrom('fsoe:1', 'mqtt:2'),
    safetyRated: fc.boolean(),
    protocol: fc.constantFrom(...ATTESTATION_PROTOCOLS),
  },
  { requiredKeys: ['channel'] },
);
const stateValueArb: fc.Arbitrary<PhysicalStateValue> = fc.oneof(
  fc.record({
    kind: fc.constant('boolean' as const),
    value: fc.boolean(),
    asOfTimestampMs: timeArb,
    attestation: attestationArb,
  }),
  fc.record({
    kind: fc.constant('number' as const),
    value: fc.integer({ min: 0, max: 10 }),
    asOfTimestampMs: timeArb,
    attestation: attestationArb,
  }),
  fc.record({
    kind: fc.constant('string' as const),
    value: fc.constantFrom('a', 'b'),
    asOfTimestampMs: timeArb,
    attestation: attestationArb,
  }),
  fc.record({ kind: fc.constant('unavailable' as const), reason: fc.constant('offline') }),
);
const stateArb = fc.dictionary(fc.constantFrom(...PREDICATES, ...RESERVED), stateValueArb, { maxKeys: 6 });

function conditionArb(predicates: readonly string[]): fc.Arbitrary<ClauseCondition> {
  const predicate = fc.constantFrom(...predicates);
  return fc.oneof(
    fc.record({
      predicate,
      op: fc.constantFrom('eq' as const, 'neq' as const),
      value: fc.oneof(fc.boolean(), fc.integer({ min: 0, max: 10 }), fc.constantFrom('a', 'b')),
    }),
    fc.record({
      predicate,
      op: fc.constantFrom('lt' as const, 'lte' as const, 'gt' as const, 'gte' as const),
      value: fc.integer({ min: 0, max: 10 }),
    }),
    fc.record({
      predicate,
      op: fc.constant('in' as const),
      value: fc.array(fc.constantFrom('a', 'b', true, 3), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ predicate, op: fc.constantFrom('present' as const, 'absent' as const) }),
  );
}

const reservedConditionArb: fc.Arbitrary<ClauseCondition> = fc.oneof(
  fc.record({
    predicate: fc.constant('classifier/confidence'),
    op: fc.constantFrom('lt' as const, 'gte' as const),
    value: fc.constantFrom(0.3, 0.6, 0.9),
  }),
  fc.record({
    predicate: fc.constant('classifier/safetyBit'),
    op: fc.constant('eq' as const),
    value: fc.boolean(),
  }),
  fc.record({
    predicate: fc.constant('goal/oiCode'),
    op: fc.constant('in' as const),
    value: fc.constant(['OI-1502', 'OI-2405']).map((codes) => [...codes]),
  }),
);

function clauseArb(effects: readonly PhysicalClause['effect'][]): fc.Arbitrary<Omit<PhysicalClause, 'id'>> {
  return fc.record(
    {
      effect: fc.constantFrom(...effects),
      appliesTo: fc.record(
        {
          oiCodes: fc.subarray(['OI-15*', 'OI-1502', 'OI-29*', 'OI-1*', 'OI-2405'], { minLength: 1 }),
          actorKinds: fc.subarray([...ACTOR_KINDS], { minLength: 1 }),
        },
        { requiredKeys: [] },
      ),
      when: fc.array(fc.oneof(conditionArb(PREDICATES), reservedConditionArb), { maxLength: 3 }),
      requireSafetyRated: fc.boolean(),
      maxStateAgeMs: fc.integer({ min: 100, max: 3_000 }),
      safeDefault: fc.constantFrom(...SAFE_DEFAULTS),
      citations: fc.subarray(['OI-2901', 'OI-2906']),
    },
    { requiredKeys: ['effect', 'safeDefault'] },
  );
}

const clausesArb = fc
  .array(clauseArb(['allow', 'escalate', 'deny', 'audit-gap']), { maxLength: 8 })
  .map((clauses) => clauses.map((c, i) => ({ id: `t${i}`, ...c }) as PhysicalClause));

const worldArb = fc.record({
  goal: fc.constantFrom(...GOALS),
  state: stateArb,
  confidence: fc.option(fc.constantFrom(0.3, 0.55, 0.75, 0.95), { nil: undefined }),
  killSwitch: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  chainBreak: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  sourceOffset: fc.option(fc.integer({ min: -40_000, max: 40_000 }), { nil: undefined }),
  callerCodes: fc.subarray(['OI-1502', 'OI-2405', 'OI-2901', 'OI-1701']),
});
type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

function decide(
  clauses: PhysicalClause[],
  world: World,
  extra: Partial<Parameters<typeof evaluatePhysical>[0]> = {},
): PhysicalDecision {
  const goal =
    world.sourceOffset === undefined
      ? world.goal
      : { ...world.goal, sourceTimestampMs: NOW + world.sourceOffset };
  const classification = classify(goal);
  return evaluatePhysical({
    policy: compilePhysicalPolicy({ clauses }),
    goal,
    classification:
      world.confidence === undefined ? classification : { ...classification, confidence: world.confidence },
    physicalState: world.state,
    requestSafeDefault: 'hold-position',
    nowMs: NOW,
    killSwitchEnabled: world.killSwitch,
    unacknowledgedChainBreak: world.chainBreak,
    callerOiCodes: world.callerCodes,
    ...extra,
  });
}

/** ALLOW < ESCALATE < DENY (422 and 423 are both denials). */
const RANK: Record<PhysicalDecision['decision'], number> = { ALLOW: 0, ESCALATE: 1, DENY: 2 };

/** A value for `predicate` that a safety-rated clause must not trust. */
const brokenValueArb = (maxAge: number | undefined): fc.Arbitrary<PhysicalStateValue | null> =>
  fc.oneof(
    fc.constant(null),
    fc.constant({ kind: 'unavailable', reason: 'bus down' } as const),
    fc.record({
      kind: fc.constant('boolean' as const),
      value: fc.boolean(),
      asOfTimestampMs: fc.constant(NOW),
      attestation: fc.oneof(
        fc.record({
          channel: fc.constant('x'),
          safetyRated: fc.boolean(),
          protocol: fc.constant('untrusted' as const),
        }),
        fc.record({ channel: fc.constant('x'), safetyRated: fc.boolean() }),
        fc.record({
          channel: fc.constant('x'),
          safetyRated: fc.constant(false),
          protocol: fc.constantFrom(...ATTESTATION_PROTOCOLS),
        }),
        fc.record({ channel: fc.constant('x'), protocol: fc.constantFrom(...ATTESTATION_PROTOCOLS) }),
      ),
    }),
    ...(maxAge === undefined
      ? []
      : [
          fc.record({
            kind: fc.constant('boolean' as const),
            value: fc.boolean(),
            asOfTimestampMs: fc.oneof(
              fc.integer({ min: maxAge + 1, max: maxAge + 100_000 }).map((age) => NOW - age),
              fc.integer({ min: maxAge + 1, max: maxAge + 100_000 }).map((age) => NOW + age),
            ),
            attestation: fc.constant({ channel: 'x', safetyRated: true, protocol: 'fsoe' as const }),
          }),
        ]),
  );

describe('physical evaluation: properties', () => {
  test('a deny clause whose predicates are missing, unavailable, untrusted, not safety-rated or stale never yields ALLOW', () => {
    const denyArb = fc
      .record({
        when: fc.array(conditionArb(HAZARDS), { minLength: 1, maxLength: 3 }),
        maxStateAgeMs: fc.option(fc.integer({ min: 100, max: 2_000 }), { nil: undefined }),
        requireSafetyRated: fc.constantFrom(undefined, true),
        safeDefault: fc.constantFrom(...SAFE_DEFAULTS),
      })
      .chain((d) =>
        fc.tuple(
          fc.constant(d),
          fc.array(brokenValueArb(d.maxStateAgeMs), { minLength: HAZARDS.length, maxLength: HAZARDS.length }),
        ),
      );
    let denied = 0;
    fc.assert(
      fc.property(
        clausesArb,
        fc.nat(),
        denyArb,
        worldArb,
        fc.boolean(),
        (clauses, at, [d, broken], world, withTicket) => {
          const deny: PhysicalClause = { id: 'hazard', effect: 'deny', ...d };
          if (deny.maxStateAgeMs === undefined) delete deny.maxStateAgeMs;
          if (deny.requireSafetyRated === undefined) delete deny.requireSafetyRated;
          const policy = [...clauses];
          policy.splice(at % (policy.length + 1), 0, deny);
          const state: Record<string, PhysicalStateValue> = { ...world.state };
          HAZARDS.forEach((name, i) => {
            const value = broken[i];
            if (value === null || value === undefined) delete state[name];
            else state[name] = value;
          });
          const goal = world.goal;
          const classification = classify(goal);
          const ticket = {
            ...newOperatorTicket({
              ticketId: 'esc_1',
              tenantId: 't',
              oiCode: classification.oiCode,
              structuredGoal: goal,
              nowMs: NOW - 1,
            }),
            status: 'approved' as const,
          };
          const decision = decide(
            policy,
            { ...world, state },
            withTicket ? { operatorTicketId: 'esc_1', operatorTicket: ticket } : {},
          );
          assert.equal(decision.decision, 'DENY');
          assert.equal(decision.httpStatus, 422);
          assert.ok(decision.clauseIds.includes('hazard'));
          assert.equal(decision.operatorTicketId, null);
          denied += 1;
        },
      ),
      { numRuns: 1_000 },
    );
    assert.equal(denied, 1_000);
  });

  test('the outcome does not depend on the order of the tenant clauses; the deciding clause has the winning effect', () => {
    const effectOf = (clauses: PhysicalClause[], id: string) =>
      clauses.find((c) => c.id === id)?.effect ?? BUILT_IN_CLAUSES.find((b) => b.id === id)?.effect ?? 'deny';
    fc.assert(
      fc.property(
        clausesArb.chain((clauses) =>
          fc.tuple(
            fc.constant(clauses),
            fc.shuffledSubarray(clauses, { minLength: clauses.length, maxLength: clauses.length }),
          ),
        ),
        worldArb,
        ([clauses, shuffled], world) => {
          const a = decide(clauses, world);
          const b = decide(shuffled, world);
          for (const field of ['decision', 'httpStatus', 'auditGap', 'safetyBit', 'oiCode'] as const) {
            assert.equal(b[field], a[field], field);
          }
          assert.deepEqual(b.safetyCitations, a.safetyCitations);
          assert.deepEqual([...b.clauseIds].sort(), [...a.clauseIds].sort());
          for (const d of [a, b]) {
            assert.ok(d.clauseIds.includes(d.clauseId));
            const effect = effectOf(clauses, d.clauseId);
            const expected =
              d.decision === 'ALLOW'
                ? 'allow'
                : d.decision === 'ESCALATE'
                  ? 'escalate'
                  : d.httpStatus === 423
                    ? 'audit-gap'
                    : 'deny';
            assert.equal(effect, expected, `${d.clauseId} decided ${d.decision} ${d.httpStatus}`);
            // The deciding clause is the first listed clause with the winning effect.
            if (d.clauseId === 'default-deny') assert.equal(d.clauseIds.at(-1), 'default-deny');
            else
              assert.equal(
                d.clauseIds.find((id) => effectOf(clauses, id) === expected),
                d.clauseId,
              );
            // Most severe wins: nothing more severe than the outcome fired.
            const fired = d.clauseIds.map((id) => effectOf(clauses, id));
            if (d.decision !== 'DENY') assert.ok(!fired.includes('deny') && !fired.includes('audit-gap'));
            if (d.httpStatus === 423) assert.ok(!fired.includes('deny'));
            if (d.decision === 'ALLOW') assert.ok(!fired.includes('escalate') || d.operatorTicketId !== null);
          }
          // Built-ins come first, then the tenant's clauses in policy order.
          const order = new Map<string, number>([
            ...BUILT_IN_CLAUSES.map((c, i) => [c.id, i - 10] as [string, number]),
            ...clauses.map((c, i) => [c.id, i] as [string, number]),
          ]);
          const listed = a.clauseIds
            .filter((id) => id !== 'default-deny')
            .map((id) => order.get(id) ?? Number.NaN);
          assert.deepEqual(
            listed,
            [...listed].sort((x, y) => x - y),
          );
        },
      ),
      { numRuns: 1_000 },
    );
  });

  test('adding a deny, audit-gap or escalate clause never lowers severity; a firing deny clause always decides DENY 422', () => {
    fc.assert(
      fc.property(
        clausesArb,
        clauseArb(['deny', 'audit-gap', 'escalate']),
        fc.nat(),
        worldArb,
        (clauses, extra, at, world) => {
          const before = decide(clauses, world);
          const policy = [...clauses];
          policy.splice(at % (policy.length + 1), 0, { id: 'added', ...extra });
          const after = decide(policy, world);
          assert.ok(RANK[after.decision] >= RANK[before.decision], `${before.decision} → ${after.decision}`);
          if (extra.effect === 'deny' && after.clauseIds.includes('added')) {
            assert.deepEqual([after.decision, after.httpStatus], ['DENY', 422]);
          }
          if (before.decision === 'DENY' && before.httpStatus === 422 && before.clauseId !== 'default-deny') {
            assert.equal(after.httpStatus, 422, 'a deny decision stays a 422');
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  test('caller hypotheses never lower severity', () => {
    fc.assert(
      fc.property(clausesArb, worldArb, (clauses, world) => {
        const alone = decide(clauses, { ...world, callerCodes: [] });
        const withCaller = decide(clauses, world);
        assert.ok(RANK[withCaller.decision] >= RANK[alone.decision]);
        assert.equal(withCaller.oiCode, alone.oiCode);
      }),
      { numRuns: 1_000 },
    );
  });
});
