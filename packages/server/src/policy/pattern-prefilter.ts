/**
 * Required literals of a MATCHES pattern (contract §4.5's cost budget): a small set of strings
 * such that every match of the pattern contains at least one of them, after case folding. A text
 * that contains none of them cannot match, and finding that out costs a few passes over the text
 * instead of RE2's worst case (program size × text length). `-----BEGIN …|\bAKIA…|\bgh[pousr]_…`
 * needs one of `-----begin `, `akia`, `ghp_`, … `ghr_`; `\bdrop\b` needs `drop`.
 *
 * The analysis reads the pattern text (already accepted by RE2) with a small parser and is sound by
 * construction, RE2's own prefilter idea on a subset of the syntax: literals, `\b`-style
 * assertions, escaped punctuation, small character classes of plain members, groups, alternation
 * and repetitions. Anything else (`\Q…\E`, `\x…`, octal escapes) gives up and the pattern has no
 * prefilter; it is then charged and run as before. Pure.
 *
 * Case: both the literals and the text are folded character by character (A–Z to a–z, KELVIN SIGN
 * to `k`, LATIN SMALL LETTER LONG S to `s`, the only characters outside ASCII that RE2's `(?i)`
 * matches to ASCII letters), so a literal is found however the text writes it. Folding can only
 * find more, never less. A pattern with `(?i…)` anywhere keeps no literal outside ASCII (other
 * scripts have case orbits this folding does not cover).
 */

/** Most strings a set may hold; a larger set is no prefilter. */
const MAX_SET = 16;
/** Longest literal kept, in UTF-16 code units. */
const MAX_LITERAL = 32;
/** Members a character class may have to count as a set of literals. */
const MAX_CLASS_MEMBERS = 8;
/** Shortest literal worth a prefilter: shorter ones occur in most texts. */
export const MIN_PREFILTER_LITERAL = 3;

/** What the analysis knows of a part of the pattern. */
interface Info {
  /** Every match of the part is one of these strings (folded), or null when unknown. */
  readonly exact: ReadonlySet<string> | null;
  /** Every match of the part contains one of these non-empty strings (folded), or null. */
  readonly required: ReadonlySet<string> | null;
}

const UNKNOWN: Info = { exact: null, required: null };
const EMPTY: Info = { exact: new Set(['']), required: null };

class GiveUp extends Error {}

/** A character as the prefilter compares it: A–Z lower-cased, U+212A to `k`, U+017F to `s`. */
function foldCharacter(ch: string): string {
  if (ch === '\u212A') return 'k';
  if (ch === '\u017F') return 's';
  const code = ch.charCodeAt(0);
  return ch.length === 1 && code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : ch;
}

const NOT_ASCII = /\P{ASCII}/u;
const FOLDED_AWAY = /[A-Z\u017F\u212A]/g;

/** The text folded character by character, as the literals are (never `toLowerCase`, which is not). */
export function foldForPrefilter(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  return text.replace(FOLDED_AWAY, foldCharacter);
}

/** A set usable as a required set: non-empty strings only. */
function usable(set: ReadonlySet<string> | null): ReadonlySet<string> | null {
  if (set === null || set.size === 0 || set.size > MAX_SET) return null;
  for (const s of set) if (s === '') return null;
  return set;
}

function shortest(set: ReadonlySet<string>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const s of set) min = Math.min(min, s.length);
  return min;
}

/** The most selective of several required sets: longest shortest member, then fewest members. */
function best(...sets: Array<ReadonlySet<string> | null>): ReadonlySet<string> | null {
  let chosen: ReadonlySet<string> | null = null;
  for (const candidate of sets.map(usable)) {
    if (candidate === null) continue;
    if (
      chosen === null ||
      shortest(candidate) > shortest(chosen) ||
      (shortest(candidate) === shortest(chosen) && candidate.size < chosen.size)
    ) {
      chosen = candidate;
    }
  }
  return chosen;
}

