import type { LinkReader } from '../paths/resolve.js';

/**
 * Which files' text a git command prints, asked of git itself. deny_always hides files, and git
 * keeps what it ever tracked: in a repository that committed a `.env` (or still tracks one),
 * `git show`, `git log -p`, `git diff main...HEAD` and `git grep KEY HEAD` print it, Claude Code
 * running git itself outside any sandbox. So a command that prints stored text gets a second git
 * run made from it that prints only the names of the files whose text the first would print
 * (`--name-only`, `grep -l`), with revisions peeled to commits or trees so a blob's id (which
 * `git ls-tree` shows) cannot pass as one; the runtime runs it (toolhost/git-printed.ts) and the
 * gate judges the names. Built only from options this file knows: any other makes the command
 * `unclear`, and a person decides. Pure.
 */

/**
 * A second git run that prints, NUL-separated and relative to the top, the files the command
 * prints: `raw` entries (modes, so a submodule shows) for diffs, `names` for grep (`REV:path` with
 * a revision), `none` when it prints nothing and its success is the answer (a cat-file object
 * that peels to a tree). An empty `ask` needs no run: the command prints only what its `REV:path`
 * arguments name, each judged as a path.
 */
export interface PrintsQuery {
  readonly ask: readonly string[];
  readonly output: 'raw' | 'names' | 'none';
  /**
   * Only the work tree and the index are printed (a diff or grep with no revision): the
   * runtime may answer from what the index tracks without running the query.
   */
  readonly worktreeOnly: boolean;
}

export type GitPrints = PrintsQuery | { readonly unclear: string };

/** A command that prints only the files its `REV:path` arguments name (judged as paths), or their folders' names. */
const NOTHING_TO_ASK: PrintsQuery = { ask: [], output: 'none', worktreeOnly: false };

/** An excluding pathspec for a path from the repository's top, quoted for a shell. */
export function excludedFromTop(path: string): string {
  return `':(top,exclude)${path.replaceAll("'", "'\\''")}'`;
}

/** Whether a word names a file or folder that exists from the command's working directory (git reads those as paths). */
export type IsPath = (word: string) => boolean;

