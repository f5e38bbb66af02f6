import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ARGS_SCAN_MAX_DEPTH,
  forEachArgsString,
  formatLocation,
  type LocationStep,
  PATH_ROOTS,
  parsePath,
  resolvePath,
  resolveSingle,
} from '../../src/policy/path.js';
import { doc } from './fixtures.js';

function parsed(text: string) {
  const result = parsePath(text);
  if (!result.ok) assert.fail(`${text}: ${result.error}`);
  return result.path;
}

function error(text: string): string {
  const result = parsePath(text);
  assert.equal(result.ok, false, `${text} should not parse`);
  return result.ok ? '' : result.error;
}

describe('parsePath', () => {
  test('every root parses on its own', () => {
    for (const root of PATH_ROOTS) {
      const p = parsed(root);
      assert.equal(p.root, root);
      assert.deepEqual(p.segments, []);
      assert.equal(p.bareArgs, root === 'args');
    }
  });

  test('dot, bracket keys with either quote, indexes and [*]', () => {
    assert.deepEqual(parsed('args.files[0].path').segments, [
      { kind: 'key', key: 'files' },
      { kind: 'index', index: 0 },
      { kind: 'key', key: 'path' },
    ]);
    assert.deepEqual(parsed('args["sql"]').segments, [{ kind: 'key', key: 'sql' }]);
    assert.deepEqual(parsed("args['a b']").segments, [{ kind: 'key', key: 'a b' }]);
    assert.deepEqual(parsed('args["a.b[0]"]').segments, [{ kind: 'key', key: 'a.b[0]' }]);
    assert.deepEqual(parsed('args["q\\"x\\\\y\\u0041"]').segments, [{ kind: 'key', key: 'q"x\\yA' }]);
    assert.deepEqual(parsed('args[""]').segments, [{ kind: 'key', key: '' }]);
    const star = parsed('args.steps[*].run');
    assert.equal(star.hasWildcard, true);
    assert.deepEqual(star.segments[1], { kind: 'wildcard' });
    assert.equal(parsed('args.x-y_$1').segments.length, 1);
    assert.equal(parsed('args[12]').segments[0]?.kind, 'index');
  });

  test('refuses malformed paths with a reason', () => {
    assert.match(error(''), /empty/);
    assert.match(error('foo.bar'), /unknown root "foo"/);
    assert.match(error('Args'), /unknown root/);
    assert.match(error('args.'), /expected a name/);
    assert.match(error('args..x'), /expected a name/);
    assert.match(error('args.0'), /expected a name/);
    assert.match(error('args[01]'), /leading zero/);
    assert.match(error('args[-1]'), /after "\["/);
    assert.match(error('args[1234567890]'), /too large/);
    assert.match(error('args["x]'), /unterminated/);
    assert.match(error('args["x"'), /expected "\]"/);
    assert.match(error('args[x]'), /after "\["/);
    assert.match(error('args[*'), /expected "\]"/);
    assert.match(error('args["\\q"]'), /unsupported escape/);
    assert.match(error('args.a b'), /unexpected character/);
    assert.match(error(' args'), /root/);
    assert.match(error('args["a"]x'), /unexpected character/);
  });
});

