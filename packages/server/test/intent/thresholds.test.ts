import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_THRESHOLDS,
  defaultThresholdsRecord,
  type MergeResult,
  mergeThresholds,
  type ThresholdSettings,
  thresholdSignals,
  validateThresholds,
} from '../../src/intent/domain/thresholds.js';
import { SIGNAL_PRIORITY } from '../../src/policy/most-severe-wins.js';

const defaults = (): ThresholdSettings => structuredClone({ ...DEFAULT_THRESHOLDS });

function ok(result: MergeResult): ThresholdSettings {
  assert.ok(result.ok, `expected success, got ${JSON.stringify(result)}`);
  return result.value;
}

function issues(result: MergeResult): Array<{ path: string; message: string }> {
  assert.ok(!result.ok, `expected failure, got ${JSON.stringify(result)}`);
  return result.issues;
}

function paths(result: MergeResult): string[] {
  return issues(result).map((issue) => issue.path);
}

describe('thresholds: defaults', () => {
  it('are the contract defaults', () => {
    assert.deepEqual(DEFAULT_THRESHOLDS, {
      escalateAt: 60,
      denyAt: 90,
      modifiers: { privileged: 20, production: 20, sensitive: 15 },
      lowConfidenceEscalateBelow: 0.5,
      approvalTtlSeconds: 3600,
      tokenTtlSeconds: 300,
    });
    assert.deepEqual(validateThresholds(DEFAULT_THRESHOLDS), []);
  });

  it('make a record for a tenant that never changed them', () => {
    const record = defaultThresholdsRecord('acme');
    assert.deepEqual(record, { tenantId: 'acme', ...DEFAULT_THRESHOLDS, updatedAt: null, updatedBy: null });
    record.modifiers.privileged = 1;
    assert.equal(DEFAULT_THRESHOLDS.modifiers.privileged, 20, 'the defaults are not shared');
  });
});

describe('thresholds: merge', () => {
  it('keeps the current record for an empty patch', () => {
    assert.deepEqual(ok(mergeThresholds(defaults(), {})), DEFAULT_THRESHOLDS);
  });

  it('replaces only the patched fields', () => {
    const merged = ok(mergeThresholds(defaults(), { escalateAt: 50, tokenTtlSeconds: 120 }));
    assert.deepEqual(merged, { ...DEFAULT_THRESHOLDS, escalateAt: 50, tokenTtlSeconds: 120 });
  });

  it('merges modifiers key by key', () => {
    const merged = ok(mergeThresholds(defaults(), { modifiers: { production: 40 } }));
    assert.deepEqual(merged.modifiers, { privileged: 20, production: 40, sensitive: 15 });
    assert.deepEqual(
      ok(mergeThresholds(defaults(), { modifiers: {} })).modifiers,
      DEFAULT_THRESHOLDS.modifiers,
    );
  });

  it('merges onto the current record, not the defaults', () => {
    const current = { ...defaults(), escalateAt: 10, denyAt: 20 };
    assert.deepEqual(ok(mergeThresholds(current, { denyAt: 30 })), { ...current, denyAt: 30 });
    assert.deepEqual(paths(mergeThresholds(current, { denyAt: 5 })), ['/denyAt']);
  });

  it('does not mutate its inputs', () => {
    const current = defaults();
    const patch = { modifiers: { sensitive: 1 }, escalateAt: 1 };
    const before = structuredClone({ current, patch });
    ok(mergeThresholds(current, patch));
    assert.deepEqual({ current, patch }, before);
  });

  it('accepts and ignores the server-owned fields of a record read back', () => {
    const record = { ...defaultThresholdsRecord('acme'), escalateAt: 70, updatedAt: '2026-01-01T00:00:00Z' };
    assert.deepEqual(ok(mergeThresholds(defaults(), record)), { ...DEFAULT_THRESHOLDS, escalateAt: 70 });
    assert.deepEqual(ok(mergeThresholds(defaults(), { updatedBy: null })), DEFAULT_THRESHOLDS);
    assert.deepEqual(paths(mergeThresholds(defaults(), { tenantId: 5 })), ['/tenantId']);
    assert.deepEqual(paths(mergeThresholds(defaults(), { updatedAt: 5 })), ['/updatedAt']);
  });

  it('refuses unknown fields at both levels', () => {
    assert.deepEqual(paths(mergeThresholds(defaults(), { escalateAT: 50 })), ['/escalateAT']);
    assert.deepEqual(paths(mergeThresholds(defaults(), { modifiers: { privilege: 5 } })), [
      '/modifiers/privilege',
    ]);
    assert.deepEqual(paths(mergeThresholds(defaults(), { a: 1, b: 2 })), ['/a', '/b']);
    assert.match(issues(mergeThresholds(defaults(), { a: 1 }))[0]?.message ?? '', /not a known field/);
  });

  it('refuses a patch that is not an object and fields of the wrong type', () => {
    for (const patch of [null, [], 'x', 5, undefined]) {
      assert.deepEqual(paths(mergeThresholds(defaults(), patch)), ['/'], JSON.stringify(patch));
    }
    assert.deepEqual(paths(mergeThresholds(defaults(), { escalateAt: '50' })), ['/escalateAt']);
    assert.deepEqual(paths(mergeThresholds(defaults(), { escalateAt: null })), ['/escalateAt']);
    assert.deepEqual(paths(mergeThresholds(defaults(), { modifiers: 5 })), ['/modifiers']);
    assert.deepEqual(paths(mergeThresholds(defaults(), { modifiers: [] })), ['/modifiers']);
    assert.deepEqual(paths(mergeThresholds(defaults(), { modifiers: { privileged: true } })), [
      '/modifiers/privileged',
    ]);
  });
});