/** Whether a word names something that exists from `cwd` (git reads such a word as a path). */
export function existsFrom(cwd: string, reader: LinkReader): IsPath {
  return (word) => {
    if (word === '' || word.includes('\0')) return false;
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


/** Options that only change how what is printed looks (dropped from the query), as given. */
const FORMAT =
  /^(?:-p|-u|--patch|-U\d+|--unified=\d+|-s|--no-patch|--stat(?:=\S+)?|--shortstat|--numstat|--dirstat(?:=\S+)?|--name-only|--name-status|--raw|--summary|--compact-summary|--patch-with-stat|--patch-with-raw|--color(?:=\w+)?|--no-color|--color-moved(?:=[\w-]+)?|--no-color-moved|--color-words(?:=.+)?|--word-diff(?:=\w+)?|-w|-b|--ignore-space-change|--ignore-all-space|--ignore-space-at-eol|--ignore-blank-lines|--ignore-cr-at-eol|--minimal|--patience|--histogram|--diff-algorithm=\w+|--indent-heuristic|--no-indent-heuristic|--full-index|--binary|-a|--text|--no-prefix|--default-prefix|--abbrev(?:=\d+)?|--no-abbrev|-W|--function-context|--check|--exit-code|--quiet|--oneline|--graph|--decorate(?:=\w+)?|--no-decorate|--format=.*|--pretty(?:=.*)?|--abbrev-commit|--no-abbrev-commit|--date=.+|--relative-date|--notes|--no-notes|--show-signature|--source|--expand-tabs(?:=\d+)?|--no-expand-tabs|--log-size|--no-ext-diff|--no-textconv|-z|--)$/u;

/** Options of log and show that choose which commits and files, passed to the query as given. */
const LOG_SELECT =
  /^(?:-\d+|-n\d+|--max-count=\d+|--skip=\d+|--since=.+|--after=.+|--until=.+|--before=.+|--author=.+|--committer=.+|--grep=.+|-i|--regexp-ignore-case|--all-match|--invert-grep|--all|--branches(?:=.+)?|--tags(?:=.+)?|--remotes(?:=.+)?|--no-merges|--merges|--first-parent|--reverse|--no-walk|--do-walk|--date-order|--topo-order|--author-date-order|--left-right|--cherry-pick|--cherry-mark|--boundary|--simplify-by-decoration|--full-history|--dense|--sparse|--ancestry-path|--follow|-m|-c|--cc|--diff-merges=[\w-]+|--no-diff-merges|-M\d*%?|--find-renames(?:=\d+%?)?|-C\d*%?|--find-copies(?:=\d+%?)?|--no-renames|--diff-filter=[ACDMRTUXBacdmrtuxb*]+|-S.+|-G.+|--pickaxe-all|--pickaxe-regex|-R|--relative(?:=.+)?|--no-relative)$/u;

/** Log and show options whose value may come as the next word. */
const LOG_VALUE = new Set(['-n', '--max-count', '--skip', '--since', '--after', '--until', '--before', '--author', '--committer', '--grep', '-S', '-G']);

/** Options of diff that choose which trees and files, passed as given. */
const DIFF_SELECT = /^(?:--cached|--staged|--merge-base|-M\d*%?|--find-renames(?:=\d+%?)?|-C\d*%?|--find-copies(?:=\d+%?)?|--no-renames|--diff-filter=[ACDMRTUXBacdmrtuxb*]+|-S.+|-G.+|--pickaxe-all|--pickaxe-regex|-R|--relative(?:=.+)?|--no-relative)$/u;

/** Options of grep that choose what matches, passed as given; a value may come as the next word after the bare ones in GREP_VALUE. */
const GREP_SELECT = /^(?:-[iIwvEGFPar]|--ignore-case|--word-regexp|--invert-match|--extended-regexp|--basic-regexp|--fixed-strings|--perl-regexp|--text|--recursive|--no-recursive|--all-match|--and|--or|--not|--cached|--max-depth=-?\d+|-e.+|--regexp=.+)$/u;
/** Options of grep that change only how matches print (dropped). */
const GREP_FORMAT =
  /^(?:-[nhHozWlLcq]|--files-with-matches|--name-only|--files-without-match|--count|--quiet|--line-number|--column|--full-name|--only-matching|--break|--heading|-p|--show-function|-W|--function-context|--color(?:=\w+)?|--no-color|-z|--null|-[ABC]\d+|--(?:after-|before-)?context=\d+|-m\d+|--max-count=\d+|--threads=\d+|--no-textconv|--)$/u;
/** Options after which grep prints no file's text at all: names, counts, nothing. */
const GREP_NO_TEXT = /^(?:-[lLcq]|--files-with-matches|--name-only|--files-without-match|--count|--quiet)$/u;
const GREP_VALUE = new Set(['-e', '--regexp', '-A', '-B', '-C', '--context', '--after-context', '--before-context', '-m', '--max-count', '--max-depth', '--threads']);
/** Grep's value options that select (kept with their value); the rest only format. */
const GREP_VALUE_SELECT = new Set(['-e', '--regexp', '--max-depth']);

/** Subcommands that print what the repository stores, with no query ORACLE can make of them. */
const PRINTS_UNASKED = new Set(['whatchanged', 'archive', 'format-patch', 'bundle', 'fast-export', 'range-diff', 'merge-tree', 'diff-tree', 'diff-index', 'diff-files', 'request-pull', 'notes', 'show-index', 'unpack-file', 'difftool']);
/** Subcommands whose `-p`/`--patch` (or `-i`, `-e`) shows hunks of tracked files. */
const HUNK_PICKERS = new Set(['add', 'checkout', 'restore', 'reset', 'stash', 'commit']);

const hunksUnclear = (sub: string): GitPrints => ({ unclear: `\`git ${sub}\` with a hunk picker (\`-p\`) shows hunks of tracked files, and ORACLE cannot ask git which` });

/** Short options of the hunk pickers that take a value: the letters after one are its value (`-mpatch`). */
const VALUE_LETTERS = /[mFcCtS]/u;

/** `add -p|-i|-e`, `commit -p|--interactive`, `checkout|restore|reset|stash -p`: interactive hunks of tracked files. */
function picksHunks(sub: string, rest: readonly string[]): boolean {
  if (!HUNK_PICKERS.has(sub)) return false;
  const letters = sub === 'add' ? 'pie' : 'p';
  return rest.some((a) => {
    if (a === '--') return false;
    if (a === '--patch' || a === '--interactive' || (sub === 'add' && a === '--edit')) return true;
    if (!/^-[^-]/u.test(a)) return false;
    const bundle = a.slice(1);
    const value = VALUE_LETTERS.exec(bundle);
    return Array.from(value === null ? bundle : bundle.slice(0, value.index)).some((c) => letters.includes(c));
  });
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
  if (object.includes(':')) return NOTHING_TO_ASK;
  return { ask: ['cat-file', '-e', `${object}^{tree}`], worktreeOnly: false, output: 'none' };
}

/** `git reflog [show] [log options] [REF]` is a log of where a ref has been: a patch option prints text. */
function reflogPrints(rest: readonly string[]): GitPrints | undefined {
  if (rest[0] !== undefined && !rest[0].startsWith('-') && rest[0] !== 'show') return undefined; // expire, delete, exists: no text
  const options = (rest[0] === 'show' ? rest.slice(1) : rest).filter((a) => a.startsWith('-'));
  const names = /^(?:--oneline|--format=.*|--pretty(?:=.*)?|--date=.+|--abbrev-commit|--no-abbrev-commit|--decorate(?:=\w+)?|--no-decorate|--color(?:=\w+)?|--no-color|--stat(?:=\S+)?|--name-only|--name-status)$/u;
  return options.every((a) => names.test(a) || (LOG_SELECT.test(a) && !/^(?:-c|--cc|-m|--diff-merges=[\w-]+)$/u.test(a))) ? undefined : { unclear: '`git reflog` with a patch option prints what ORACLE cannot ask git about' };
}

/** Names only, for the query: NUL-separated, paths from the top, no pager. */
// Renames off: a rename's patch prints the old file's lines, and --raw would name only the new one.
const NAMES_LOG = ['--raw', '-z', '--format=', '--no-relative', '--no-renames'];
const NAMES_DIFF = ['--raw', '-z', '--no-relative', '--no-renames'];

/**
 * What a git argv (after `git`) prints of stored files: undefined when it prints none (names,
 * states, messages) or is no reading command at all, a query when git can be asked which files,
 * `unclear` otherwise. gitRead's names-only commands (git-read-only.ts) are undefined here too.
 */
export function gitPrints(argv: readonly string[], isPath: IsPath): GitPrints | undefined {
  const [sub = '', ...rest] = argv;
  switch (sub) {
    case 'show':
      return logQuery('show', rest, isPath);
    case 'log':
      return logQuery('log', rest, isPath);
    case 'diff':
      return diffQuery(rest, isPath);
    case 'grep':
      return grepQuery(rest, isPath);
    case 'stash':
      return rest[0] !== 'show' && rest[0] !== 'list' && picksHunks(sub, rest) ? hunksUnclear(sub) : stashPrints(rest);
    case 'cat-file':
      return catFilePrints(rest);
    default:
      if (picksHunks(sub, rest)) return hunksUnclear(sub);
      if (sub === 'reflog') return reflogPrints(rest);
      return PRINTS_UNASKED.has(sub) ? { unclear: `\`git ${sub}\` can print what the repository stores, and ORACLE cannot ask git which files` } : undefined;
  }
}

/** Options, words and pathspecs of a command line, each option checked against what a query may keep. */
interface Split {
  readonly keep: string[];
  readonly words: string[];
  readonly pathspecs: string[];
  readonly unknown?: string;
  /** Options that mean nothing is printed but names (no patch). */
  readonly formats: string[];
}

/** What a subcommand's options are: kept by the query, taking a value, only formatting. */
interface Grammar {
  readonly select: RegExp;
  readonly values: ReadonlySet<string>;
  readonly keepValue: (option: string) => boolean;
  readonly format: RegExp;
}

function split(rest: readonly string[], { select, values, keepValue, format }: Grammar): Split {
  const out: Split = { keep: [], words: [], pathspecs: [], formats: [] };
  for (let i = 0; i < rest.length; i += 1) {
    const token = rest[i] ?? '';
    if (token === '--') {
      out.pathspecs.push(...rest.slice(i + 1));
      return out;
    }
    if (!token.startsWith('-') || token === '-') out.words.push(token);
    else if (values.has(token)) {
      const value = rest[i + 1];
      if (value === undefined) return { ...out, unknown: token };
      if (keepValue(token)) out.keep.push(token, value);
      i += 1;
    } else if (select.test(token)) out.keep.push(token);
    else if (format.test(token)) out.formats.push(token);
    else return { ...out, unknown: token };
  }
  return out;
}

const unknownOption = (sub: string, option: string): GitPrints => ({ unclear: `ORACLE does not know what \`${option}\` makes \`git ${sub}\` print` });

/**
 * A revision word peeled to what it must be (`^{commit}`, or `^{tree}` for grep): a blob's id
 * then fails the query instead of printing nothing in it. Ranges and `^` prefixes keep their
 * shape; a word with a colon (`REV:path`, `:/message`) is undefined (the caller decides).
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

/** Words git would read as paths (they exist here) go after `--`; the rest are revisions, peeled. */
function revisionsAndPaths(words: readonly string[], isPath: IsPath, to: 'commit' | 'tree'): { revisions: string[]; paths: string[] } | { colon: string } {
  const revisions: string[] = [];
  const paths: string[] = [];
  for (const word of words) {
    // git reads a word as a path only once the revisions have ended.
    if (paths.length > 0 || (isPath(word) && !/^(?:HEAD|@)$/u.test(word))) {
      paths.push(word);
      continue;
    }
    const peel = peeled(word, to);
    if (peel === undefined) return { colon: word };
    revisions.push(peel);
  }
  return { revisions, paths };
}

function logQuery(sub: 'log' | 'show', rest: readonly string[], isPath: IsPath): GitPrints | undefined {
  const parts = split(rest, { select: LOG_SELECT, values: LOG_VALUE, keepValue: () => true, format: FORMAT });
  if (parts.unknown !== undefined) return unknownOption(sub, parts.unknown);
  // `-s`/`--no-patch` (and, for log, no patch asked) print no file's text; a later -p would.
  const patch = (a: string): boolean => /^(?:-p|-u|--patch|-U\d+|--unified=\d+|-W|--function-context|--patch-with-stat|--patch-with-raw|--word-diff(?:=\w+)?|--color-words(?:=.+)?|--binary)$/u.test(a);
  // `-c`, `--cc` and `--diff-merges` print merges' patches with no -p (git 2.39); -m is counted too.
  const mergePatch = parts.keep.some((a) => /^(?:-c|--cc|-m|--diff-merges=[\w-]+)$/u.test(a));
  const lastPatch = mergePatch ? parts.formats.length : parts.formats.findLastIndex(patch);
  const lastNoPatch = parts.formats.findLastIndex((a) => /^(?:-s|--no-patch)$/u.test(a));
  const namesOnlyFormat = parts.formats.some((a) => /^(?:--stat(?:=\S+)?|--shortstat|--numstat|--dirstat(?:=\S+)?|--name-only|--name-status|--raw|--summary|--compact-summary|--check)$/u.test(a));
  if (lastNoPatch > lastPatch && lastNoPatch >= 0) return undefined;
  if (lastPatch < 0 && (sub === 'log' || namesOnlyFormat)) return undefined;
  if (sub === 'show') {
    // `REV:path` prints that path (judged as a path) or a folder's names; `:/text` finds a commit.
    const plain = parts.words.filter((w) => !w.includes(':') || w.startsWith(':/'));
    if (plain.length === 0 && parts.words.length > 0) return NOTHING_TO_ASK;
    if (parts.words.some((w) => w.startsWith(':/'))) return { unclear: '`git show :/TEXT` shows the commit its message finds' };
    const sorted = revisionsAndPaths(plain, isPath, 'commit');
    if ('colon' in sorted) return { unclear: `ORACLE cannot ask git what \`${sorted.colon}\` prints` };
    return { ask: ['show', ...parts.keep, ...NAMES_LOG, '--end-of-options', ...sorted.revisions, '--', ...sorted.paths, ...parts.pathspecs], worktreeOnly: false, output: 'raw' };
  }
  const sorted = revisionsAndPaths(parts.words, isPath, 'commit');
  if ('colon' in sorted) return { unclear: `ORACLE cannot ask git what \`${sorted.colon}\` prints` };
  return { ask: ['log', ...parts.keep, ...NAMES_LOG, '--end-of-options', ...sorted.revisions, '--', ...sorted.paths, ...parts.pathspecs], worktreeOnly: false, output: 'raw' };
}

function diffQuery(rest: readonly string[], isPath: IsPath): GitPrints | undefined {
  const parts = split(rest, { select: DIFF_SELECT, values: new Set(), keepValue: () => true, format: FORMAT });
  if (parts.unknown !== undefined) return unknownOption('diff', parts.unknown);
  const namesOnly = parts.formats.some((a) => /^(?:--stat(?:=\S+)?|--shortstat|--numstat|--dirstat(?:=\S+)?|--name-only|--name-status|--raw|--summary|--compact-summary|--quiet|--check)$/u.test(a));
  const patch = parts.formats.some((a) => /^(?:-p|-u|--patch|-U\d+|--unified=\d+|-W|--function-context|--patch-with-stat|--patch-with-raw|--word-diff(?:=\w+)?|--color-words(?:=.+)?|--binary)$/u.test(a));
  if (namesOnly && !patch) return undefined;
  const sorted = revisionsAndPaths(parts.words, isPath, 'commit');
  if ('colon' in sorted) return { unclear: `ORACLE cannot ask git what \`${sorted.colon}\` prints` };
  return { ask: ['diff', ...parts.keep, ...NAMES_DIFF, ...sorted.revisions, '--', ...sorted.paths, ...parts.pathspecs], worktreeOnly: sorted.revisions.length === 0 && !parts.keep.some((a) => a === '--cached' || a === '--staged' || a === '--merge-base'), output: 'raw' };
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

function grepQuery(given: readonly string[], isPath: IsPath): GitPrints | undefined {
  const parts = split(unbundled(given), { select: GREP_SELECT, values: GREP_VALUE, keepValue: (o) => GREP_VALUE_SELECT.has(o), format: GREP_FORMAT });
  if (parts.unknown !== undefined) return unknownOption('grep', parts.unknown);
  // (an option's value, `-e -l`, is no option: split has taken it)
  if (parts.formats.some((a) => GREP_NO_TEXT.test(a))) return undefined;
  const patterned = parts.keep.some((a) => a === '-e' || a === '--regexp' || a.startsWith('--regexp=') || /^-e./u.test(a));
  const [pattern, ...words] = patterned ? ['', ...parts.words] : parts.words;
  if (pattern === undefined) return undefined;
  const sorted = revisionsAndPaths(words, isPath, 'tree');
  if ('colon' in sorted) return { unclear: `ORACLE cannot ask git what \`${sorted.colon}\` prints` };
  const named = patterned ? [] : ['-e', pattern];
  return { ask: ['grep', '-l', '-z', '--full-name', ...parts.keep, ...named, ...sorted.revisions, '--', ...sorted.paths, ...parts.pathspecs], worktreeOnly: sorted.revisions.length === 0 && !parts.keep.includes('--cached'), output: 'names' };
}

function stashPrints(rest: readonly string[]): GitPrints | undefined {
  if (rest[0] === 'list') return rest.length === 1 ? undefined : { unclear: '`git stash list` with options can print the stashed changes' };
  if (rest[0] !== 'show') return undefined;
  const options = rest.slice(1).filter((a) => a.startsWith('-'));
  const refs = rest.slice(1).filter((a) => !a.startsWith('-'));
  const patch = options.some((a) => /^(?:-p|-u|--patch|-U\d+|--unified=\d+)$/u.test(a));
  if (!patch && options.every((a) => /^(?:--stat(?:=\S+)?|--name-only|--name-status|--numstat|--shortstat|--summary)$/u.test(a))) return undefined;
  if (refs.length > 1 || !options.every((a) => FORMAT.test(a))) return { unclear: '`git stash show` with these options can print what ORACLE cannot ask git about' };
  return { ask: ['stash', 'show', '--raw', '-z', '--no-renames', ...refs], worktreeOnly: false, output: 'raw' };
}
