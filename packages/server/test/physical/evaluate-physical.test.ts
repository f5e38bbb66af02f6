import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors/app-error.js';
import { classify } from '../../src/physical/domain/classifier.js';
import { compilePhysicalPolicy } from '../../src/physical/domain/compile-physical-policy.js';
import { evaluatePhysical, physicalDenyDetails } from '../../src/physical/domain/evaluate-physical.js';
import { newOperatorTicket, type OperatorTicket } from '../../src/physical/domain/operator-ticket.js';
import type { PhysicalClause } from '../../src/physical/domain/physical-clause.js';
import type { PhysicalStateValue } from '../../src/physical/domain/physical-types.js';
import { clearCell, goal, input, NOW, rated, unrated } from './fixtures.js';

function policyOf(...clauses: PhysicalClause[]) {
  return compilePhysicalPolicy({ clauses });
}

const ALLOW_ALL: PhysicalClause = { id: 'allow-all', effect: 'allow', safeDefault: 'stop' };

describe('states table: authority-token outcomes (default policy)', () => {
  test('policy allows → ALLOW 200 on the deciding allow clause, with the request’s safe default', () => {
    const d = evaluatePhysical(input());
    assert.equal(d.decision, 'ALLOW');
    assert.equal(d.httpStatus, 200);
    assert.equal(d.clauseId, 'allow-when-clear');
    assert.deepEqual(d.clauseIds, ['allow-when-clear']);
    assert.equal(d.safeDefault, 'hold-position');
    assert.equal(d.oiCode, 'OI-1502');
    assert.equal(d.operatorTicketId, null);
  });

  test('policy requires an operator → ESCALATE 200 with the clause’s safe default', () => {
    const g = goal({ verb: 'grasp', object: null });
    const lowConfidence = { ...classify(g), confidence: 0.55 };
    const d = evaluatePhysical(input({ goal: g, classification: lowConfidence }));
    assert.equal(d.decision, 'ESCALATE');
    assert.equal(d.httpStatus, 200);
    assert.equal(d.clauseId, 'escalate-on-low-confidence');
    // allow-when-clear is ALLOW when no other clause fires: not listed beside one that did.
    assert.deepEqual(d.clauseIds, ['escalate-on-low-confidence']);
    assert.equal(d.safeDefault, 'request-operator');
  });

  test('a rule of lower confidence from the corpus escalates under the default policy', () => {
    const g = goal({ schema: 'robot.arm/v1', verb: 'move', object: null });
    const d = evaluatePhysical(input({ goal: g }));
    assert.equal(classify(g).confidence, 0.55);
    assert.equal(d.decision, 'ESCALATE');
  });

  test('policy denies → DENY 422 with the deciding clause and its safe default', () => {
    const d = evaluatePhysical(
      input({ physicalState: { ...clearCell(), 'cell/human-present': rated(true) } }),
    );
    assert.equal(d.decision, 'DENY');
    assert.equal(d.httpStatus, 422);
    assert.equal(d.auditGap, false);
    assert.equal(d.clauseId, 'deny-on-human-in-cell');
    assert.equal(d.safeDefault, 'hold-position');
    assert.ok(d.safetyCitations.includes('OI-2903'));
    assert.equal(d.safetyBit, true);
    assert.deepEqual(physicalDenyDetails(d), {
      decision: 'DENY',
      clauseId: 'deny-on-human-in-cell',
      clauseIds: ['deny-on-human-in-cell'],
      safeDefault: 'hold-position',
      safetyBit: true,
      safetyCitations: ['OI-2903'],
    });
  });

  test('the first firing deny clause in policy order decides; every firing clause is listed', () => {
    const d = evaluatePhysical(
      input({
        physicalState: {
          'safety/emergency-stop': rated(true),
          'safety/light-curtain-breached': rated(true),
          'cell/human-present': rated(false),
        },
      }),
    );
    assert.equal(d.clauseId, 'deny-on-emergency-stop');
    assert.equal(d.safeDefault, 'stop');
    assert.deepEqual(d.clauseIds, ['deny-on-emergency-stop', 'deny-on-light-curtain-breach']);
    assert.deepEqual(d.safetyCitations, ['OI-2901', 'OI-2903']);
  });

  test('classifier fails closed → DENY 422 on classifier-fail-closed, request safe default, explanation', () => {
    const g = goal({ schema: 'acme.kitchen/v1', verb: 'bake' });
    const d = evaluatePhysical(input({ goal: g, requestSafeDefault: 'abort-mission' }));
    assert.equal(d.decision, 'DENY');
    assert.equal(d.httpStatus, 422);
    assert.equal(d.clauseId, 'classifier-fail-closed');
    assert.equal(d.safeDefault, 'abort-mission');
    assert.equal(d.oiCode, 'OI-1800');
    const details = physicalDenyDetails(d);
    assert.equal(details.clauseId, 'classifier-fail-closed');
    assert.match(details.explanation ?? '', /No corpus rule matches verb "bake"/);
  });

  test('an audit-gap clause decides → DENY 423 (auditGap), unless a deny clause fired', () => {
    const gap = evaluatePhysical(input({ unacknowledgedChainBreak: true }));
    assert.equal(gap.decision, 'DENY');
    assert.equal(gap.httpStatus, 423);
    assert.equal(gap.auditGap, true);
    assert.equal(gap.clauseId, 'audit-gap-on-chain-break');
    assert.equal(gap.safeDefault, 'hold-position');

    const both = evaluatePhysical(
      input({
        unacknowledgedChainBreak: true,
        physicalState: { ...clearCell(), 'safety/emergency-stop': rated(true) },
      }),
    );
    assert.equal(both.httpStatus, 422);
    assert.equal(both.clauseId, 'deny-on-emergency-stop');
    assert.deepEqual(both.clauseIds.slice(0, 2), ['audit-gap-on-chain-break', 'deny-on-emergency-stop']);
  });

  test('details carry no explanation unless the classifier decided', () => {
    assert.equal(
      'explanation' in physicalDenyDetails(evaluatePhysical(input({ killSwitchEnabled: true }))),
      false,
    );
    assert.throws(() => physicalDenyDetails(evaluatePhysical(input())), /not a DENY/);
  });
});

