import { spellsLongOption } from './options.js';
import type { LinkReader } from '../paths/resolve.js';

/**
 * Which files' text a git command prints, asked of git itself. deny_always hides files, and git
 * keeps what it ever tracked: in a repository that committed a `.env` (or still tracks one),
 * `git show`, `git log -p`, `git diff main...HEAD` and `git grep KEY HEAD` print it, Claude Code
 * running git itself outside any sandbox. So a command that prints stored text gets look-only git
 * runs made from it that list the files whose text it could print (`--raw` for a diff, the
 * searched tree for a grep, whatever its pattern), with revisions peeled to commits or trees so a
 * blob's id (which `git ls-tree` shows) cannot pass as one; the runtime runs them
 * (toolhost/git-printed.ts) and the gate judges the names. A pattern that only some files match
 * (`grep -l`, `log -G`) is left out of the runs, so whether the command is allowed says nothing
 * about what a hidden file holds. Built only from options this file knows: any other makes the
 * command `unclear`, and a person decides. Pure.
 */

/**
 * Look-only git runs whose outputs, NUL-separated and relative to the top, list the files the
 * command could print: `raw` entries of a diff (modes, so a submodule shows; both paths of a
 * rename or copy), `names` a grep lists (after `strip`, the revision it searched), or `none`
 * when a run prints nothing and its success is the answer (an object that peels to a commit or a
 * tree). No runs at all: the command prints only what its `REV:path` arguments name, each judged
 * as a path, or only names.
 */
export interface PrintsQuery {
  readonly asks: readonly (readonly string[])[];
  readonly output: 'raw' | 'names' | 'none';
  /** What each listed name starts with (a grep's `REV:`), taken off before it is judged. */
  readonly strip?: string;
  /**
   * Only what the index lists is printed (a diff or grep of the work tree): the runtime may
   * answer from the index's list of hidden files without running the query.
   */
  readonly worktreeOnly: boolean;
}

export type GitPrints = PrintsQuery | { readonly unclear: string };

/** A command that prints names, or only the files its `REV:path` arguments name (judged as paths). */
const NOTHING_TO_ASK: PrintsQuery = { asks: [], output: 'none', worktreeOnly: false };

/** Whether a word names a file or folder that exists from the command's working directory (git reads those as paths). */
export type IsPath = (word: string) => boolean;

/** The printing subcommands that take pathspecs after `--` (the refusal's hint, the hook's rewrite, exclusions read as no path). */
export const PATHSPEC_TAKERS: ReadonlySet<string> = new Set(['show', 'log', 'diff', 'grep']);

/** An excluding pathspec for a path from the repository's top, quoted for a shell. */
export function excludedFromTop(path: string): string {
  return `':(top,exclude)${path.replaceAll("'", "'\\''")}'`;
}

/**
 * Whether git reads a word as a path: it exists from `cwd`, or it has a wildcard and nothing of a
 * revision (git takes `'*.ts'` as a pathspec unasked).
 */