/** Every string of `a` followed by every string of `b`, or null when that is too many or too long. */
function product(a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> | null {
  if (a.size * b.size > MAX_SET) return null;
  const strings = new Set<string>();
  for (const x of a) for (const y of b) strings.add(x + y);
  for (const s of strings) if (s.length > MAX_LITERAL) return null;
  return strings;
}

function alternate(a: Info, b: Info): Info {
  if (a.exact !== null && b.exact !== null) {
    const union = new Set([...a.exact, ...b.exact]);
    if (union.size <= MAX_SET) return { exact: union, required: null };
  }
  const left = best(a.required, a.exact);
  const right = best(b.required, b.exact);
  if (left === null || right === null) return UNKNOWN;
  const union = new Set([...left, ...right]);
  return { exact: null, required: union.size <= MAX_SET ? union : null };
}

/** At least one repetition of `a`: its matches contain one of `a`'s. */
function atLeastOnce(a: Info): Info {
  return { exact: null, required: best(a.required, a.exact) };
}

const ESCAPED_CONTROL: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  f: '\f',
  v: '\v',
  a: '\x07',
};
const ZERO_WIDTH_ESCAPES = new Set(['b', 'B', 'A', 'z']);
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W']);
const REPEAT = /^\{(\d+)(?:,(\d*))?\}/;

class PatternReader {
  #at = 0;

  constructor(
    readonly pattern: string,
    /** `(?i…)` somewhere: only ASCII literals are kept. */
    readonly caseFolding: boolean,
  ) {}

  read(): Info {
    const info = this.#alternation();
    if (this.#at !== this.pattern.length) throw new GiveUp();
    return info;
  }

  #peek(offset = 0): string | undefined {
    return this.pattern[this.#at + offset];
  }

  #alternation(): Info {
    let info = this.#concatenation();
    while (this.#peek() === '|') {
      this.#at += 1;
      info = alternate(info, this.#concatenation());
    }
    return info;
  }

  /**
   * A sequence: the exact strings of consecutive known items are joined (`\W*approve` keeps
   * `approve`, not `a`); an unknown item or a product too large ends a run.
   */
  #concatenation(): Info {
    const none: ReadonlySet<string> = new Set(['']);
    let run = none;
    let required: ReadonlySet<string> | null = null;
    let exact = true;
    for (let ch = this.#peek(); ch !== undefined && ch !== '|' && ch !== ')'; ch = this.#peek()) {
      const item = this.#repetition();
      if (item.exact !== null) {
        const joined = product(run, item.exact);
        if (joined !== null) {
          run = joined;
          continue;
        }
        required = best(required, run);
        run = item.exact;
      } else {
        required = best(required, run, item.required);
        run = none;
      }
      exact = false;
    }
    return exact ? { exact: run, required: null } : { exact: null, required: best(required, run) };
  }