describe('built-in clauses', () => {
  test('kill switch → DENY on kill-switch with safe default stop, ahead of everything', () => {
    const d = evaluatePhysical(
      input({ killSwitchEnabled: true, unacknowledgedChainBreak: true, goal: goal({ verb: 'bake' }) }),
    );
    assert.equal(d.clauseId, 'kill-switch');
    assert.equal(d.safeDefault, 'stop');
    assert.equal(d.httpStatus, 422);
    assert.deepEqual(d.clauseIds.slice(0, 3), [
      'kill-switch',
      'classifier-fail-closed',
      'audit-gap-on-chain-break',
    ]);
  });

  test('stale-goal: a source time more than 30 s from the server clock, either way', () => {
    for (const [offset, stale] of [
      [0, false],
      [30_000, false],
      [-30_000, false],
      [30_001, true],
      [-30_001, true],
      [3_600_000, true],
    ] as const) {
      const d = evaluatePhysical(
        input({
          goal: goal({ sourceTimestampMs: NOW - offset }),
          requestSafeDefault: 'transition-safe-state',
        }),
      );
      assert.equal(d.clauseIds.includes('stale-goal'), stale, `offset ${offset}`);
      if (stale) {
        assert.equal(d.clauseId, 'stale-goal');
        assert.equal(d.httpStatus, 422);
        assert.equal(d.safeDefault, 'transition-safe-state');
      } else assert.equal(d.decision, 'ALLOW');
    }
    assert.equal(evaluatePhysical(input({ goal: goal({ sourceTimestampMs: undefined }) })).decision, 'ALLOW');
  });

  test('built-ins cannot be removed: they apply over any tenant policy', () => {
    const policy = policyOf(ALLOW_ALL);
    assert.equal(evaluatePhysical(input({ policy, killSwitchEnabled: true })).clauseId, 'kill-switch');
    assert.equal(
      evaluatePhysical(input({ policy, goal: goal({ verb: 'dance' }) })).clauseId,
      'classifier-fail-closed',
    );
  });
});

