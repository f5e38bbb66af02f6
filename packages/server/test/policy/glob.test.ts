import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compileGlob, compileGlobSet, globMatches } from '../../src/policy/glob.js';

/** Reference: textbook recursive wildcard matching over code points (exponential, tiny inputs only). */
function naive(pattern: string[], subject: string[]): boolean {
  if (pattern.length === 0) return subject.length === 0;
  const [head, ...rest] = pattern;
  if (head === '*') {
    for (let k = 0; k <= subject.length; k += 1) if (naive(rest, subject.slice(k))) return true;
    return false;
  }
  if (subject.length === 0) return false;
  return (head === '?' || head === subject[0]) && naive(rest, subject.slice(1));
}

describe('globs', () => {
  const cases: Array<[string, string, boolean]> = [
    ['acme/payments', 'acme/payments', true],
    ['acme/payments', 'acme/Payments', false],
    ['acme/*', 'acme/payments', true],
    ['acme/*', 'acme/', true],
    ['acme/*', 'acme', false],
    ['*', '', true],
    ['*', 'anything/at/all', true],
    ['*/*', 'a/b/c', true],
    ['a*/*', 'a/b', true],
    ['*payments', 'acme/payments', true],
    ['*pay*', 'acme/payments', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'acb', false],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['**', 'x', true],
    ['OI-1??', 'OI-101', true],
    ['OI-1??', 'OI-10', false],
    ['OI-1??', 'OI-1011', false],
    ['OI-?0*', 'OI-305', true],
    ['?', 'é', true],
    ['?', '😀', true],
    ['??', '😀', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['*.ts', 'x/y.ts', true],
    ['*.ts', 'x/y.tsx', false],
    ['agent-*', 'agent-7', true],
    ['agent-*', 'Agent-7', false],
    ['[a]', '[a]', true],
    ['[a]', 'a', false],
    ['.*', 'x', false],
    ['a+', 'aa', false],
  ];
  for (const [pattern, subject, expected] of cases) {
    test(`${JSON.stringify(pattern)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(subject)}`, () => {
      assert.equal(globMatches(pattern, subject), expected);
    });
  }

  test('a glob set is any-of, exact entries included', () => {
    const set = compileGlobSet(['acme/payments', 'org-*/infra', 'x?']);
    assert.equal(set.test('acme/payments'), true);
    assert.equal(set.test('org-1/infra'), true);
    assert.equal(set.test('xy'), true);
    assert.equal(set.test('acme/other'), false);
  });

  test('agrees with a naive recursive matcher (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', '/', '*', '?', 'é');
    const subjectChar = fc.constantFrom('a', 'b', '/', 'é', '😀');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 8 }), fc.array(subjectChar, { maxLength: 10 }), (p, s) => {
        const pattern = p.join('');
        const subject = s.join('');
        assert.equal(compileGlob(pattern).test(subject), naive(Array.from(pattern), Array.from(subject)));
      }),
      { numRuns: 3000 },
    );
  });

  test('stays fast on adversarial globs', { timeout: 10_000 }, () => {
    const glob = compileGlob(`${'*a'.repeat(50)}*b`);
    assert.equal(glob.test('a'.repeat(100_000)), false);
    const q = compileGlob(`*${'?'.repeat(20)}b`);
    assert.equal(q.test('a'.repeat(100_000)), false);
  });
});