describe('resolvePath', () => {
  const d = doc({
    args: {
      sql: 'select 1',
      files: [{ path: 'a.ts' }, { path: 'b.ts' }, { other: 1 }],
      'a b': 7,
      nested: { list: [[1, 2], [3]] },
      nul: null,
    },
    github: { owner: 'acme', repo: 'payments' },
  });

  test('plain paths give one candidate or none', () => {
    assert.deepEqual(resolvePath(d, parsed('args.sql')), ['select 1']);
    assert.deepEqual(resolvePath(d, parsed('args["a b"]')), [7]);
    assert.deepEqual(resolvePath(d, parsed('args.files[1].path')), ['b.ts']);
    assert.deepEqual(resolvePath(d, parsed('args.files[3]')), []);
    assert.deepEqual(resolvePath(d, parsed('args.missing')), []);
    assert.deepEqual(resolvePath(d, parsed('args.nul')), [null]);
    assert.deepEqual(resolvePath(d, parsed('risk.score')), [10]);
    assert.deepEqual(resolvePath(d, parsed('github.owner')), ['acme']);
    assert.deepEqual(resolvePath(doc(), parsed('github.owner')), [], 'null github has no keys');
    assert.deepEqual(resolvePath(doc(), parsed('github')), [null]);
  });

  test('type mismatches along the path are missing', () => {
    assert.deepEqual(resolvePath(d, parsed('args.sql.length')), [], 'no keys on strings');
    assert.deepEqual(resolvePath(d, parsed('args.sql[0]')), [], 'no indexes on strings');
    assert.deepEqual(resolvePath(d, parsed('args.files.length')), [], 'no keys on arrays');
    assert.deepEqual(resolvePath(d, parsed('args.nested[0]')), [], 'no indexes on objects');
    assert.deepEqual(resolvePath(d, parsed('args.nested[*]')), [], 'no [*] on objects');
    assert.deepEqual(resolvePath(d, parsed('args.constructor')), [], 'own properties only');
    assert.deepEqual(resolvePath(d, parsed('args["__proto__"]')), []);
    assert.deepEqual(resolvePath(d, parsed('actor.id.x')), []);
  });

  test('[*] is existential and composes', () => {
    assert.deepEqual(resolvePath(d, parsed('args.files[*].path')), ['a.ts', 'b.ts']);
    assert.deepEqual(resolvePath(d, parsed('args.nested.list[*][*]')), [1, 2, 3]);
    assert.deepEqual(resolvePath(d, parsed('args.nested.list[*][1]')), [2]);
    assert.deepEqual(resolvePath(d, parsed('args.files[*].nothing')), []);
  });

  test('bare args scans string leaves, keys and values', () => {
    const candidates = resolvePath(
      doc({ args: { a: 'x', b: [1, 'y', { c: true, 'd e': 'z' }], n: null } }),
      parsed('args'),
    );
    assert.deepEqual(candidates, ['a', 'x', 'b', 'y', 'c', 'd e', 'z', 'n']);
    assert.deepEqual(resolvePath(doc({ args: undefined }), parsed('args')), []);
    assert.deepEqual(resolvePath(doc({ args: {} }), parsed('args')), []);
  });

  test('resolveSingle reads one value or undefined', () => {
    assert.equal(resolveSingle(d, parsed('args.files[0].path')), 'a.ts');
    assert.equal(resolveSingle(d, parsed('args.nope.deeper')), undefined);
    assert.equal(resolveSingle(d, parsed('thresholds.escalateAt')), 60);
  });
});

describe('forEachArgsString', () => {
  function nest(depth: number, leaf: unknown): unknown {
    let value = leaf;
    for (let i = 0; i < depth; i += 1) value = { [`k${depth - i}`]: value };
    return value;
  }

  test(`reaches a string at depth ${ARGS_SCAN_MAX_DEPTH} and nothing deeper`, () => {
    const seen: string[] = [];
    forEachArgsString(nest(ARGS_SCAN_MAX_DEPTH, 'deep'), (text) => {
      seen.push(text);
      return false;
    });
    assert.ok(seen.includes('deep'));
    assert.ok(seen.includes(`k${ARGS_SCAN_MAX_DEPTH}`));
    const deeper: string[] = [];
    forEachArgsString(nest(ARGS_SCAN_MAX_DEPTH + 1, 'deeper'), (text) => {
      deeper.push(text);
      return false;
    });
    assert.ok(!deeper.includes('deeper'));
    assert.ok(deeper.includes(`k${ARGS_SCAN_MAX_DEPTH}`), 'keys of the last descended object are visited');
    assert.ok(!deeper.includes(`k${ARGS_SCAN_MAX_DEPTH + 1}`));
  });

  test('reports locations and stops when asked', () => {
    const locations: string[] = [];
    const stopped = forEachArgsString(
      { steps: [{ run: 'a' }, { run: 'b' }], 'x y': 'c' },
      (text, isKey, steps) => {
        locations.push(`${formatLocation('args', steps)}${isKey ? ' (key)' : ''}=${text}`);
        return text === 'b';
      },
    );
    assert.equal(stopped, true);
    assert.deepEqual(locations, [
      'args.steps (key)=steps',
      'args.steps[0].run (key)=run',
      'args.steps[0].run=a',
      'args.steps[1].run (key)=run',
      'args.steps[1].run=b',
    ]);
  });

  test('formatLocation round-trips through parsePath', () => {
    const steps: LocationStep[] = ['a', 0, 'b c', 'd"e', 'ok-1'];
    const text = formatLocation('args', steps);
    assert.equal(text, 'args.a[0]["b c"]["d\\"e"].ok-1');
    const p = parsed(text);
    assert.deepEqual(
      p.segments.map((s) => (s.kind === 'key' ? s.key : s.kind === 'index' ? s.index : '*')),
      steps,
    );
  });
});