describe('fail-closed inputs of the default deny clauses', () => {
  const breakages: Array<[string, PhysicalStateValue | undefined]> = [
    ['missing', undefined],
    ['unavailable', { kind: 'unavailable', reason: 'bus timeout' }],
    [
      'untrusted protocol',
      {
        ...rated(false),
        attestation: { channel: 'x', safetyRated: true, protocol: 'untrusted' },
      } as PhysicalStateValue,
    ],
    [
      'protocol omitted (defaults to untrusted)',
      { ...rated(false), attestation: { channel: 'x', safetyRated: true } } as PhysicalStateValue,
    ],
    ['not safety-rated', unrated(false)],
    [
      'safety-rated flag omitted',
      { ...rated(false), attestation: { channel: 'x', protocol: 'profisafe' } } as PhysicalStateValue,
    ],
    ['older than maxStateAgeMs', rated(false, 1_001)],
    ['dated in the future beyond maxStateAgeMs', rated(false, -1_001)],
  ];
  for (const [name, value] of breakages) {
    test(`${name} → DENY with the clause’s own safe default`, () => {
      const state: Record<string, PhysicalStateValue> = clearCell();
      if (value === undefined) delete state['cell/human-present'];
      else state['cell/human-present'] = value;
      const d = evaluatePhysical(input({ physicalState: state }));
      assert.equal(d.decision, 'DENY');
      assert.equal(d.clauseId, 'deny-on-human-in-cell');
      assert.equal(d.safeDefault, 'hold-position');
      assert.ok(
        d.reasons.some((r) => r.startsWith('deny-on-human-in-cell') && r.includes('fail-closed')),
        d.reasons.join('\n'),
      );
    });
  }

  test('exactly maxStateAgeMs old is still fresh', () => {
    const d = evaluatePhysical(
      input({ physicalState: { ...clearCell(), 'cell/human-present': rated(false, 1_000) } }),
    );
    assert.equal(d.decision, 'ALLOW');
  });

  test('every safety protocol other than untrusted counts when the value is safety-rated', () => {
    for (const protocol of [
      'fsoe',
      'profisafe',
      'vendor-pss',
      'opc-ua-safety',
      'ros2-quality-of-service',
      'trusted-bus',
    ] as const) {
      const state = clearCell();
      state['safety/emergency-stop'] = rated(false, 10, protocol);
      assert.equal(evaluatePhysical(input({ physicalState: state })).decision, 'ALLOW', protocol);
    }
  });

  test('cell clauses apply to robots and cobots only; the emergency stop to every actor', () => {
    const drone = goal({ schema: 'aerial.mission/v1', verb: 'survey', object: null }, 'drone');
    const onlyEstop = { 'safety/emergency-stop': rated(false) };
    assert.equal(evaluatePhysical(input({ goal: drone, physicalState: onlyEstop })).decision, 'ALLOW');
    assert.equal(
      evaluatePhysical(input({ goal: drone, physicalState: {} })).clauseId,
      'deny-on-emergency-stop',
    );
    const cobot = goal({}, 'cobot');
    assert.equal(
      evaluatePhysical(input({ goal: cobot, physicalState: onlyEstop })).clauseId,
      'deny-on-light-curtain-breach',
    );
  });

  test('a caller cannot spoof reserved predicates: the service’s values win', () => {
    const g = goal({ verb: 'grasp', object: null });
    const classification = { ...classify(g), confidence: 0.3 };
    const state = { ...clearCell(), 'classifier/confidence': rated(0.99) };
    assert.equal(
      evaluatePhysical(input({ goal: g, classification, physicalState: state })).decision,
      'ESCALATE',
    );
  });
});

