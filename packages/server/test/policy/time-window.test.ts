import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compilePolicy } from '../../src/policy/compile-policy.js';
import { evaluatePolicy } from '../../src/policy/evaluate-policy.js';
import { parseIsoDateTime } from '../../src/policy/time-window.js';
import { validatePolicy } from '../../src/policy/validate-policy.js';
import { doc, policyOf } from './fixtures.js';

const FROM = '2026-03-01T09:00:00Z';
const UNTIL = '2026-03-01T17:00:00Z';
const FROM_MS = Date.UTC(2026, 2, 1, 9);
const UNTIL_MS = Date.UTC(2026, 2, 1, 17);

function at(policy: ReturnType<typeof policyOf>, time: number, explain = true) {
  return evaluatePolicy(policy, doc(), { at: time, explain });
}

describe('time-boxed rules: validation', () => {
  test('accepts date-times with Z or an offset, with or without seconds and fractions', () => {
    for (const text of [
      '2026-03-01T09:00:00Z',
      '2026-03-01T09:00Z',
      '2026-03-01T09:00:00.5+02:00',
      '2026-03-01T09:00:00.123456789-05:30',
      '2028-02-29T00:00:00Z',
    ]) {
      const result = validatePolicy({ rules: [{ id: 'r', effect: 'ALLOW', activeFrom: text }] });
      assert.ok(result.ok, text);
      assert.equal(result.rules[0]?.activeFrom, text);
    }
  });

  test('refuses what is not an ISO 8601 date-time with an offset, naming the rule and the field', () => {
    for (const value of [
      '2026-03-01',
      '2026-03-01T09:00:00',
      '2026-02-30T09:00:00Z',
      '2027-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T09:60:00Z',
      '2026-03-01T09:00:00+25:00',
      'next tuesday',
      '',
      1_772_355_600_000,
      null,
    ]) {
      const result = validatePolicy({ rules: [{ id: 'r', effect: 'ALLOW', activeUntil: value }] });
      assert.equal(result.ok, false, String(value));
      if (result.ok) continue;
      assert.deepEqual(result.issues[0]?.path, 'rules[0].activeUntil');
      assert.match(result.issues[0]?.message ?? '', /^rule "r": activeUntil: must be an ISO 8601 date-time/);
    }
  });

  test('activeFrom must be before activeUntil (equal is refused too)', () => {
    for (const [from, until] of [
      [UNTIL, FROM],
      [FROM, FROM],
      ['2026-03-01T11:00:00+02:00', '2026-03-01T09:00:00Z'],
    ]) {
      const result = validatePolicy({
        rules: [{ id: 'r', effect: 'ALLOW', activeFrom: from, activeUntil: until }],
      });
      assert.equal(result.ok, false);
      if (result.ok) continue;
      assert.equal(result.issues[0]?.path, 'rules[0].activeUntil');
      assert.match(result.issues[0]?.message ?? '', /must be later than activeFrom/);
    }
  });

  test('compares instants, not texts: offsets are applied', () => {
    assert.equal(parseIsoDateTime('2026-03-01T11:00:00+02:00'), FROM_MS);
    assert.equal(parseIsoDateTime('2026-03-01T04:30:00-04:30'), FROM_MS);
    assert.equal(parseIsoDateTime('0050-01-01T00:00:00Z'), Date.parse('0050-01-01T00:00:00Z'));
    const ok = validatePolicy({
      rules: [{ id: 'r', effect: 'ALLOW', activeFrom: '2026-03-01T10:00:00+02:00', activeUntil: FROM }],
    });
    assert.ok(ok.ok);
  });

  test('agrees with Date.parse on every valid date-time it accepts', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (d) => {
          const text = d.toISOString();
          assert.equal(parseIsoDateTime(text), d.getTime());
        },
      ),
    );
  });
});

