/**
 * Glob matching without regular expressions, in bounded work. A glob an agent chooses is matched
 * against every name a walk meets; compiled to a backtracking regular expression, `*a*a*a…!`
 * against a long name of `a`s held the gate's one thread for minutes (red team, session 31). Here
 * a segment is matched by a table over (piece, character), filled at most once each, `**` by a
 * table over segments, and every step is counted against a budget the caller sets: past it the
 * answer is `over`, never a stall. One engine for every glob the gate reads from an agent (fs_search,
 * the hook's search globs, Bash's own glob expansion). Pure.
 */

/**
 * One piece of a segment: a character test (a character, `?`, a bracket class), `*` (any run),
 * an optional character, a repeated character test (zsh's `x#`) or anything from here on (zsh's
 * `^`).
 */
export type SegmentToken =
  | { readonly kind: 'one'; readonly test: (char: string) => boolean }
  | { readonly kind: 'star' }
  | { readonly kind: 'optional' }
  | { readonly kind: 'repeat'; readonly test: (char: string) => boolean }
  | { readonly kind: 'rest' };

/** A glob's segments between `/`; `**` alone is every depth. */
export type GlobSegment = readonly SegmentToken[] | 'globstar';

/** What matching may still spend; shared by every match of one walk. */
export interface Budget {
  steps: number;
}

/** Whether one name (no `/` in it), read as characters (code points), matches one segment. */
export function matchSegment(tokens: readonly SegmentToken[], name: string, budget: Budget): boolean | 'over' {
  const chars = Array.from(name);
  const width = chars.length + 1;
  // 0 unknown, 1 no, 2 yes: whether tokens[t…] match chars[c…].
  const memo = new Uint8Array((tokens.length + 1) * width);
  const at = (t: number, c: number): boolean | 'over' => {
    const known = memo[t * width + c];
    if (known !== 0) return known === 2;
    budget.steps -= 1;
    if (budget.steps < 0) return 'over';
    const token = tokens[t];
    const char = chars[c];
    const either = (first: () => boolean | 'over', second: () => boolean | 'over'): boolean | 'over' => {
      const one = first();
      return one === false ? second() : one;
    };
    let result: boolean | 'over';
    if (token === undefined) result = char === undefined;
    else if (token.kind === 'rest') result = true;
    else if (token.kind === 'star') result = either(() => at(t + 1, c), () => char !== undefined && at(t, c + 1));
    else if (token.kind === 'optional') result = either(() => at(t + 1, c), () => char !== undefined && at(t + 1, c + 1));
    else if (token.kind === 'repeat') result = either(() => at(t + 1, c), () => char !== undefined && token.test(char) && at(t, c + 1));
    else result = char !== undefined && token.test(char) && at(t + 1, c + 1);
    if (result === 'over') return 'over';
    memo[t * width + c] = result ? 2 : 1;
    return result;
  };
  return at(0, 0);
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

/** A segment's text as tokens: `\\` escapes, `[…]` a class (`!` or `^` first negates), `*`, `?`. */
export function segmentTokens(text: string): SegmentToken[] {
  const chars = Array.from(text);
  const tokens: SegmentToken[] = [];
  const literal = (char: string): SegmentToken => ({ kind: 'one', test: (x) => x === char });
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? '';
    if (c === '\\' && i + 1 < chars.length) tokens.push(literal(chars[++i] ?? ''));
    else if (c === '*') {
      // `a**b` inside a segment is one star, as in any glob.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'one', test: () => true });
    else if (c === '[') {
      const parsed = bracket(chars, i);
      if (parsed === undefined) tokens.push(literal(c));
      else {
        tokens.push(parsed.token);
        i = parsed.end;
      }
    } else tokens.push(literal(c));
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
    if (c === ']' && !first) return { token: { kind: 'one', test: (x) => ranges.some(([from, to]) => from <= x && x <= to) !== negated }, end: i };
    const from = c === '\\' && i + 1 < chars.length ? (chars[++i] ?? '') : c;
    if (chars[i + 1] === '-' && chars[i + 2] !== undefined && chars[i + 2] !== ']') {
      ranges.push([from, chars[i + 2] ?? '']);
      i += 2;
    } else ranges.push([from, from]);
  }
  return undefined;
}