describe('clause semantics', () => {
  const NOT_RATED_DOOR: PhysicalClause = {
    id: 'door-open',
    effect: 'deny',
    when: [{ predicate: 'door/open', op: 'eq', value: true }],
    requireSafetyRated: false,
    safeDefault: 'stop',
  };

  test('requireSafetyRated false: missing is absent, untrusted values are read as they are', () => {
    const policy = policyOf(NOT_RATED_DOOR, ALLOW_ALL);
    assert.equal(evaluatePhysical(input({ policy, physicalState: {} })).decision, 'ALLOW');
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'door/open': unrated(false) } })).decision,
      'ALLOW',
    );
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'door/open': unrated(true) } })).clauseId,
      'door-open',
    );
    // Staleness still fails closed when the clause sets an age limit.
    const aged = policyOf({ ...NOT_RATED_DOOR, maxStateAgeMs: 100 }, ALLOW_ALL);
    assert.equal(
      evaluatePhysical(input({ policy: aged, physicalState: { 'door/open': unrated(false, 101) } })).clauseId,
      'door-open',
    );
  });

  test('an allow clause never fires on failing input: untrusted state cannot open the gate', () => {
    const policy = policyOf({
      id: 'allow-when-guarded',
      effect: 'allow',
      when: [{ predicate: 'cell/guard-closed', op: 'eq', value: true }],
      requireSafetyRated: true,
      safeDefault: 'stop',
    });
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'cell/guard-closed': rated(true) } })).decision,
      'ALLOW',
    );
    const d = evaluatePhysical(input({ policy, physicalState: { 'cell/guard-closed': unrated(true) } }));
    assert.equal(d.clauseId, 'default-deny');
    assert.deepEqual(d.clauseIds, ['default-deny']);
    assert.equal(d.safeDefault, 'hold-position');
  });

  test('default-deny: no allow clause fired, even when an escalate clause did', () => {
    const policy = policyOf({ id: 'ask', effect: 'escalate', safeDefault: 'request-operator' });
    const d = evaluatePhysical(input({ policy }));
    assert.equal(d.decision, 'DENY');
    assert.equal(d.clauseId, 'default-deny');
    assert.deepEqual(d.clauseIds, ['ask', 'default-deny']);
    assert.equal(evaluatePhysical(input({ policy: policyOf() })).clauseId, 'default-deny');
  });

  test('an audit-gap clause fires on a stale predicate it names, and decides 423 even without an allow', () => {
    const recorder: PhysicalClause = {
      id: 'recorder-fresh',
      effect: 'audit-gap',
      // Written to be false in the healthy state: the clause fires when the heartbeat is absent or stale.
      when: [{ predicate: 'recorder/heartbeat', op: 'absent' }],
      requireSafetyRated: false,
      maxStateAgeMs: 5_000,
      safeDefault: 'hold-position',
    };
    const policy = policyOf(recorder, ALLOW_ALL);
    const fresh = { 'recorder/heartbeat': unrated(true, 4_000) };
    assert.equal(evaluatePhysical(input({ policy, physicalState: fresh })).decision, 'ALLOW');
    const stale = evaluatePhysical(
      input({ policy, physicalState: { 'recorder/heartbeat': unrated(true, 6_000) } }),
    );
    assert.deepEqual([stale.httpStatus, stale.clauseId, stale.auditGap], [423, 'recorder-fresh', true]);
    const alone = evaluatePhysical(input({ policy: policyOf(recorder), physicalState: {} }));
    assert.equal(alone.httpStatus, 423, 'a missing heartbeat, no allow clause: the audit gap still decides');
    assert.equal(
      evaluatePhysical(input({ policy: policyOf(recorder), physicalState: fresh })).clauseId,
      'default-deny',
    );
  });

  test('audit-gap with requireSafetyRated (its default) fires on untrusted input, never on a fresh trusted value', () => {
    const policy = policyOf(
      {
        id: 'sync',
        effect: 'audit-gap',
        when: [{ predicate: 'log/synced', op: 'eq', value: false }],
        safeDefault: 'stop',
      },
      ALLOW_ALL,
    );
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'log/synced': rated(true) } })).decision,
      'ALLOW',
    );
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'log/synced': rated(false) } })).decision,
      'ALLOW',
      'a fresh, trusted reading is evidence, whatever its value: no gap (contract §9)',
    );
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'log/synced': unrated(true) } })).httpStatus,
      423,
    );
  });

  test('operators compare like-typed values; absence satisfies only absent', () => {
    const cases: Array<[PhysicalClause['when'], Record<string, PhysicalStateValue>, boolean]> = [
      [[{ predicate: 'v', op: 'lt', value: 5 }], { v: rated(4) }, true],
      [[{ predicate: 'v', op: 'lt', value: 5 }], { v: rated(5) }, false],
      [[{ predicate: 'v', op: 'lte', value: 5 }], { v: rated(5) }, true],
      [[{ predicate: 'v', op: 'gt', value: 5 }], { v: rated(6) }, true],
      [[{ predicate: 'v', op: 'gte', value: 5 }], { v: rated(4) }, false],
      [[{ predicate: 'v', op: 'gt', value: 5 }], { v: rated('9') }, false],
      [[{ predicate: 'v', op: 'eq', value: 'auto' }], { v: rated('auto') }, true],
      [[{ predicate: 'v', op: 'neq', value: 'auto' }], { v: rated('manual') }, true],
      [[{ predicate: 'v', op: 'in', value: ['a', 'b'] }], { v: rated('b') }, true],
      [[{ predicate: 'v', op: 'in', value: ['a', 'b'] }], { v: rated('c') }, false],
      [[{ predicate: 'v', op: 'present' }], { v: rated(false) }, true],
      [[{ predicate: 'v', op: 'present' }], {}, false],
      [[{ predicate: 'v', op: 'absent' }], {}, true],
      [[{ predicate: 'v', op: 'absent' }], { v: { kind: 'unavailable', reason: 'off' } }, true],
      [[{ predicate: 'v', op: 'neq', value: 1 }], {}, false],
      [
        [
          { predicate: 'v', op: 'eq', value: 1 },
          { predicate: 'w', op: 'eq', value: 2 },
        ],
        { v: rated(1), w: rated(2) },
        true,
      ],
      [
        [
          { predicate: 'v', op: 'eq', value: 1 },
          { predicate: 'w', op: 'eq', value: 2 },
        ],
        { v: rated(1), w: rated(3) },
        false,
      ],
    ];
    for (const [when, state, fires] of cases) {
      const policy = policyOf({ id: 'c', effect: 'allow', when, safeDefault: 'stop' });
      assert.equal(
        evaluatePhysical(input({ policy, physicalState: state })).decision === 'ALLOW',
        fires,
        JSON.stringify({ when, state }),
      );
    }
  });

  test('a trusted value that makes one condition false keeps a two-condition deny clause quiet', () => {
    const policy = policyOf(
      {
        id: 'both',
        effect: 'deny',
        when: [
          { predicate: 'a', op: 'eq', value: true },
          { predicate: 'b', op: 'eq', value: true },
        ],
        safeDefault: 'stop',
      },
      ALLOW_ALL,
    );
    assert.equal(evaluatePhysical(input({ policy, physicalState: { b: rated(false) } })).decision, 'ALLOW');
    assert.equal(evaluatePhysical(input({ policy, physicalState: { b: rated(true) } })).clauseId, 'both');
  });

  test('appliesTo: oiCodes, schemas and actor kinds restrict a clause', () => {
    const policy = policyOf(
      { id: 'no-cranes', effect: 'deny', appliesTo: { oiCodes: ['OI-24*'] }, safeDefault: 'stop' },
      {
        id: 'no-legacy',
        effect: 'deny',
        appliesTo: { schemas: ['robot.arm.legacy/*'] },
        safeDefault: 'stop',
      },
      { id: 'no-rov', effect: 'deny', appliesTo: { actorKinds: ['rov'] }, safeDefault: 'stop' },
      ALLOW_ALL,
    );
    assert.equal(evaluatePhysical(input({ policy })).decision, 'ALLOW');
    const crane = goal({ schema: 'crane.tower/v1', verb: 'slew', object: null }, 'vehicle');
    assert.equal(evaluatePhysical(input({ policy, goal: crane })).clauseId, 'no-cranes');
    assert.equal(
      evaluatePhysical(input({ policy, goal: goal({ schema: 'robot.arm.legacy/v0' }) })).clauseId,
      'no-legacy',
    );
    assert.equal(
      evaluatePhysical(input({ policy, goal: goal({ schema: 'robot.arm/v0' }) })).decision,
      'ALLOW',
    );
    const rov = goal({ schema: 'rov.workclass/v1', verb: 'dive', object: null }, 'rov');
    assert.equal(evaluatePhysical(input({ policy, goal: rov })).clauseId, 'no-rov');
  });

  test('goal/oiCode is readable by conditions', () => {
    const policy = policyOf(
      {
        id: 'no-polish',
        effect: 'deny',
        when: [{ predicate: 'goal/oiCode', op: 'eq', value: 'OI-1506' }],
        safeDefault: 'stop',
      },
      ALLOW_ALL,
    );
    assert.equal(evaluatePhysical(input({ policy, goal: goal({ verb: 'polish' }) })).clauseId, 'no-polish');
    assert.equal(evaluatePhysical(input({ policy })).decision, 'ALLOW');
  });
});

