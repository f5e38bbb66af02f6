import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FLOOR_MATCHED_RULE, FLOOR_PATTERNS, matchFloor } from '../../src/policy/catastrophic-floor.js';

const [DROP_OBJECT, DROP, TRUNCATE, DELETE_FROM, RM_RF, GIT_PUSH_FORCE, NO_PRESERVE_ROOT] = FLOOR_PATTERNS;

function hit(text: string) {
  const result = matchFloor(text, {});
  assert.ok(result.matched, `${JSON.stringify(text)} should match the floor`);
  return result;
}

function miss(text: string): void {
  const result = matchFloor(text, {});
  assert.equal(
    result.matched,
    false,
    `${JSON.stringify(text)} should not match the floor: ${JSON.stringify(result)}`,
  );
}

describe('catastrophic floor patterns', () => {
  test("the patterns are exactly the contract's", () => {
    assert.deepEqual(FLOOR_PATTERNS, [
      '\\bdrop\\s+(table|database|schema|index|view)\\b',
      '\\bdrop\\b',
      '\\btruncate\\b',
      '\\bdelete\\s+from\\b',
      '\\brm\\s+(-[a-z]*r[a-z]*f[a-z]*|-[a-z]*f[a-z]*r[a-z]*|-r\\s+-f|-f\\s+-r|--recursive\\s+--force|--force\\s+--recursive)\\b',
      '\\bgit\\s+push\\b.*(\\s-f\\b|--force|\\s\\+\\S)',
      '--no-preserve-root',
    ]);
    assert.deepEqual(FLOOR_MATCHED_RULE, { id: 'catastrophic-floor', effect: 'ESCALATE', priority: 1 });
  });

  const positives: Array<[string, string | undefined, string]> = [
    ['drop table x', DROP_OBJECT, 'drop table'],
    ['DROP TABLE users;', DROP_OBJECT, 'DROP TABLE'],
    ['Drop   Database prod', DROP_OBJECT, 'Drop   Database'],
    ['drop\tschema s', DROP_OBJECT, 'drop\tschema'],
    ['drop index i', DROP_OBJECT, 'drop index'],
    ['drop view v', DROP_OBJECT, 'drop view'],
    ['please drop it', DROP, 'drop'],
    ['drop', DROP, 'drop'],
    ['drop tables', DROP, 'drop'],
    ['TRUNCATE audit_log', TRUNCATE, 'TRUNCATE'],
    ['truncate', TRUNCATE, 'truncate'],
    ['DELETE FROM users', DELETE_FROM, 'DELETE FROM'],
    ['delete\n  from t', DELETE_FROM, 'delete\n  from'],
    ['rm -rf /', RM_RF, 'rm -rf'],
    ['sudo rm -rf ~/x', RM_RF, 'rm -rf'],
    ['rm -fr x', RM_RF, 'rm -fr'],
    ['rm -Rf x', RM_RF, 'rm -Rf'],
    ['rm -rvf x', RM_RF, 'rm -rvf'],
    ['rm -r -f x', RM_RF, 'rm -r -f'],
    ['rm -f -r x', RM_RF, 'rm -f -r'],
    ['rm --recursive --force x', RM_RF, 'rm --recursive --force'],
    ['rm --force --recursive x', RM_RF, 'rm --force --recursive'],
    ['RM -RF /', RM_RF, 'RM -RF'],
    ['git push --force', GIT_PUSH_FORCE, 'git push --force'],
    ['git push origin main --force-with-lease', GIT_PUSH_FORCE, 'git push origin main --force'],
    ['git push -f origin main', GIT_PUSH_FORCE, 'git push -f'],
    ['git push origin +main', GIT_PUSH_FORCE, 'git push origin +m'],
    ['GIT  PUSH origin +refs/heads/x', GIT_PUSH_FORCE, 'GIT  PUSH origin +r'],
    ['rm --no-preserve-root /', NO_PRESERVE_ROOT, '--no-preserve-root'],
    ['chown -R x / --NO-PRESERVE-ROOT', NO_PRESERVE_ROOT, '--NO-PRESERVE-ROOT'],
  ];
  for (const [text, pattern, excerpt] of positives) {
    test(`matches ${JSON.stringify(text)}`, () => {
      const result = hit(text);
      assert.equal(result.pattern, pattern);
      assert.equal(result.location, 'proposedAction');
      assert.equal(result.excerpt, excerpt);
    });
  }

  const negatives = [
    'dropdown menu',
    'airdrop',
    'drop_table',
    'backdrop-filter',
    'truncated output',
    'delete fromage',
    'deleted from users',
    'delete the branch',
    'rm file',
    'rm -r dir',
    'rm -f file',
    'rm -i -r x',
    'rm -rx',
    'farm -rf',
    'git push origin main',
    'git push origin feature-force',
    'git push origin main:main',
    'git pull --force',
    'git push-force',
    'no-preserve-root',
    'list pull requests',
    '',
  ];
  for (const text of negatives) {
    test(`does not match ${JSON.stringify(text)}`, () => miss(text));
  }
});