describe('thresholds: bounds', () => {
  const cases: Array<[string, (value: number) => Record<string, unknown>, number[], number[]]> = [
    ['/escalateAt', (v) => ({ escalateAt: v, denyAt: 101 }), [0, 0.5, 60, 101], [-1, -0.001, 101.5, 102]],
    ['/denyAt', (v) => ({ escalateAt: 0, denyAt: v }), [0, 42.5, 90, 101], [-1, 101.01, 1000]],
    ['/modifiers/privileged', (v) => ({ modifiers: { privileged: v } }), [0, 1, 100], [-1, 101, 20.5]],
    ['/modifiers/production', (v) => ({ modifiers: { production: v } }), [0, 100], [-1, 101, 0.1]],
    ['/modifiers/sensitive', (v) => ({ modifiers: { sensitive: v } }), [0, 100], [-1, 101, 99.9]],
    [
      '/lowConfidenceEscalateBelow',
      (v) => ({ lowConfidenceEscalateBelow: v }),
      [0, 0.3, 0.95, 1],
      [-0.01, 1.01, 2],
    ],
    ['/approvalTtlSeconds', (v) => ({ approvalTtlSeconds: v }), [60, 3600, 604_800], [59, 604_801, 60.5, 0]],
    ['/tokenTtlSeconds', (v) => ({ tokenTtlSeconds: v }), [1, 300], [0, 301, 1.5, -1]],
  ];
  for (const [path, patch, good, bad] of cases) {
    it(`${path}: accepts ${good.join(', ')} and refuses ${bad.join(', ')}`, () => {
      for (const value of good) ok(mergeThresholds(defaults(), patch(value)));
      for (const value of bad)
        assert.deepEqual(paths(mergeThresholds(defaults(), patch(value))), [path], `${value}`);
    });
  }

  it('requires escalateAt ≤ denyAt, equality allowed', () => {
    ok(mergeThresholds(defaults(), { escalateAt: 90 }));
    ok(mergeThresholds(defaults(), { escalateAt: 101, denyAt: 101 }));
    ok(mergeThresholds(defaults(), { escalateAt: 0, denyAt: 0 }));
    const tooHigh = issues(mergeThresholds(defaults(), { escalateAt: 91 }));
    assert.deepEqual(tooHigh, [
      { path: '/escalateAt', message: 'must be less than or equal to denyAt (90)' },
    ]);
    const tooLow = issues(mergeThresholds(defaults(), { denyAt: 59 }));
    assert.deepEqual(tooLow, [
      { path: '/denyAt', message: 'must be greater than or equal to escalateAt (60)' },
    ]);
    assert.deepEqual(paths(mergeThresholds(defaults(), { escalateAt: 80, denyAt: 70 })), ['/escalateAt']);
  });

  it('reports every failing field at once', () => {
    assert.deepEqual(
      paths(
        mergeThresholds(defaults(), {
          escalateAt: -1,
          modifiers: { privileged: 101, sensitive: -1 },
          lowConfidenceEscalateBelow: 2,
          approvalTtlSeconds: 1,
          tokenTtlSeconds: 301,
        }),
      ),
      [
        '/escalateAt',
        '/modifiers/privileged',
        '/modifiers/sensitive',
        '/lowConfidenceEscalateBelow',
        '/approvalTtlSeconds',
        '/tokenTtlSeconds',
      ],
    );
  });

  it('refuses non-finite numbers in a stored record', () => {
    const broken = { ...defaults(), escalateAt: Number.NaN, tokenTtlSeconds: Number.POSITIVE_INFINITY };
    assert.deepEqual(
      validateThresholds(broken).map((issue) => issue.path),
      ['/escalateAt', '/tokenTtlSeconds'],
    );
  });
});