describe('caller hypotheses', () => {
  const policy = policyOf(
    { id: 'no-safety-codes', effect: 'deny', appliesTo: { oiCodes: ['OI-29*'] }, safeDefault: 'stop' },
    { id: 'allow-manipulation', effect: 'allow', appliesTo: { oiCodes: ['OI-15*'] }, safeDefault: 'stop' },
  );

  test('a caller code that a deny clause covers turns ALLOW into DENY', () => {
    assert.equal(evaluatePhysical(input({ policy })).decision, 'ALLOW');
    const d = evaluatePhysical(input({ policy, callerOiCodes: ['OI-1502', 'OI-2904'] }));
    assert.equal(d.clauseId, 'no-safety-codes');
    assert.deepEqual(d.hypotheses, ['OI-1502', 'OI-2904']);
    assert.equal(d.oiCode, 'OI-1502', 'the token code stays the classified one');
  });

  test('a caller code no allow clause covers is denied by default', () => {
    const d = evaluatePhysical(input({ policy, callerOiCodes: [undefined, 'OI-1701'] }));
    assert.equal(d.clauseId, 'default-deny');
    assert.ok(d.reasons.includes('[OI-1701] no allow clause fired'));
  });

  test('a caller code cannot lower severity: the classified code is always evaluated', () => {
    const g = goal({ verb: 'emergency-stop', object: null });
    const d = evaluatePhysical(input({ policy, goal: g, callerOiCodes: ['OI-1502', 'OI-1502'] }));
    assert.equal(d.clauseId, 'no-safety-codes');
    assert.deepEqual(d.hypotheses, ['OI-2901', 'OI-1502']);
  });

  test('safetyBit is the OR of the caller’s and the classifier’s; citations merge', () => {
    const g = goal({ verb: 'place', object: null });
    const plain = evaluatePhysical(input({ policy, goal: g }));
    assert.deepEqual([plain.safetyBit, plain.safetyCitations], [false, []]);
    const flagged = evaluatePhysical(
      input({ policy, goal: g, callerSafetyBit: true, callerSafetyCitations: ['OI-2906'] }),
    );
    assert.deepEqual([flagged.safetyBit, flagged.safetyCitations], [true, ['OI-2906']]);
    const omitted = evaluatePhysical(input({ policy, goal: g, callerSafetyCitations: [] }));
    assert.equal(omitted.safetyBit, false, 'an omitted claims.safetyBit counts as false');
    const citedOnly = evaluatePhysical(input({ policy, goal: g, callerSafetyCitations: ['OI-2901'] }));
    assert.deepEqual(
      [citedOnly.safetyBit, citedOnly.safetyCitations],
      [false, ['OI-2901']],
      'citations alone do not set the bit: it is the OR of the two bits, nothing else',
    );
  });

  test('an allow clause’s citations never reach the token; a DENY cites its restrictive clauses', () => {
    const g = goal({ verb: 'place', object: null });
    const citingAllow = policyOf({
      id: 'allow-cited',
      effect: 'allow',
      safeDefault: 'stop',
      citations: ['OI-2904'],
    });
    const allowed = evaluatePhysical(input({ policy: citingAllow, goal: g }));
    assert.equal(allowed.decision, 'ALLOW');
    assert.deepEqual([allowed.safetyBit, allowed.safetyCitations], [false, []]);
    const stop = evaluatePhysical(
      input({ goal: g, physicalState: { ...clearCell(), 'safety/emergency-stop': rated(true) } }),
    );
    assert.equal(stop.clauseId, 'deny-on-emergency-stop');
    assert.deepEqual([stop.safetyBit, stop.safetyCitations], [true, ['OI-2901']]);
  });
});