describe('catastrophic floor scanning', () => {
  test('scans every string leaf of args, keys and values, and reports the location', () => {
    const cases: Array<[unknown, string, string]> = [
      [{ sql: 'DROP TABLE users' }, 'args.sql', 'DROP TABLE'],
      [{ steps: [{ run: 'npm test' }, { run: 'rm -rf /' }] }, 'args.steps[1].run', 'rm -rf'],
      [{ 'the query': 'truncate t' }, 'args["the query"]', 'truncate'],
      [{ 'DELETE FROM t': true }, 'args["DELETE FROM t"] (key)', 'DELETE FROM'],
      [['a', ['b', 'git push -f']], 'args[1][1]', 'git push -f'],
      [{ a: { b: { c: [{ d: '--no-preserve-root' }] } } }, 'args.a.b.c[0].d', '--no-preserve-root'],
    ];
    for (const [args, location, excerpt] of cases) {
      const result = matchFloor('run the job', args);
      assert.ok(result.matched, JSON.stringify(args));
      assert.equal(result.location, location);
      assert.equal(result.excerpt, excerpt);
    }
  });

  test('proposedAction is reported before args; then document order', () => {
    const r1 = matchFloor('truncate t', { sql: 'drop table x' });
    assert.ok(r1.matched);
    assert.equal(r1.location, 'proposedAction');
    const r2 = matchFloor('ok', { a: 'fine', b: 'drop x', c: 'truncate' });
    assert.ok(r2.matched);
    assert.equal(r2.location, 'args.b');
  });

  test('non-string leaves and missing args are ignored', () => {
    assert.equal(matchFloor('ok', { n: 1, b: true, z: null, list: [1, 2] }).matched, false);
    assert.equal(matchFloor('ok', undefined).matched, false);
    assert.equal(matchFloor('ok', null).matched, false);
  });

  test('scans to depth 16 and no deeper', () => {
    const nest = (depth: number): unknown => {
      let value: unknown = 'drop table x';
      for (let i = 0; i < depth; i += 1) value = [value];
      return value;
    };
    assert.equal(matchFloor('ok', nest(16)).matched, true);
    assert.equal(matchFloor('ok', nest(17)).matched, false);
  });

  test('long excerpts are cut at 80 characters', () => {
    const result = matchFloor(`git push ${'x'.repeat(200)} --force`, {});
    assert.ok(result.matched);
    assert.equal(result.excerpt.length, 81);
    assert.ok(result.excerpt.endsWith('…'));
  });

  test('returns on large input (hang guard; timings belong in bench/)', { timeout: 10_000 }, () => {
    const big = `${'git push '.repeat(10_000)}${' a'.repeat(50_000)}`;
    assert.equal(matchFloor(big, { s: 'x'.repeat(65_000), t: 'rm '.repeat(20_000) }).matched, false);
  });
});