  #repetition(): Info {
    let info = this.#atom();
    for (;;) {
      const ch = this.#peek();
      if (ch === '*' || ch === '?') {
        this.#at += 1;
        info = UNKNOWN;
      } else if (ch === '+') {
        this.#at += 1;
        info = atLeastOnce(info);
      } else if (ch === '{') {
        const repeat = REPEAT.exec(this.pattern.slice(this.#at, this.#at + 24));
        if (repeat === null) return info;
        this.#at += repeat[0].length;
        info = Number(repeat[1]) === 0 ? UNKNOWN : atLeastOnce(info);
      } else {
        return info;
      }
      // A lazy repetition (`*?`, `+?`, `{n,}?`) matches the same texts.
      if (this.#peek() === '?') this.#at += 1;
    }
  }

  #atom(): Info {
    const ch = this.#peek();
    if (ch === undefined) throw new GiveUp();
    switch (ch) {
      case '(':
        return this.#group();
      case '[':
        return this.#characterClass();
      case '\\':
        return this.#escape();
      case '.':
        this.#at += 1;
        return UNKNOWN;
      case '^':
      case '$':
        this.#at += 1;
        return EMPTY;
      case '*':
      case '+':
      case '?':
      case ')':
      case '|':
        throw new GiveUp();
      default:
        return this.#literal();
    }
  }

  #literal(): Info {
    const code = this.pattern.codePointAt(this.#at) as number;
    const ch = String.fromCodePoint(code);
    this.#at += ch.length;
    if (this.caseFolding && code > 0x7f) return UNKNOWN;
    return { exact: new Set([foldCharacter(ch)]), required: null };
  }

  #group(): Info {
    this.#at += 1;
    if (this.#peek() === '?') {
      this.#at += 1;
      if (this.#peek() === 'P' || this.#peek() === '<') {
        const end = this.pattern.indexOf('>', this.#at);
        if (end === -1) throw new GiveUp();
        this.#at = end + 1;
      } else {
        const flags = /^[imsU-]*/.exec(this.pattern.slice(this.#at))?.[0] ?? '';
        this.#at += flags.length;
        const next = this.#peek();
        this.#at += 1;
        // `(?i)` sets flags for the rest of the group: it matches nothing itself.
        if (next === ')') return EMPTY;
        if (next !== ':') throw new GiveUp();
      }
    }
    const inner = this.#alternation();
    if (this.#peek() !== ')') throw new GiveUp();
    this.#at += 1;
    return inner;
  }

  #characterClass(): Info {
    this.#at += 1;
    let plain = this.#peek() !== '^';
    if (!plain) this.#at += 1;
    const members = new Set<string>();
    let first = true;
    for (;;) {
      const ch = this.#peek();
      if (ch === undefined) throw new GiveUp();
      if (ch === ']' && !first) {
        this.#at += 1;
        break;
      }
      if (ch === '\\') {
        // An escape in a class (`\d`, `\]`, `\p{L}`): the class is not a set of plain members.
        plain = false;
        this.#at += 2;
        first = false;
        continue;
      }
      if (ch === '[' && this.#peek(1) === ':') {
        const end = this.pattern.indexOf(':]', this.#at + 2);
        if (end === -1) throw new GiveUp();
        plain = false;
        this.#at = end + 2;
        first = false;
        continue;
      }
      if (ch === '-' && !first && this.#peek(1) !== ']') plain = false;
      const code = this.pattern.codePointAt(this.#at) as number;
      const member = String.fromCodePoint(code);
      this.#at += member.length;
      if (this.caseFolding && code > 0x7f) plain = false;
      members.add(foldCharacter(member));
      first = false;
    }
    if (!plain || members.size > MAX_CLASS_MEMBERS) return UNKNOWN;
    return { exact: members, required: null };
  }

  #escape(): Info {
    const next = this.#peek(1);
    if (next === undefined) throw new GiveUp();
    this.#at += 2;
    if (ZERO_WIDTH_ESCAPES.has(next)) return EMPTY;
    if (CLASS_ESCAPES.has(next)) return UNKNOWN;
    if (next === 'p' || next === 'P') {
      if (this.#peek() === '{') {
        const end = this.pattern.indexOf('}', this.#at);
        if (end === -1) throw new GiveUp();
        this.#at = end + 1;
      } else {
        this.#at += 1;
      }
      return UNKNOWN;
    }
    const control = ESCAPED_CONTROL[next];
    if (control !== undefined) return { exact: new Set([control]), required: null };
    // Escaped punctuation is itself; any other escape (\Q, \x, \0-\7, \C, letters) is not read here.
    if (/^[!-/:-@[-`{-~]$/.test(next)) return { exact: new Set([next]), required: null };
    throw new GiveUp();
  }
}

/**
 * The folded strings one of which every match of `pattern` contains, each at least
 * MIN_PREFILTER_LITERAL long, or null when the pattern has no such set the analysis can prove.
 * `pattern` must be one RE2 accepted.
 */
export function requiredLiterals(pattern: string): readonly string[] | null {
  let info: Info;
  try {
    info = new PatternReader(pattern, /\(\?[imsU-]*i/.test(pattern)).read();
  } catch (error) {
    if (error instanceof GiveUp) return null;
    throw error;
  }
  const set = best(info.required, info.exact);
  if (set === null || shortest(set) < MIN_PREFILTER_LITERAL) return null;
  return [...set].sort();
}

/** Whether a text may match: it holds one of the literals, folded. */
export function mayMatch(literals: readonly string[], text: string): boolean {
  const folded = foldForPrefilter(text);
  return literals.some((literal) => folded.includes(literal));
}