describe('operator tickets in the authority loop', () => {
  const g = goal({ verb: 'grasp', object: null });
  const classification = { ...classify(g), confidence: 0.5 };

  function approved(overrides: Partial<OperatorTicket> = {}): OperatorTicket {
    const t = newOperatorTicket({
      ticketId: 'esc_0190d7a4-0000-7000-8000-000000000001',
      tenantId: 'acme',
      oiCode: classification.oiCode,
      structuredGoal: { ...g, sourceTimestampMs: NOW - 600_000 },
      nowMs: NOW - 600_000,
    });
    return { ...t, status: 'approved', approvedBy: 'key_1', approvedAtMs: NOW - 300_000, ...overrides };
  }

  const base = () => input({ goal: { ...g, sourceTimestampMs: NOW }, classification });

  test('without a ticket the goal escalates', () => {
    assert.equal(evaluatePhysical(base()).decision, 'ESCALATE');
  });

  test('an approved ticket for the same goal and code allows the re-issue, which names it', () => {
    const ticket = approved();
    const d = evaluatePhysical({ ...base(), operatorTicketId: ticket.ticketId, operatorTicket: ticket });
    assert.equal(d.decision, 'ALLOW');
    assert.equal(d.operatorTicketId, ticket.ticketId);
    assert.equal(d.clauseId, 'allow-when-clear');
    assert.ok(d.reasons.some((r) => r.includes('answers the escalation')));
  });

  test('deny clauses still win over an approved ticket, which is then not redeemed', () => {
    const ticket = approved();
    const d = evaluatePhysical({
      ...base(),
      physicalState: { ...clearCell(), 'safety/emergency-stop': rated(true) },
      operatorTicketId: ticket.ticketId,
      operatorTicket: ticket,
    });
    assert.equal(d.decision, 'DENY');
    assert.equal(d.operatorTicketId, null);
    const killed = evaluatePhysical({
      ...base(),
      killSwitchEnabled: true,
      operatorTicketId: ticket.ticketId,
      operatorTicket: ticket,
    });
    assert.equal(killed.clauseId, 'kill-switch');
  });

  function rejection(ticket: OperatorTicket | undefined, id = ticket?.ticketId ?? 'esc_missing'): AppError {
    try {
      evaluatePhysical({
        ...base(),
        operatorTicketId: id,
        ...(ticket === undefined ? {} : { operatorTicket: ticket }),
      });
    } catch (error) {
      assert.ok(error instanceof AppError);
      return error;
    }
    assert.fail('expected the ticket to be refused');
  }

  test('unknown ticket → 404 not_found (also a record under another id)', () => {
    assert.equal(rejection(undefined).code, 'NOT_FOUND');
    assert.equal(rejection(approved(), 'esc_other').code, 'NOT_FOUND');
  });

  for (const status of ['pending', 'rejected', 'consumed'] as const) {
    test(`a ${status} ticket → 409 conflict with details.status`, () => {
      const error = rejection(approved({ status }));
      assert.equal(error.code, 'CONFLICT');
      assert.deepEqual(error.details, { status });
    });
  }

  test('an approved ticket past expiresAtMs → 409 conflict, status expired', () => {
    const error = rejection(approved({ expiresAtMs: NOW }));
    assert.deepEqual([error.code, error.details?.status], ['CONFLICT', 'expired']);
  });

  test('another goal or another code → 409 conflict', () => {
    assert.equal(
      rejection(approved({ intent: { oiCode: 'OI-1501', structuredGoal: g } })).details?.reason,
      'oi_code_mismatch',
    );
    const other = { ...g, parameters: { speed: 2 } };
    assert.equal(
      rejection(approved({ intent: { oiCode: 'OI-1502', structuredGoal: other } })).details?.reason,
      'goal_mismatch',
    );
  });

  test('an operatorTicketId of null means no ticket', () => {
    assert.equal(evaluatePhysical({ ...base(), operatorTicketId: null }).decision, 'ESCALATE');
  });
});

