/**
 * Glob matching without regular expressions, in bounded work. A glob an agent chooses is matched
 * against every name a walk meets; compiled to a backtracking regular expression, `*a*a*a…!`
 * against a long name of `a`s held the gate's one thread for minutes (red team, session 31). Here
 * a segment is matched by the classic one-star-backtrack scan (at most names × pattern steps),
 * `**` by a table over segments, and every step is counted against a budget the caller sets: past
 * it the answer is `over`, never a stall. Pure.
 */

/** One piece of a segment: a character, `?`, `*`, or a bracket class. */
export type SegmentToken =
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'any' }
  | { readonly kind: 'star' }
  | { readonly kind: 'class'; readonly negated: boolean; readonly ranges: readonly (readonly [string, string])[] };

/** A glob's segments between `/`; `**` alone is every depth. */
export type GlobSegment = readonly SegmentToken[] | 'globstar';

/** What matching may still spend; shared by every match of one walk. */
export interface Budget {
  steps: number;
}

/** Whether one name (no `/` in it) matches one segment. */
export function matchSegment(tokens: readonly SegmentToken[], name: string, budget: Budget): boolean | 'over' {
  const chars = Array.from(name);
  let p = 0;
  let s = 0;
  let starAt = -1;
  let starFrom = 0;
  while (s < chars.length) {
    budget.steps -= 1;
    if (budget.steps < 0) return 'over';
    const token = tokens[p];
    if (token?.kind === 'star') {
      starAt = p;
      starFrom = s;
      p += 1;
      continue;
    }
    if (token !== undefined && matchesOne(token, chars[s] ?? '')) {
      p += 1;
      s += 1;
      continue;
    }
    if (starAt < 0) return false;
    // Let the last star take one more character, and try the rest again from there.
    p = starAt + 1;
    starFrom += 1;
    s = starFrom;
  }
  while (tokens[p]?.kind === 'star') p += 1;
  return p === tokens.length;
}

function matchesOne(token: SegmentToken, char: string): boolean {
  switch (token.kind) {
    case 'char':
      return token.char === char;
    case 'any':
      return true;
    case 'class':
      return token.ranges.some(([from, to]) => from <= char && char <= to) !== token.negated;
    case 'star':
      return false;
  }
}

/** Whether a path's segments match a glob's, `**` taking any number of them (none included). */
export function matchSegments(glob: readonly GlobSegment[], path: readonly string[], budget: Budget): boolean | 'over' {
  const width = path.length + 1;
  // 0 unknown, 1 no, 2 yes: whether glob[i…] matches path[j…].
  const memo = new Uint8Array((glob.length + 1) * width);
  const at = (i: number, j: number): boolean | 'over' => {
    const known = memo[i * width + j];
    if (known !== 0) return known === 2;
    budget.steps -= 1;
    if (budget.steps < 0) return 'over';
    let result: boolean | 'over';
    const segment = glob[i];
    if (segment === undefined) result = j === path.length;
    else if (segment === 'globstar') {
      const skip = at(i + 1, j);
      result = skip === true || skip === 'over' ? skip : j < path.length ? at(i, j + 1) : false;
    } else if (j === path.length) result = false;
    else {
      const here = matchSegment(segment, path[j] ?? '', budget);
      result = here === true ? at(i + 1, j + 1) : here;
    }
    if (result === 'over') return 'over';
    memo[i * width + j] = result ? 2 : 1;
    return result;
  };
  return at(0, 0);
}

/** A segment's text as tokens: `\` escapes, `[…]` a class (`!` or `^` first negates), `*`, `?`. */
export function segmentTokens(text: string): SegmentToken[] {
  const chars = Array.from(text);
  const tokens: SegmentToken[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? '';
    if (c === '\\' && i + 1 < chars.length) tokens.push({ kind: 'char', char: chars[++i] ?? '' });
    else if (c === '*') {
      // `a**b` inside a segment is one star, as in any glob.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '[') {
      const parsed = bracket(chars, i);
      if (parsed === undefined) tokens.push({ kind: 'char', char: c });
      else {
        tokens.push(parsed.token);
        i = parsed.end;
      }
    } else tokens.push({ kind: 'char', char: c });
  }
  return tokens;
}

/** `[…]` from `start`: its token and the index of its `]`, or undefined when it never closes. */
function bracket(chars: readonly string[], start: number): { token: SegmentToken; end: number } | undefined {
  let i = start + 1;
  const negated = chars[i] === '!' || chars[i] === '^';
  if (negated) i += 1;
  const ranges: [string, string][] = [];
  // A `]` right after the opening is one of the class's characters.
  for (let first = true; i < chars.length; i++, first = false) {
    const c = chars[i] ?? '';
    if (c === ']' && !first) return { token: { kind: 'class', negated, ranges }, end: i };
    const from = c === '\\' && i + 1 < chars.length ? (chars[++i] ?? '') : c;
    if (chars[i + 1] === '-' && chars[i + 2] !== undefined && chars[i + 2] !== ']') {
      ranges.push([from, chars[i + 2] ?? '']);
      i += 2;
    } else ranges.push([from, from]);
  }
  return undefined;
}
