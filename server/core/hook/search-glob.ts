import { matchSegment, segmentTokens, type SegmentToken } from '../paths/wildcard.js';

/**
 * How a searcher's include or exclude glob names an entry, read only where every reading agrees.
 * grep and diff match with fnmatch against the base name (a `/` in the glob never matches; braces
 * are plain characters); rg and Claude Code's Grep use gitignore-style globs (`#` starts a
 * comment, a trailing space is dropped, a `/` anchors the glob to rg's working directory, which
 * the hook may not know, a trailing `/` names folders, braces give alternatives). Past literal
 * characters, `*`, `?` and, for rg, one level of braces, ORACLE does not guess: such a glob is
 * `unsure`, and a caller lets an unsure exclude leave out nothing and an unsure include take in
 * everything. Pure.
 */
export type GlobMatch = 'yes' | 'no' | 'unsure';

export type GlobDialect = 'fnmatch' | 'gitignore';

/**
 * Characters every dialect reads literally, as a character class body (`-` escaped, so it stays
 * literal whatever follows it); `*` and `?` are the only wildcards allowed beside them.
 */
const LITERAL = String.raw`\w.+@%=:~\-`;
const PLAIN = new RegExp(`^[${LITERAL}*?]+$`, 'u');
/** fnmatch reads braces and commas literally too. */
const PLAIN_FNMATCH = new RegExp(`^[${LITERAL}*?,{}]+$`, 'u');

/** A glob ORACLE reads for sure that names `name` (and perhaps more): each run of other characters becomes `*`. */
export function plainGlob(name: string): string {
  return name.replace(new RegExp(`[^${LITERAL}]+`, 'gu'), '*');
}

export interface GlobEntry {
  readonly name: string;
  readonly kind: 'file' | 'dir';
}

/**
 * What matching one glob may cost over a whole walk (a step is one character compared): a glob
 * the agent wrote is matched against every name met, in bounded work (paths/wildcard.ts); past
 * the budget every answer is `unsure`, which counts the entry as reached.
 */
export const GLOB_STEPS = 5_000_000;

/** Reads a glob once; the matcher it returns says how the glob names each entry. */
export function compileGlob(dialect: GlobDialect, glob: string, nocase = false): (entry: GlobEntry) => GlobMatch {
  const byKind = new Map<GlobEntry['kind'], readonly (readonly SegmentToken[])[] | 'no' | undefined>();
  const budget = { steps: GLOB_STEPS };
  // Case folded as ASCII only: past it ORACLE is unsure (a regular expression's `i` folds more).
  const fold = (text: string): string => (nocase ? text.toLowerCase() : text);
  const nonAscii = /[^\x20-\x7e]/u;
  return (entry) => {
    if (!byKind.has(entry.kind)) byKind.set(entry.kind, tokensOf(dialect === 'fnmatch' ? fnmatchForm(glob) : gitignoreForm(glob, entry.kind), fold));
    const alternatives = byKind.get(entry.kind);
    if (alternatives === undefined) return 'unsure';
    if (alternatives === 'no') return 'no';
    // `?` is one character in a UTF-8 locale but one byte in the C locale: only ASCII names are sure.
    if (glob.includes('?') && nonAscii.test(entry.name)) return 'unsure';
    if (nocase && (nonAscii.test(entry.name) || nonAscii.test(glob))) return 'unsure';
    let answer: GlobMatch = 'no';
    for (const tokens of alternatives) {
      const matched = matchSegment(tokens, fold(entry.name), budget);
      if (matched === 'over') return 'unsure';
      if (matched) answer = 'yes';
      if (answer === 'yes') break;
    }
    return answer;
  };
}

/** The glob is plain characters by now (PLAIN): `*` and `?` are its only wildcards, nothing escapes. */
function tokensOf(alternatives: readonly string[] | 'no' | undefined, fold: (text: string) => string): readonly (readonly SegmentToken[])[] | 'no' | undefined {
  return alternatives === undefined || alternatives === 'no' ? alternatives : alternatives.map((a) => segmentTokens(fold(a)));
}

function fnmatchForm(glob: string): readonly string[] | undefined {
  return PLAIN_FNMATCH.test(glob) ? [glob] : undefined;
}

function gitignoreForm(glob: string, kind: 'file' | 'dir'): readonly string[] | 'no' | undefined {
  let body = glob;
  if (body.endsWith('/')) {
    if (kind !== 'dir') return 'no';
    body = body.slice(0, -1);
  }
  if (body.startsWith('**/')) body = body.slice(3);
  if (body.includes('**')) return undefined;
  const brace = /^([^{}]*)\{([^{}]*)\}([^{}]*)$/u.exec(body);
  const alternatives = brace === null ? [body] : (brace[2] ?? '').split(',').map((alt) => `${brace[1] ?? ''}${alt}${brace[3] ?? ''}`);
  // An empty alternative, or any character beyond the plain ones, is read otherwise by some rg.
  return alternatives.every((alt) => alt !== '' && PLAIN.test(alt)) && (brace === null || (brace[2] ?? '').includes(',')) ? alternatives : undefined;
}

