import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { compilePattern } from '../../src/policy/pattern.js';
import { foldForPrefilter, mayMatch, requiredLiterals } from '../../src/policy/pattern-prefilter.js';

/** Whether RE2 finds the pattern anywhere in the text, as a MATCHES condition asks. */
function re2Finds(pattern: string, text: string): boolean {
  return RE2JS.compile(pattern).matcher(text).find();
}

const ALPHABET = [
  'a',
  'b',
  'c',
  'A',
  'B',
  'k',
  'K',
  's',
  'S',
  '\u017F',
  '\u212A',
  'é',
  'É',
  '-',
  '_',
  ' ',
  '.',
];

type Sampled = [pattern: string, sample: string];

const PLAIN = ALPHABET.filter((c) => c !== '.');

/** [source, a text it matches] for each construct; the analysis gives up on the last few. */
const CONSTRUCTS: Sampled[] = [
  ['\\.', '.'],
  ['\\-', '-'],
  ['\\b', ''],
  ['\\B', ''],
  ['\\w', 'a'],
  ['\\s', ' '],
  ['\\W', '-'],
  ['.', 'x'],
  ['^', ''],
  ['$', ''],
  ['[ab]', 'b'],
  ['[aK]', '\u212A'],
  ['[a-c]', 'c'],
  ['[^a]', 'S'],
  ['[]a]', ']'],
  ['[-_]', '_'],
  ['[\\w-]', 'k'],
  ['[[:alpha:]]', 'A'],
  ['\\pL', 'é'],
  ['\\p{Lu}', 'É'],
  ['\\x41', 'A'],
  ['\\Qa.b\\E', 'a.b'],
  ['\\n', '\n'],
];

/**
 * Patterns over a small alphabet, each with a text it matches (built beside it), from every
 * construct the analysis reads and some it gives up on.
 */
const patternArbitrary = fc.letrec<{ re: Sampled; atom: Sampled; piece: Sampled }>((tie) => ({
  atom: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...PLAIN).map((c): Sampled => [c, c]) },
    {
      weight: 4,
      arbitrary: fc
        .array(fc.constantFrom(...PLAIN), { minLength: 3, maxLength: 5 })
        .map((c): Sampled => [c.join(''), c.join('')]),
    },
    { weight: 3, arbitrary: fc.constantFrom(...CONSTRUCTS) },
    { weight: 2, arbitrary: tie('re').map(([r, t]): Sampled => [`(${r})`, t]) },
    { weight: 1, arbitrary: tie('re').map(([r, t]): Sampled => [`(?:${r})`, t]) },
    { weight: 1, arbitrary: tie('re').map(([r, t]): Sampled => [`(?i:${r})`, t.toUpperCase()]) },
  ),
  piece: fc
    .tuple(
      tie('atom'),
      fc.constantFrom('', '', '', '?', '*', '+', '{2}', '{0,2}', '{1,}', '+?'),
      fc.boolean(),
    )
    .map(([[atom, text], quantifier, take]): Sampled => {
      const times: Record<string, number> = { '': 1, '?': take ? 1 : 0, '*': take ? 2 : 0, '+': 1 };
      const count = times[quantifier] ?? (quantifier === '{0,2}' ? (take ? 2 : 0) : 2);
      return [atom + quantifier, text.repeat(count)];
    }),
  re: fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .array(tie('piece'), { minLength: 1, maxLength: 6 })
        .map((p): Sampled => [p.map(([r]) => r).join(''), p.map(([, t]) => t).join('')]),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(tie('re'), tie('re'), fc.boolean())
        .map(([[a, ta], [b, tb], left]): Sampled => [`${a}|${b}`, left ? ta : tb]),
    },
  ),
}));

const fullPattern = fc
  .tuple(fc.constantFrom('', '', '(?i)'), patternArbitrary.re)
  .map(([flags, [re, sample]]): Sampled => [flags + re, sample])
  .filter(([p]) => compilePattern(p).ok);

const textArbitrary = fc
  .array(fc.constantFrom(...ALPHABET, '\n', 'x'), { maxLength: 24 })
  .map((c) => c.join(''));