describe('time-boxed rules: evaluation', () => {
  const policy = policyOf([{ id: 'boxed', effect: 'ALLOW', activeFrom: FROM, activeUntil: UNTIL }]);

  test('the window is half-open: active at activeFrom, inactive at activeUntil', () => {
    assert.deepEqual(at(policy, FROM_MS - 1).matched, []);
    assert.deepEqual(
      at(policy, FROM_MS).matched.map((m) => m.id),
      ['boxed'],
    );
    assert.deepEqual(
      at(policy, UNTIL_MS - 1).matched.map((m) => m.id),
      ['boxed'],
    );
    assert.deepEqual(at(policy, UNTIL_MS).matched, []);
  });

  test('the explanation says the rule is inactive and until or since when', () => {
    assert.deepEqual(at(policy, FROM_MS - 1).explanation, [
      {
        ruleId: 'boxed',
        effect: 'ALLOW',
        failed: { kind: 'inactive', reason: `inactive until ${FROM}`, until: FROM },
      },
    ]);
    assert.deepEqual(at(policy, UNTIL_MS).explanation, [
      {
        ruleId: 'boxed',
        effect: 'ALLOW',
        failed: { kind: 'inactive', reason: `inactive since ${UNTIL}`, since: UNTIL },
      },
    ]);
    assert.deepEqual(at(policy, FROM_MS).explanation, []);
  });

  test('an open bound leaves that side unlimited', () => {
    const fromOnly = policyOf([{ id: 'r', effect: 'DENY', activeFrom: FROM }]);
    const untilOnly = policyOf([{ id: 'r', effect: 'DENY', activeUntil: UNTIL }]);
    assert.equal(at(fromOnly, Number.MAX_SAFE_INTEGER).matched.length, 1);
    assert.equal(at(fromOnly, FROM_MS - 1).matched.length, 0);
    assert.equal(at(untilOnly, 0).matched.length, 1);
    assert.equal(at(untilOnly, UNTIL_MS).matched.length, 0);
  });

  test('an inactive rule does not match even when its bindings and conditions hold; an active one still needs them', () => {
    const p = policyOf([
      {
        id: 'r',
        effect: 'ALLOW',
        activeFrom: FROM,
        bindings: { actorIds: ['someone-else'] },
      },
    ]);
    assert.deepEqual(at(p, FROM_MS).explanation?.[0]?.failed, { kind: 'binding', binding: 'actorIds' });
    assert.equal(at(p, FROM_MS - 1).explanation?.[0]?.failed.kind, 'inactive');
  });

  test('property: a boxed rule matches exactly when from <= at < until', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.integer({ min: 1, max: 10 ** 10 }),
        fc.integer({ min: -(10 ** 10), max: 2 * 10 ** 10 }),
        (from, length, offset) => {
          const until = from + length;
          const time = from + offset;
          const rules = [
            {
              id: 'boxed',
              effect: 'ALLOW' as const,
              activeFrom: new Date(from).toISOString(),
              activeUntil: new Date(until).toISOString(),
            },
          ];
          const validated = validatePolicy({ rules });
          assert.ok(validated.ok);
          const result = evaluatePolicy(compilePolicy(validated.rules), doc(), { at: time, explain: true });
          const inside = time >= from && time < until;
          assert.equal(result.matched.length === 1, inside);
          const failed = result.explanation?.[0]?.failed;
          if (inside) assert.equal(failed, undefined);
          else if (time < from)
            assert.deepEqual(failed, {
              kind: 'inactive',
              reason: `inactive until ${rules[0]?.activeFrom}`,
              until: rules[0]?.activeFrom,
            });
          else
            assert.deepEqual(failed, {
              kind: 'inactive',
              reason: `inactive since ${rules[0]?.activeUntil}`,
              since: rules[0]?.activeUntil,
            });
        },
      ),
    );
  });

  test('property: around each bound, one millisecond decides', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4_102_444_800_000 }), (bound) => {
        const text = new Date(bound).toISOString();
        const from = policyOf([{ id: 'r', effect: 'ALLOW', activeFrom: text }]);
        const until = policyOf([{ id: 'r', effect: 'ALLOW', activeUntil: text }]);
        assert.equal(at(from, bound - 1, false).matched.length, 0);
        assert.equal(at(from, bound, false).matched.length, 1);
        assert.equal(at(until, bound - 1, false).matched.length, 1);
        assert.equal(at(until, bound, false).matched.length, 0);
      }),
    );
  });

  test('property: rules without a window are unaffected by the time', () => {
    const plain = policyOf([{ id: 'r', effect: 'ALLOW' }]);
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), (time) => {
        assert.equal(at(plain, time, false).matched.length, 1);
      }),
    );
  });
});
