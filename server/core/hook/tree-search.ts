import { compileGlob, plainGlob, type GlobEntry, type GlobMatch } from './search-glob.js';

/**
 * A recursive search an agent runs itself (Bash `grep -r`, `rg`, `diff -r`, Claude Code's Grep
 * tool). It prints lines of every file it reaches below a folder, so the folder's path alone does
 * not say what it reads: a `.env` or `.git/config` in the tree is printed (or, for a names-only
 * search, confirmed pattern by pattern) as surely as `cat .env` would print it (SPEC §5 deny_always).
 * This is what the searcher skips by itself, as its own options say. Every reading errs toward
 * "reached": an option ORACLE does not understand skips nothing, a file both included and excluded
 * is searched. Pure.
 */
export interface TreeSearch {
  /** The searcher, which sets its defaults and how ORACLE spells an exclusion for it. */
  readonly by: SearchBy;
  /** It follows links below the starting folder (`grep -R`, `rg -L`): what it reaches is unknowable from the tree. */
  readonly follows: boolean;
  /** It skips names starting with a dot (rg without `--hidden`). */
  readonly skipsHidden: boolean;
  /** It skips what the repository's ignore files ignore (rg without `--no-ignore`); git says which. */
  readonly honoursIgnores: boolean;
  /** Its include and exclude options, in order. */
  readonly filters: readonly SearchFilter[];
  /** What ORACLE assumed about it beyond its options, and why (said wherever it matters). */
  readonly assumed?: string;
}

export type SearchBy = 'grep' | 'rg' | 'diff' | 'Grep';

export interface SearchFilter {
  readonly kind: 'include' | 'exclude';
  readonly glob: string;
  /** Which entries it names: grep's --exclude names files, --exclude-dir folders; a glob of rg, both. */
  readonly applies: 'file' | 'dir' | 'any';
  readonly nocase?: boolean;
}

export type EntryKind = 'file' | 'dir';

/** An entry a search would read (or enter) that the policy hides from every agent, and why. */
export interface HiddenReach {
  readonly path: string;
  readonly name: string;
  readonly kind: EntryKind;
  readonly why: string;
  readonly rule: string;
  /**
   * Hidden by a deny_always rule on its name alone (`.env`, `*.pem`, `.git`, also after a leading
   * `**` folder): every entry of
   * that name is hidden wherever it is, so leaving the name out of a search loses nothing readable.
   */
  readonly anywhere?: boolean;
}

/**
 * What a search reaches below its starting folder, as the toolhost found by walking it
 * (toolhost/search-reach.ts): what the policy hides (the gate refuses the search), the first
 * dependency folder (its text taints the session, SPEC §4), or why ORACLE cannot tell (a person
 * decides).
 */
export interface SearchReach {
  readonly hidden: readonly HiddenReach[];
  readonly foreign: string | undefined;
  readonly unknown: string | undefined;
  /** For a searcher that skips what the repository ignores: why git's word on `hidden` was not had. */
  readonly unweighed?: string;
}

/** The folders version control keeps, which Claude Code's Grep always leaves out (it passes `--glob !NAME`). */
const VCS_FOLDERS: ReadonlySet<string> = new Set(['.git', '.svn', '.hg', '.bzr', '.jj', '.sl']);

/**
 * Whether the searcher skips an entry it meets (a file it does not read, a folder it does not
 * enter), by its name: a glob that would need the entry's path is one ORACLE is unsure of.
 */
export function searcherSkips(search: TreeSearch, entry: { readonly name: string; readonly kind: EntryKind }): boolean {
  if (search.by === 'Grep' && entry.kind === 'dir' && VCS_FOLDERS.has(entry.name)) return true;
  const filters = search.filters.filter((f) => f.applies === 'any' || f.applies === entry.kind);
  // An exclude counts only where ORACLE is sure it names the entry; an include wherever it may.
  const read = filters.map((f) => ({ kind: f.kind, match: matches(search.by, f, entry) }));
  const excluded = read.some((f) => f.kind === 'exclude' && f.match === 'yes');
  const includedToo = read.some((f) => f.kind === 'include' && f.match !== 'no');
  // Both an include and an exclude name it: whichever wins, ORACLE counts it as searched.
  if (excluded && !includedToo) return true;
  if (usesGitignoreGlobs(search.by)) {
    // rg: with any include glob, a file that matches none is not searched (folders are still entered).
    const includes = filters.filter((f) => f.kind === 'include');
    if (entry.kind === 'file' && includes.length > 0 && !includedToo) return true;
  } else if (entry.kind === 'file' && filters[0]?.kind === 'include' && read.every((f) => f.match === 'no')) {
    // grep: a file no --include or --exclude names is searched unless the first of them is an --include.
    return true;
  }
  return effectivelySkipsHidden(search) && entry.name.startsWith('.');
}

/** rg lets an include glob override its hidden and ignore rules; ORACLE then trusts neither. */
export function effectivelySkipsHidden(search: TreeSearch): boolean {
  return search.skipsHidden && !search.filters.some((f) => f.kind === 'include');
}

export function effectivelyHonoursIgnores(search: TreeSearch): boolean {
  return search.honoursIgnores && !search.filters.some((f) => f.kind === 'include');
}

function usesGitignoreGlobs(by: SearchBy): boolean {
  return by === 'rg' || by === 'Grep';
}

/** Each filter's glob, read once for a whole walk (a search meets up to 100,000 entries). */
const compiled = new WeakMap<SearchFilter, (entry: GlobEntry) => GlobMatch>();

/** grep and diff match a glob with fnmatch; rg and Claude Code's Grep, gitignore-style (search-glob.ts). */
function matches(by: SearchBy, filter: SearchFilter, entry: GlobEntry): GlobMatch {
  let matcher = compiled.get(filter);
  if (matcher === undefined) {
    matcher = compileGlob(usesGitignoreGlobs(by) ? 'gitignore' : 'fnmatch', filter.glob, filter.nocase === true);
    compiled.set(filter, matcher);
  }
  return matcher(entry);
}

/** How to leave these entries out, spelled for the searcher (the advice in a refusal). */
export function exclusionAdvice(by: SearchBy, entries: readonly { readonly name: string; readonly kind: EntryKind }[]): string {
  // A name with characters ORACLE does not read in a glob is advised as a `*` glob it does read.
  const named = entries.map((e) => ({ kind: e.kind, name: plainGlob(e.name) }));
  const unique = [...new Map(named.map((e) => [`${e.kind}:${e.name}`, e])).values()];
  const quote = (s: string): string => (/^[\w.@%+=:,/-]+$/u.test(s) ? s : `'${s.replace(/'/gu, `'\\''`)}'`);
  switch (by) {
    case 'grep':
      return unique.map((e) => `${e.kind === 'dir' ? '--exclude-dir' : '--exclude'}=${quote(e.name)}`).join(' ');
    case 'rg':
      return unique.map((e) => `-g ${quote(`!${e.name}`)}`).join(' ');
    case 'diff':
      return unique.map((e) => `-x ${quote(e.name)}`).join(' ');
    case 'Grep':
      return `"glob": "${unique.map((e) => `!${e.name}`).join(' ')}"`;
  }
}

/** The searcher as a person would name it in a sentence. */
export function searcherName(by: SearchBy): string {
  switch (by) {
    case 'grep':
      return '`grep -r`';
    case 'rg':
      return '`rg`';
    case 'diff':
      return '`diff -r`';
    case 'Grep':
      return 'Grep';
  }
}
