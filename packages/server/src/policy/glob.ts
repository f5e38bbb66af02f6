/**
 * Binding globs (contract §4.5): `*` matches any run of characters including `/` (and the empty
 * run), `?` exactly one character (a Unicode code point), everything else matches itself,
 * case-sensitively. There is no escape syntax: `*` and `?` are always wildcards.
 *
 * No regular expression is built. A glob is split at `*` into literal segments once; a match
 * anchors the first segment at the start and the last at the end, and finds each middle segment
 * at its leftmost position after the previous one (leftmost placement is always safe for
 * `*`-separated segments). Time is O(|subject| × |segment|) at worst, linear with indexOf for
 * segments without `?`.
 */

export interface Glob {
  readonly source: string;
  /**
   * The work of one test per character of the subject, in evaluation-budget steps: 1, or for a
   * glob with `?` the code points of its segments that hold one (each such segment may be tried
   * at every position of the subject).
   */
  readonly weight: number;
  test(subject: string): boolean;
}

interface Segment {
  readonly text: string;
  /** Code points, only when the segment contains `?`. */
  readonly chars: readonly string[] | null;
}

function segmentOf(text: string): Segment {
  return { text, chars: text.includes('?') ? Array.from(text) : null };
}

function charsEqualAt(subject: readonly string[], at: number, segment: readonly string[]): boolean {
  for (let k = 0; k < segment.length; k += 1) {
    const want = segment[k];
    if (want !== '?' && want !== subject[at + k]) return false;
  }
  return true;
}

function findChars(
  subject: readonly string[],
  from: number,
  end: number,
  segment: readonly string[],
): number {
  for (let at = from; at + segment.length <= end; at += 1) {
    if (charsEqualAt(subject, at, segment)) return at;
  }
  return -1;
}

function lengthOf(segment: Segment): number {
  return segment.chars === null ? segment.text.length : segment.chars.length;
}

export function compileGlob(source: string): Glob {
  const parts = source.split('*');
  const segments = parts.map(segmentOf);
  const anyQuestion = segments.some((s) => s.chars !== null);
  const weight = Math.max(
    1,
    segments.reduce((sum, s) => sum + (s.chars?.length ?? 0), 0),
  );

  if (parts.length === 1) {
    if (!anyQuestion) return { source, weight, test: (subject) => subject === source };
    const chars = segments[0]?.chars ?? [];
    return {
      source,
      weight,
      test: (subject) => {
        const s = Array.from(subject);
        return s.length === chars.length && charsEqualAt(s, 0, chars);
      },
    };
  }

  const first = segments[0] as Segment;
  const last = segments[segments.length - 1] as Segment;
  const middle = segments.slice(1, -1).filter((s) => s.text.length > 0);

  if (!anyQuestion) {
    const minLength = first.text.length + last.text.length;
    return {
      source,
      weight,
      test: (subject) => {
        if (subject.length < minLength) return false;
        if (!subject.startsWith(first.text) || !subject.endsWith(last.text)) return false;
        let pos = first.text.length;
        const end = subject.length - last.text.length;
        for (const segment of middle) {
          const at = subject.indexOf(segment.text, pos);
          if (at < 0 || at + segment.text.length > end) return false;
          pos = at + segment.text.length;
        }
        return true;
      },
    };
  }

  const firstChars = first.chars ?? Array.from(first.text);
  const lastChars = last.chars ?? Array.from(last.text);
  const middleChars = middle.map((s) => s.chars ?? Array.from(s.text));
  const minLength = lengthOf(first) + lengthOf(last);
  return {
    source,
    weight,
    test: (subject) => {
      const s = Array.from(subject);
      if (s.length < minLength) return false;
      if (!charsEqualAt(s, 0, firstChars)) return false;
      const end = s.length - lastChars.length;
      if (!charsEqualAt(s, end, lastChars)) return false;
      let pos = firstChars.length;
      for (const segment of middleChars) {
        const at = findChars(s, pos, end, segment);
        if (at < 0) return false;
        pos = at + segment.length;
      }
      return true;
    },
  };
}

/** A set of globs: true when any matches. Exact (wildcard-free) entries are checked with a Set. */
export interface GlobSet {
  readonly sources: readonly string[];
  test(subject: string): boolean;
  /**
   * Work of one test, in evaluation-budget steps: one for the exact entries, and per glob the
   * subject's length plus one, times the glob's weight.
   */
  steps(subjectLength: number): number;
}

export function compileGlobSet(sources: readonly string[]): GlobSet {
  const exact = new Set<string>();
  const globs: Glob[] = [];
  for (const source of sources) {
    if (source.includes('*') || source.includes('?')) globs.push(compileGlob(source));
    else exact.add(source);
  }
  const weight = globs.reduce((sum, glob) => sum + glob.weight, 0);
  return {
    sources,
    test: (subject) => {
      if (exact.has(subject)) return true;
      for (const glob of globs) if (glob.test(subject)) return true;
      return false;
    },
    steps: (subjectLength) => 1 + weight * (subjectLength + 1),
  };
}

/** Convenience for one-off checks (compiles each time; compiled policies use compileGlob). */
export function globMatches(pattern: string, subject: string): boolean {
  return compileGlob(pattern).test(subject);
}