describe('thresholds: signals', () => {
  const t = { escalateAt: 60, denyAt: 90, lowConfidenceEscalateBelow: 0.5 };

  it('raises nothing below the thresholds with enough confidence', () => {
    assert.deepEqual(thresholdSignals(59, 0.5, t), []);
    assert.deepEqual(thresholdSignals(0, 0.9, t), []);
  });

  it('raises the escalate signal at escalateAt', () => {
    assert.deepEqual(thresholdSignals(60, 0.9, t), [
      {
        rule: { id: 'signal:escalate-threshold', effect: 'ESCALATE', priority: 0 },
        rationale: 'risk 60 ≥ escalateAt 60: ESCALATE',
      },
    ]);
    assert.deepEqual(
      thresholdSignals(75, 0.9, t).map((s) => s.rationale),
      ['risk 75 ≥ escalateAt 60: ESCALATE'],
    );
  });

  it('raises deny and escalate signals at denyAt', () => {
    assert.deepEqual(thresholdSignals(90, 0.9, t), [
      {
        rule: { id: 'signal:deny-threshold', effect: 'DENY', priority: 0 },
        rationale: 'risk 90 ≥ denyAt 90: DENY',
      },
      {
        rule: { id: 'signal:escalate-threshold', effect: 'ESCALATE', priority: 0 },
        rationale: 'risk 90 ≥ escalateAt 60: ESCALATE',
      },
    ]);
  });

  it('raises the low-confidence signal strictly below the bound', () => {
    assert.deepEqual(thresholdSignals(10, 0.3, t), [
      {
        rule: { id: 'signal:low-confidence', effect: 'ESCALATE', priority: 0 },
        rationale: 'confidence 0.3 < lowConfidenceEscalateBelow 0.5: ESCALATE',
      },
    ]);
    assert.deepEqual(thresholdSignals(10, 0.5, t), []);
    assert.deepEqual(thresholdSignals(10, 0.9, { ...t, lowConfidenceEscalateBelow: 1 }).length, 1);
    assert.deepEqual(thresholdSignals(10, 0.3, { ...t, lowConfidenceEscalateBelow: 0 }), []);
  });

  it('raises all three together, most severe first', () => {
    assert.deepEqual(
      thresholdSignals(100, 0.3, t).map((s) => [s.rule.id, s.rule.effect]),
      [
        ['signal:deny-threshold', 'DENY'],
        ['signal:escalate-threshold', 'ESCALATE'],
        ['signal:low-confidence', 'ESCALATE'],
      ],
    );
  });

  it('never fires a threshold set to 101', () => {
    assert.deepEqual(thresholdSignals(100, 0.9, { ...t, escalateAt: 101, denyAt: 101 }), []);
  });

  it('fires everything when thresholds are 0', () => {
    assert.equal(thresholdSignals(0, 0.9, { ...t, escalateAt: 0, denyAt: 0 }).length, 2);
  });

  it('gives signals priority 0, below the floor (1) and every rule (2..10000)', () => {
    assert.equal(SIGNAL_PRIORITY, 0);
  });
});