describe('pattern prefilter (required literals)', () => {
  test('never says no to a text the pattern matches (property, against RE2 itself)', () => {
    let provedSomething = 0;
    let matchedWithLiterals = 0;
    fc.assert(
      fc.property(
        fullPattern,
        fc.array(textArbitrary, { minLength: 2, maxLength: 6 }),
        ([pattern, sample], texts) => {
          const literals = requiredLiterals(pattern);
          if (literals === null) return;
          provedSomething += 1;
          for (const literal of literals) assert.ok(literal.length >= 3, `${pattern}: ${literal}`);
          // Texts that hold a match (the sample beside the pattern, in context) and random ones.
          const candidates = [
            sample,
            `${texts[0]}${sample}${texts[1]}`,
            `${texts[1]} ${sample} ${texts[0]}`,
            ...texts,
          ];
          for (const text of candidates) {
            if (!re2Finds(pattern, text)) continue;
            matchedWithLiterals += 1;
            assert.ok(mayMatch(literals, text), `${JSON.stringify(pattern)} matches ${JSON.stringify(text)}`);
          }
        },
      ),
      { numRuns: 3_000 },
    );
    assert.ok(provedSomething > 300, `only ${provedSomething} patterns had literals`);
    assert.ok(matchedWithLiterals > 300, `only ${matchedWithLiterals} matches were checked`);
  });

  test('folds exactly the characters RE2 matches to an ASCII letter under (?i), and nothing else', () => {
    const anyLetter = RE2JS.compile('(?i)[a-z]');
    for (let code = 0; code <= 0x10ffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCodePoint(code);
      const folded = foldForPrefilter(ch);
      if (anyLetter.matcher(ch).matches()) {
        assert.match(folded, /^[a-z]$/, `U+${code.toString(16)}`);
        assert.ok(RE2JS.compile(`(?i)${folded}`).matcher(ch).matches(), `U+${code.toString(16)}`);
      } else {
        assert.equal(folded, ch, `U+${code.toString(16)} is no letter's case variant`);
      }
    }
    // ASCII that is not a letter has no other case under (?i).
    const nonLetters = RE2JS.compile('(?i)[\\x00-\\x40\\x5b-\\x60\\x7b-\\x7f]');
    const plainNonLetters = RE2JS.compile('[\\x00-\\x40\\x5b-\\x60\\x7b-\\x7f]');
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCharCode(code);
      assert.equal(
        nonLetters.matcher(ch).matches(),
        plainNonLetters.matcher(ch).matches(),
        `U+${code.toString(16)}`,
      );
    }
  });

  test('folds character by character, never by word (final sigma, dotted I)', () => {
    assert.equal(foldForPrefilter('ΣΑΣ'), 'ΣΑΣ');
    assert.equal(foldForPrefilter('İSTANBUL'), 'İstanbul');
    assert.equal(foldForPrefilter('\u212Aey \u017Fk_LIVE'), 'key sk_live');
    assert.equal(foldForPrefilter('AKIA'), 'akia');
  });

  test("finds the built-in packs' literals (vectors)", () => {
    const cases: Array<[string, string[] | null]> = [
      [
        '-----BEGIN ([A-Z]+ )?PRIVATE KEY( BLOCK)?-----|\\bAKIA[0-9A-Z]{16}\\b|\\bgh[pousr]_[A-Za-z0-9]{36,}\\b' +
          '|\\bgithub_pat_[A-Za-z0-9_]{22,}\\b|\\bxox[abprs]-[A-Za-z0-9-]{10,}\\b|\\bsk_live_[A-Za-z0-9]{16,}\\b',
        [
          '-----begin ',
          'akia',
          'gho_',
          'ghp_',
          'ghr_',
          'ghs_',
          'ghu_',
          'github_pat_',
          'sk_live_',
          'xoxa-',
          'xoxb-',
          'xoxp-',
          'xoxr-',
          'xoxs-',
        ],
      ],
      ['(?i)\\b(drop|truncate)\\b|\\bdelete\\s+from\\b', ['delete', 'drop', 'truncate']],
      ['(?i)^\\W*approve\\b', ['approve']],
      ['(^|/)\\.github/workflows/', ['.github/workflows/', '/.github/workflows/']],
      ['ab(c|d)ef', ['abcef', 'abdef']],
      ['a|', null],
      ['abc?', null],
      ['(ab)+cd', null],
      ['\\Qsecret\\E', null],
      ['(?i)\\bmerge\\b|rm', null],
      ['(?i)café', ['caf']],
      ['(?i)é+', null],
    ];
    for (const [pattern, expected] of cases) assert.deepEqual(requiredLiterals(pattern), expected, pattern);
  });

  test('says a text without any literal cannot match, and one with a literal may', () => {
    const literals = requiredLiterals('\\bAKIA[0-9A-Z]{16}\\b') ?? [];
    assert.equal(mayMatch(literals, 'a long text about keys and akin words'), false);
    assert.equal(mayMatch(literals, 'id AKIAABCDEFGHIJKLMNOP here'), true);
    assert.equal(mayMatch(literals, 'id akia (folded: may, RE2 decides)'), true);
  });
});