export function existsFrom(cwd: string, reader: LinkReader): IsPath {
  return (word) => {
    if (word === '' || word.includes('\0')) return false;
    if (/[*?[]/u.test(word) && !/[@^~:{}]/u.test(word)) return true;
    const segments: string[] = [];
    for (const part of (word.startsWith('/') ? word : `${cwd}/${word}`).split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') segments.pop();
      else segments.push(part);
    }
    const kind = reader.entry(`/${segments.join('/')}`).kind;
    return kind !== 'missing' && kind !== 'error';
  };
}

/**
 * Where git splits `REV:path`: at the first colon outside braces (`HEAD@{12:00}:a.txt`), -1 when
 * there is none. git matches braces without escapes, as this does.
 */
export function revisionColon(word: string): number {
  let depth = 0;
  for (let i = 0; i < word.length; i += 1) {
    const c = word.charAt(i);
    if (c === '{') depth += 1;
    else if (c === '}' && depth > 0) depth -= 1;
    else if (c === ':' && depth === 0) return i;
  }
  return -1;
}

/**
 * A `REV:path` word whose path ORACLE judges as git reads it: one colon outside braces, no
 * search (`:/text`), and a path with no character the path judge cannot read (`*`, `?`, `[`,
 * `\`). Any other word with a colon is no such word.
 */
function plainRevisionPath(word: string): boolean {
  const at = revisionColon(word);
  if (at < 0) return false;
  const path = word.slice(at + 1);
  // `:(top)`, `:!x`, `:^x`, `:/x` at the start are pathspec magic (or a message search) to git.
  if (at === 0 && /^[(!^/]/u.test(path)) return false;
  return path !== '' && !/[*?[\]\\]/u.test(path) && (at === 0 ? !/^[0-3]:/u.test(path) || revisionColon(path.slice(2)) < 0 : true);
}

/** Options that only change how what is printed looks (dropped from the query), as given. */
const FORMAT =
  /^(?:-p|-u|--patch|-U\d+|--unified=\d+|-s|--no-patch|--stat(?:=\S+)?|--shortstat|--numstat|--dirstat(?:=\S+)?|--name-only|--name-status|--raw|--summary|--compact-summary|--patch-with-stat|--patch-with-raw|--color(?:=\w+)?|--no-color|--color-moved(?:=[\w-]+)?|--no-color-moved|--color-words(?:=.+)?|--word-diff(?:=\w+)?|-w|-b|--ignore-space-change|--ignore-all-space|--ignore-space-at-eol|--ignore-blank-lines|--ignore-cr-at-eol|--minimal|--patience|--histogram|--diff-algorithm=\w+|--indent-heuristic|--no-indent-heuristic|--full-index|--binary|-a|--text|--no-prefix|--default-prefix|--abbrev(?:=\d+)?|--no-abbrev|-W|--function-context|--check|--exit-code|--quiet|--oneline|--graph|--decorate(?:=\w+)?|--no-decorate|--format=.*|--pretty(?:=.*)?|--abbrev-commit|--no-abbrev-commit|--date=.+|--relative-date|--show-signature|--source|--expand-tabs(?:=\d+)?|--no-expand-tabs|--log-size|--no-ext-diff|--no-textconv|-z)$/u;
/** Format options that print lines of files (the rest print names, counts, commits). */
const TEXT_FORMAT = /^(?:-p|-u|--patch|-U\d+|--unified=\d+|-W|--function-context|--patch-with-stat|--patch-with-raw|--word-diff(?:=\w+)?|--color-words(?:=.+)?|--binary|--check)$/u;
/** Options that search files' text (pickaxe): which commits or files they keep says what a file holds. */
const PICKAXE = /^(?:-S.+|-G.+|--pickaxe-all|--pickaxe-regex)$/u;

/** Options of log and show that choose which commits and files, passed to the query as given (a pickaxe is left out). */
const LOG_SELECT =
  /^(?:-\d+|-n\d+|--max-count=\d+|--skip=\d+|--since=.+|--after=.+|--until=.+|--before=.+|--author=.+|--committer=.+|--grep=.+|-i|--regexp-ignore-case|--all-match|--invert-grep|--all|--branches(?:=.+)?|--tags(?:=.+)?|--remotes(?:=.+)?|--no-merges|--merges|--first-parent|--reverse|--no-walk|--do-walk|--date-order|--topo-order|--author-date-order|--left-right|--cherry-pick|--cherry-mark|--boundary|--simplify-by-decoration|--full-history|--dense|--sparse|--ancestry-path|--follow|-m|-c|--cc|--diff-merges=[\w-]+|--no-diff-merges|-M\d*%?|--find-renames(?:=\d+%?)?|-C\d*%?|--find-copies(?:=\d+%?)?|--no-renames|--diff-filter=[ACDMRTUXBacdmrtuxb*]+|-R|--relative(?:=.+)?|--no-relative|-S.+|-G.+|--pickaxe-all|--pickaxe-regex)$/u;
/** Log and show options whose value may come as the next word. */
const LOG_VALUE = new Set(['-n', '--max-count', '--skip', '--since', '--after', '--until', '--before', '--author', '--committer', '--grep', '-S', '-G']);
/** Options after which a log or show prints merges' patches with no -p (git 2.39; -m is counted too). */
const MERGE_PATCH = /^(?:-c|--cc|-m|--diff-merges=[\w-]+)$/u;
/**
 * A merge is listed against each parent (`-m`): a combined diff (`show`'s default, `--cc`) names
 * only the merge's own paths, not a parent's `.env` that became `notes.txt`.
 */
const PER_PARENT = '--diff-merges=separate';

/** Options of diff that choose which trees and files, passed as given (a pickaxe is left out). */
const DIFF_SELECT = /^(?:--cached|--staged|--merge-base|-M\d*%?|--find-renames(?:=\d+%?)?|-C\d*%?|--find-copies(?:=\d+%?)?|--no-renames|--diff-filter=[ACDMRTUXBacdmrtuxb*]+|-R|--relative(?:=.+)?|--no-relative|-S.+|-G.+|--pickaxe-all|--pickaxe-regex)$/u;

/** Options of grep that choose how the pattern matches (no part of the query: it lists every file searched). */
const GREP_SELECT = /^(?:-[iIwvEGFPar]|--ignore-case|--word-regexp|--invert-match|--extended-regexp|--basic-regexp|--fixed-strings|--perl-regexp|--text|--recursive|--no-recursive|--all-match|--and|--or|--not|--cached|--max-depth=-?\d+|-e.+|--regexp=.+|-f.+|--file=.+)$/u;
/** Options of grep that change only how matches print, or print names, counts or nothing. */
const GREP_FORMAT =
  /^(?:-[nhHozWlLcq]|--files-with-matches|--name-only|--files-without-match|--count|--quiet|--line-number|--column|--full-name|--only-matching|--break|--heading|-p|--show-function|--function-context|--color(?:=\w+)?|--no-color|--null|-[ABC]\d+|--(?:after-|before-)?context=\d+|-m\d+|--max-count=\d+|--threads=\d+|--no-textconv)$/u;
const GREP_VALUE = new Set(['-e', '--regexp', '-f', '--file', '-A', '-B', '-C', '--context', '--after-context', '--before-context', '-m', '--max-count', '--max-depth', '--threads']);

/** Subcommands that print what the repository stores, with no query ORACLE can make of them. */
const PRINTS_UNASKED = new Set(['whatchanged', 'archive', 'format-patch', 'bundle', 'fast-export', 'range-diff', 'merge-tree', 'diff-tree', 'diff-index', 'diff-files', 'request-pull', 'notes', 'show-index', 'unpack-file', 'difftool']);
/** Subcommands whose `-p`/`--patch` (or `-i`, `-e`) shows hunks of tracked files. */
const HUNK_PICKERS = new Set(['add', 'checkout', 'restore', 'reset', 'stash', 'commit']);
/** Listings whose `--format` can print an object's raw bytes (`%(raw)`: a tag of a blob prints the blob). */
const FORMATTED_LISTINGS = new Set(['for-each-ref', 'tag', 'branch']);

/** Names only, for a diff query: NUL-separated, paths from the top. */
const RAW = ['--raw', '-z', '--no-relative'];
const RAW_LOG = ['--raw', '-z', '--format=', '--no-relative'];
/**
 * Renames and copies found, before the command's own options (its thresholds and `--no-renames`
 * then hold): a rename's or copy's patch prints lines of the file it came from, which `--raw`
 * names with it, and a user's `diff.renames=copies` finds copies the look-only run would not.
 */
const COPIES = '-C';

/**
 * What a git argv (after `git`) prints of stored files: undefined when it prints none (names,
 * states, messages: gitRead's reads, git-read-only.ts) or is no reading command at all, a query
 * when git can be asked which files, `unclear` otherwise.
 */
export function gitPrints(argv: readonly string[], isPath: IsPath): GitPrints | undefined {
  const [sub = '', ...rest] = argv;
  if (FORMATTED_LISTINGS.has(sub) && rest.some((a) => /%\(\*?raw\b/u.test(a))) return { unclear: `\`git ${sub}\` with \`%(raw)\` prints the objects its refs name, a file's text among them` };
  switch (sub) {
    case 'show':
      return showPrints(rest, isPath);
    case 'log':
      return logPrints(rest, isPath);
    case 'diff':
      return diffPrints(rest, isPath);
    case 'grep':
      return grepPrints(rest, isPath);
    case 'stash':
      return rest[0] !== 'show' && rest[0] !== 'list' && picksHunks(sub, rest) ? hunksUnclear(sub) : stashPrints(rest);
    case 'cat-file':
      return catFilePrints(rest);
    case 'reflog':
      return reflogPrints(rest);
    case 'status':
      return statusPrints(rest);
    default:
      if (picksHunks(sub, rest)) return hunksUnclear(sub);
      // `commit --dry-run` (and --long, --short, --porcelain, which imply it) prints the staged
      // diff with -v or a user's commit.verbose, as `status -v` does.
      if (sub === 'commit' && rest.some((a) => ['--dry-run', '--long', '--short', '--porcelain'].some((o) => spellsLongOption(a, o)))) return { unclear: '`git commit --dry-run` prints the diff it would commit where -v or commit.verbose asks for it' };
      // `rebase --show-current-patch` (and am's) prints the patch a stopped rebase applies
      if ((sub === 'rebase' || sub === 'am') && rest.some((a) => spellsLongOption(a, '--show-current-patch'))) return { unclear: `\`git ${sub} --show-current-patch\` prints a patch` };
      return PRINTS_UNASKED.has(sub) ? { unclear: `\`git ${sub}\` can print what the repository stores, and ORACLE cannot ask git which files` } : undefined;
  }
}

const hunksUnclear = (sub: string): GitPrints => ({ unclear: `\`git ${sub}\` with a hunk picker (\`-p\`) shows hunks of tracked files, and ORACLE cannot ask git which` });

/** Short options of the hunk pickers that take a value: the letters after one are its value (`-mpatch`). */
const VALUE_LETTERS = /[mFcCtS]/u;

/** `add -p|-i|-e`, `commit -p|--interactive`, `checkout|restore|reset|stash -p`: interactive hunks of tracked files. */
function picksHunks(sub: string, rest: readonly string[]): boolean {
  if (!HUNK_PICKERS.has(sub)) return false;
  const letters = sub === 'add' ? 'pie' : 'p';
  const end = rest.indexOf('--');
  return (end < 0 ? rest : rest.slice(0, end)).some((a) => {
    // git takes any unambiguous prefix of a long option (`--patc`)
    if (spellsLongOption(a, '--patch') || spellsLongOption(a, '--interactive') || (sub === 'add' && spellsLongOption(a, '--edit'))) return true;
    if (!/^-[^-]/u.test(a)) return false;
    const bundle = a.slice(1);
    const value = VALUE_LETTERS.exec(bundle);
    return Array.from(value === null ? bundle : bundle.slice(0, value.index)).some((c) => letters.includes(c));
  });
}

/** Options, words and pathspecs of a command line, each option checked against what a query may keep. */
interface Split {
  readonly keep: string[];
  readonly words: string[];
  readonly pathspecs: string[];
  readonly formats: string[];
  readonly unknown?: string;
  /** Where the `--` that ended the options stood, when one did. */
  readonly dashes?: number;
}

/** What a subcommand's options are: kept by the query, taking a value, only formatting. */
interface Grammar {
  readonly select: RegExp;
  readonly values: ReadonlySet<string>;
  readonly format: RegExp;
}

function split(rest: readonly string[], { select, values, format }: Grammar): Split {
  const out: Split = { keep: [], words: [], pathspecs: [], formats: [] };
  for (let i = 0; i < rest.length; i += 1) {
    const token = rest[i] ?? '';
    if (token === '--') {
      out.pathspecs.push(...rest.slice(i + 1));
      return { ...out, dashes: i };
    }
    if (!token.startsWith('-') || token === '-') out.words.push(token);
    else if (values.has(token)) {
      const value = rest[i + 1];
      if (value === undefined) return { ...out, unknown: token };
      // attached, as git also reads it, so later steps see one token
      out.keep.push(token.startsWith('--') ? `${token}=${value}` : `${token}${value}`);
      i += 1;
    } else if (select.test(token)) out.keep.push(token);
    else if (format.test(token)) out.formats.push(token);
    else return { ...out, unknown: token };
  }
  return out;
}

const unknownOption = (sub: string, option: string): GitPrints => ({ unclear: `ORACLE does not know what \`${option}\` makes \`git ${sub}\` print` });

/**
 * A revision word peeled to what it must be (`^{commit}`, or `^{tree}`): a blob's id then fails
 * the query instead of printing nothing in it. Ranges and `^` prefixes keep their shape; a word
 * with a colon (`REV:path`, `:/message`) is undefined (the caller decides).
 */
export function peeled(word: string, to: 'commit' | 'tree'): string | undefined {
  if (word.includes(':')) return undefined;
  const peel = (end: string): string => {
    if (end === '') return end;
    // `X^@`, `X^!`, `X^-`, `X^-2`: the suffix stays after the peel.
    const suffix = /\^(?:@|!|-\d*)$/u.exec(end);
    return suffix === null ? `${end}^{${to}}` : `${end.slice(0, suffix.index)}^{${to}}${suffix[0]}`;
  };
  if (word.startsWith('^')) return `^${peel(word.slice(1))}`;
  const range = /\.\.\.?/u.exec(word);
  if (range !== null) return `${peel(word.slice(0, range.index))}${range[0]}${peel(word.slice(range.index + range[0].length))}`;
  return peel(word);
}

/**
 * Words git would read as paths go after `--`; the rest are revisions, peeled. Before an explicit
 * `--` every word is a revision to git, a file of that name or not (`HEAD~2` made as a file).
 */
function revisionsAndPaths(words: readonly string[], isPath: IsPath, to: 'commit' | 'tree', dashes: boolean): { revisions: string[]; paths: string[] } | { colon: string } {
  const revisions: string[] = [];
  const paths: string[] = [];
  for (const word of words) {
    // git reads a word as a path only once the revisions have ended.
    if (!dashes && (paths.length > 0 || (isPath(word) && !/^(?:HEAD|@)$/u.test(word)))) {
      paths.push(word);
      continue;
    }
    const peel = peeled(word, to);
    if (peel === undefined) return { colon: word };
    revisions.push(peel);
  }
  return { revisions, paths };
}

const colonUnclear = (word: string): GitPrints => ({ unclear: `ORACLE cannot ask git what \`${word}\` prints` });

/**
 * `git show`: every object it names prints (a blob's text whatever the format, a commit's patch
 * unless the format prints names only); a `REV:path` prints that path, judged as one.
 */
function showPrints(rest: readonly string[], isPath: IsPath): GitPrints | undefined {
  const parts = split(rest, { select: LOG_SELECT, values: LOG_VALUE, format: FORMAT });
  if (parts.unknown !== undefined) return unknownOption('show', parts.unknown);
  // every ref a set names is shown, a tag of a blob whole
  if (parts.keep.some((a) => /^--(?:all|branches|tags|remotes|do-walk)\b/u.test(a))) return { unclear: '`git show` of a set of refs shows each object they name, a tag of a file among them' };
  const colons = parts.words.filter((w) => w.includes(':'));
  const odd = colons.find((w) => !plainRevisionPath(w));
  if (odd !== undefined) return colonUnclear(odd);
  const sorted = revisionsAndPaths(parts.words.filter((w) => !w.includes(':')), isPath, 'commit', parts.dashes !== undefined);
  if ('colon' in sorted) return colonUnclear(sorted.colon);
  if (sorted.revisions.length === 0 && colons.length > 0) return NOTHING_TO_ASK;
  const keep = parts.keep.filter((a) => !PICKAXE.test(a));
  const pathspecs = [...sorted.paths, ...parts.pathspecs];
  if (!printsText(parts, 'show')) {
    // Names only: still, each revision must name a commit (a blob prints whole).
    return sorted.revisions.length === 0 ? NOTHING_TO_ASK : { asks: [['log', '--no-walk', '--format=', '--end-of-options', ...sorted.revisions, '--']], output: 'none', worktreeOnly: false };
  }
  return { asks: [['show', COPIES, ...keep.filter((a) => !MERGE_PATCH.test(a)), PER_PARENT, ...RAW_LOG, '--end-of-options', ...sorted.revisions, '--', ...pathspecs]], output: 'raw', worktreeOnly: false };
}

/** Whether a log, show or diff prints lines of files: a text format, merges' patches, or (show) its default patch; a pickaxe counts (what it keeps says what a file holds). */
function printsText(parts: Split, sub: 'log' | 'show' | 'diff'): boolean {
  if (parts.keep.some((a) => PICKAXE.test(a))) return true;
  const lastText = parts.keep.some((a) => MERGE_PATCH.test(a)) ? parts.formats.length : parts.formats.findLastIndex((a) => TEXT_FORMAT.test(a));
  const lastNoPatch = parts.formats.findLastIndex((a) => /^(?:-s|--no-patch)$/u.test(a));
  if (lastNoPatch > lastText) return false;
  if (lastText >= 0) return true;
  // With no text format: a log prints commits, a show or diff its patch unless a names format is asked for.
  return sub !== 'log' && !parts.formats.some((a) => /^(?:--stat(?:=\S+)?|--shortstat|--numstat|--dirstat(?:=\S+)?|--name-only|--name-status|--raw|--summary|--compact-summary|--quiet|--exit-code)$/u.test(a));
}

/**
 * `git log`: a log that prints lines of files (a patch, a pickaxe) is asked about what it walks.
 * With one pathspec (exclusions count), git follows that file back through renames where the
 * user's config says `log.follow`, which the look-only run does not read: that run is made both ways.
 */
function logPrints(rest: readonly string[], isPath: IsPath): GitPrints | undefined {
  const parts = split(rest, { select: LOG_SELECT, values: LOG_VALUE, format: FORMAT });
  if (parts.unknown !== undefined) return unknownOption('log', parts.unknown);
  if (!printsText(parts, 'log')) return NOTHING_TO_ASK;
  const sorted = revisionsAndPaths(parts.words, isPath, 'commit', parts.dashes !== undefined);
  if ('colon' in sorted) return colonUnclear(sorted.colon);
  const merges = parts.keep.some((a) => MERGE_PATCH.test(a)) ? [PER_PARENT] : [];
  const keep = parts.keep.filter((a) => !PICKAXE.test(a) && a !== '--follow' && !MERGE_PATCH.test(a));
  const pathspecs = [...sorted.paths, ...parts.pathspecs];
  const ask = ['log', COPIES, ...keep, ...merges, ...RAW_LOG, '--end-of-options', ...sorted.revisions, '--', ...pathspecs];
  // --follow follows the one path through renames, and --raw then names both paths.
  // (an exclusion alone is two to git, which then follows nothing)
  const followed = pathspecs.length === 1 && !/^:(?:[!^]|\([^)]*\bexclude\b)/u.test(pathspecs[0] ?? '') ? [[...ask.slice(0, ask.indexOf('--end-of-options')), '--follow', '-M', ...ask.slice(ask.indexOf('--end-of-options'))]] : [];
  return { asks: [ask, ...followed], output: 'raw', worktreeOnly: false };
}

/** A path word that leaves the repository: git then compares files with no repository (an implicit `--no-index`). */
const leavesRepository = (word: string): boolean => word.startsWith('/') || word.split('/').includes('..');

function diffPrints(rest: readonly string[], isPath: IsPath): GitPrints | undefined {
  const parts = split(rest, { select: DIFF_SELECT, values: new Set(), format: FORMAT });
  if (parts.unknown !== undefined) return unknownOption('diff', parts.unknown);
  const sorted = revisionsAndPaths(parts.words, isPath, 'commit', parts.dashes !== undefined);
  if ('colon' in sorted) return colonUnclear(sorted.colon);
  if ([...sorted.paths, ...parts.pathspecs].some(leavesRepository)) return { unclear: '`git diff` of a path outside the repository compares files as `--no-index` does' };
  if (!printsText(parts, 'diff')) return NOTHING_TO_ASK;
  const keep = parts.keep.filter((a) => !PICKAXE.test(a));
  const index = keep.some((a) => a === '--cached' || a === '--staged' || a === '--merge-base');
  return { asks: [['diff', COPIES, ...keep, ...RAW, ...sorted.revisions, '--', ...sorted.paths, ...parts.pathspecs]], output: 'raw', worktreeOnly: sorted.revisions.length === 0 && !index };
}

/** grep's short options that take a value: in a bundle, what follows one is its value. */
const GREP_VALUE_LETTERS = /[eABCmfO]/u;

/** `-in` as `-i -n`, `-ie PAT` as `-i -e PAT`, `-nA3` as `-n -A3`, `-efoo` kept (an attached value). */
function unbundled(rest: readonly string[]): string[] {
  const out: string[] = [];
  for (const [i, token] of rest.entries()) {
    if (token === '--') return [...out, ...rest.slice(i)];
    if (!/^-[a-zA-Z][a-zA-Z0-9]+$/u.test(token)) {
      out.push(token);
      continue;
    }
    const letters = token.slice(1);
    const value = GREP_VALUE_LETTERS.exec(letters);
    const plain = value === null ? letters : letters.slice(0, value.index);
    out.push(...Array.from(plain, (c) => `-${c}`));
    if (value !== null) out.push(`-${letters.slice(value.index)}`);
  }
  return out;
}

/**
 * `git grep`: asked about every file it searches, whatever its pattern and output (`-l`, `-c` and
 * `-q` tell what a file holds too): a grep of the same revision or index and paths for an empty
 * pattern, which every line matches, into submodules too (a user's `submodule.recurse` sends the
 * real one there).
 */
function grepPrints(given: readonly string[], isPath: IsPath): GitPrints | undefined {
  const grammar = { select: GREP_SELECT, values: GREP_VALUE, format: GREP_FORMAT };
  const tokens = unbundled(given);
  const first = split(tokens, grammar);
  if (first.unknown !== undefined) return unknownOption('grep', first.unknown);
  const patterned = first.keep.some((a) => /^(?:-e|--regexp=|-f|--file=)/u.test(a));
  // git skips a `--` that comes before any pattern (it cannot separate revisions from paths yet).
  const skipped = !patterned && first.words.length === 0 && first.dashes !== undefined;
  const parts = skipped ? split([...tokens.slice(0, first.dashes), ...tokens.slice((first.dashes ?? 0) + 1)], grammar) : first;
  if (parts.unknown !== undefined) return unknownOption('grep', parts.unknown);
  // (with -e, the words are revisions and paths; `(` and `)` group patterns)
  const words = (patterned ? parts.words : parts.words.slice(1)).filter((w) => w !== '(' && w !== ')');
  if (!patterned && parts.words.length === 0) return undefined;
  const sorted = revisionsAndPaths(words, isPath, 'commit', parts.dashes !== undefined);
  if ('colon' in sorted) return colonUnclear(sorted.colon);
  const pathspecs = [...sorted.paths, ...parts.pathspecs];
  const [revision, ...more] = sorted.revisions;
  if (more.length > 0) return { unclear: '`git grep` of several revisions is asked about one at a time' };
  const cached = parts.keep.includes('--cached') ? ['--cached'] : [];
  const ask = ['grep', '-l', '-z', '--full-name', '--recurse-submodules', ...cached, '-e', '', ...(revision === undefined ? [] : [revision]), '--', ...pathspecs];
  return revision === undefined ? { asks: [ask], output: 'names', worktreeOnly: true } : { asks: [ask], output: 'names', strip: `${revision}:`, worktreeOnly: false };
}

function stashPrints(rest: readonly string[]): GitPrints | undefined {
  if (rest[0] === 'list') return rest.length === 1 ? undefined : { unclear: '`git stash list` with options can print the stashed changes' };
  if (rest[0] !== 'show') return undefined;
  const options = rest.slice(1).filter((a) => a.startsWith('-'));
  const refs = rest.slice(1).filter((a) => !a.startsWith('-'));
  // (in stash show, -u is --include-untracked); a user's stash.showPatch and
  // stash.showIncludeUntracked print patches and untracked files unasked: both parts are asked.
  const untracked = /^(?:-u|--include-untracked|--only-untracked|--no-include-untracked)$/u;
  if (refs.length > 1 || !options.every((a) => FORMAT.test(a) || untracked.test(a))) return { unclear: '`git stash show` with these options can print what ORACLE cannot ask git about' };
  return { asks: [['stash', 'show', '--raw', '-z', COPIES, ...refs], ['stash', 'show', '--only-untracked', '--raw', '-z', ...refs]], output: 'raw', worktreeOnly: false };
}

/**
 * `cat-file -p|commit|tree|tag OBJECT`: a `REV:path` prints that path (judged as a path) or a
 * folder's names; any other object prints no file's text when it peels to a tree (a commit, a
 * tag, a tree), which the query checks; a blob fails it.
 */
function catFilePrints(rest: readonly string[]): GitPrints | undefined {
  const [how = '', object, ...more] = rest;
  if (/^-[tse]$/u.test(how) && object !== undefined && more.length === 0) return undefined;
  if (!/^(?:-p|commit|tree|tag)$/u.test(how) || object === undefined || more.length > 0 || object.startsWith('-')) return { unclear: '`git cat-file` can print any object the repository stores' };
  if (object.includes(':')) return plainRevisionPath(object) ? NOTHING_TO_ASK : colonUnclear(object);
  return { asks: [['cat-file', '-e', `${object}^{tree}`]], output: 'none', worktreeOnly: false };
}

/** `git reflog [show] [log options] [REF]` is a log of where a ref has been; expire, delete, exists and drop print no text. */
function reflogPrints(rest: readonly string[]): GitPrints | undefined {
  if (rest[0] !== undefined && /^(?:expire|delete|exists|drop)$/u.test(rest[0])) return undefined;
  const options = (rest[0] === 'show' ? rest.slice(1) : rest).filter((a) => a.startsWith('-'));
  const names = /^(?:--oneline|--format=.*|--pretty(?:=.*)?|--date=.+|--abbrev-commit|--no-abbrev-commit|--decorate(?:=\w+)?|--no-decorate|--color(?:=\w+)?|--no-color|--stat(?:=\S+)?|--name-only|--name-status)$/u;
  return options.every((a) => names.test(a) || (LOG_SELECT.test(a) && !MERGE_PATCH.test(a) && !PICKAXE.test(a))) ? undefined : { unclear: '`git reflog` with a patch option prints what ORACLE cannot ask git about' };
}

/** `git status -v` prints the staged diff (`-vv` the work tree's too). */
function statusPrints(rest: readonly string[]): GitPrints | undefined {
  const end = rest.indexOf('--');
  const options = end < 0 ? rest : rest.slice(0, end);
  const verbose = options.filter((a) => spellsLongOption(a, '--verbose') || /^-[a-zA-Z]*v/u.test(a)).reduce((n, a) => n + (a.startsWith('--') ? 1 : (a.match(/v/gu) ?? []).length), 0);
  if (verbose === 0) return undefined;
  if (verbose > 1) return { unclear: '`git status -vv` prints the diffs of the index and the work tree' };
  return { asks: [['diff', COPIES, '--cached', ...RAW]], output: 'raw', worktreeOnly: false };
}

/** Whether a git argv only reads: names, or stored text git-prints.ts can ask about (a part before it changes nothing git prints). */
export function gitReadsOnly(argv: readonly string[], namesOnly: (argv: readonly string[]) => boolean): boolean {
  const prints = gitPrints(argv, () => false);
  return prints === undefined ? namesOnly(argv) : !('unclear' in prints);
}