describe('values of another kind than the condition compares (fail-closed)', () => {
  for (const value of ['true', 'false', '', 1, 0] as const) {
    test(`the emergency stop reported as ${JSON.stringify(value)} → DENY on deny-on-emergency-stop`, () => {
      const state = { ...clearCell(), 'safety/emergency-stop': rated(value) };
      const d = evaluatePhysical(input({ physicalState: state }));
      assert.equal(d.decision, 'DENY');
      assert.equal(d.clauseId, 'deny-on-emergency-stop');
      assert.ok(
        d.reasons.some((r) => r.startsWith('deny-on-emergency-stop') && r.includes('not comparable')),
        d.reasons.join('\n'),
      );
    });
  }

  test('a deny clause comparing numbers fires on a string; an allow clause never fires on a mismatch', () => {
    const tooFast: PhysicalClause = {
      id: 'too-fast',
      effect: 'deny',
      when: [{ predicate: 'arm/speed-mm-s', op: 'gt', value: 250 }],
      safeDefault: 'stop',
    };
    const doorShut: PhysicalClause = {
      id: 'allow-door-not-open',
      effect: 'allow',
      when: [{ predicate: 'door/state', op: 'neq', value: 'open' }],
      requireSafetyRated: true,
      safeDefault: 'stop',
    };
    const deny = policyOf(tooFast, ALLOW_ALL);
    const slow = evaluatePhysical(input({ policy: deny, physicalState: { 'arm/speed-mm-s': rated(100) } }));
    assert.equal(slow.decision, 'ALLOW');
    assert.equal(
      evaluatePhysical(input({ policy: deny, physicalState: { 'arm/speed-mm-s': rated('100') } })).clauseId,
      'too-fast',
    );
    const allow = policyOf(doorShut);
    assert.equal(
      evaluatePhysical(input({ policy: allow, physicalState: { 'door/state': rated('closed') } })).decision,
      'ALLOW',
    );
    // `neq "open"` holds for `false` by value, but a boolean is not what the clause compares.
    const mismatch = evaluatePhysical(
      input({ policy: allow, physicalState: { 'door/state': rated(false) } }),
    );
    assert.equal(mismatch.decision, 'DENY');
    assert.equal(mismatch.clauseId, 'default-deny');
  });

  test('in compares with the kinds of its listed values', () => {
    const modes: PhysicalClause = {
      id: 'deny-manual-modes',
      effect: 'deny',
      when: [{ predicate: 'cell/mode', op: 'in', value: ['manual', 'teach'] }],
      safeDefault: 'stop',
    };
    const policy = policyOf(modes, ALLOW_ALL);
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'cell/mode': rated('auto') } })).decision,
      'ALLOW',
    );
    assert.equal(
      evaluatePhysical(input({ policy, physicalState: { 'cell/mode': rated(2) } })).clauseId,
      'deny-manual-modes',
    );
  });
});

describe('allow-when-clear in the reported clauses', () => {
  test('the default policy’s fallback is listed only when no other clause fired; an uploaded allow always', () => {
    const clear = evaluatePhysical(input());
    assert.deepEqual(clear.clauseIds, ['allow-when-clear']);
    const stopped = evaluatePhysical(
      input({ physicalState: { ...clearCell(), 'safety/emergency-stop': rated(true) } }),
    );
    assert.deepEqual(stopped.clauseIds, ['deny-on-emergency-stop']);
    // An uploaded copy is the tenant's own clause: when it fires, it is reported as firing.
    const uploaded = policyOf(
      {
        id: 'estop',
        effect: 'deny',
        when: [{ predicate: 'safety/emergency-stop', op: 'eq', value: true }],
        safeDefault: 'stop',
      },
      { id: 'allow-when-clear', effect: 'allow', safeDefault: 'stop' },
    );
    const denied = evaluatePhysical(
      input({ policy: uploaded, physicalState: { 'safety/emergency-stop': rated(true) } }),
    );
    assert.equal(denied.clauseId, 'estop');
    assert.deepEqual(denied.clauseIds, ['estop', 'allow-when-clear']);
  });
});
