/**
 * The git commands that only read the repository's names (SPEC §4: git.status, git.diff and
 * git.log are T0, as every read is): run by an agent's own runtime they are the same reads, so a
 * session's taint, which raises every tier above T0 (a dependency's README read an hour ago),
 * does not put them before a person. Only argv ORACLE reads whole counts: what git prints is
 * names, states and messages, never a file's text (status, a log without patches, listings of
 * branches, tags, refs, files). What prints a file's text (a diff, show, grep, a log with
 * patches) is judged by what git says it prints (git-prints.ts). The gate's own git refusals
 * (--output, --ext-diff, -O, …) come first. Pure.
 */
export type GitRead = 'names';

const NAMES: ReadonlySet<string> = new Set([
  'ls-files', 'rev-parse', 'describe', 'shortlog', 'show-ref', 'for-each-ref', 'merge-base', 'show-branch', 'rev-list', 'name-rev',
  'count-objects', 'check-ignore',
]);

/** Options of `git branch` and `git tag` that only choose what a listing shows. */
const LISTING = /^(?:-[arvl]+|-vv|--all|--remotes|--verbose|--list|--show-current|--merged|--no-merged|--column|--no-column|--sort=.+|--format=.+|-n\d*|--ignore-case|--omit-empty)$/u;

/**
 * Options of `git log` (and `reflog show`) that choose which commits and how their names, dates
 * and messages show; any other (a patch in any spelling: -p, --binary, --remerge-diff,
 * --diff-merges, --check, …) keeps its tier. A word that is no option is a revision or a path
 * (paths are judged as paths).
 */
const LOG_NAMES = /^(?:--oneline|--graph|--decorate(?:=.+)?|--no-decorate|--all|--branches(?:=.+)?|--tags(?:=.+)?|--remotes(?:=.+)?|-n|-n\d+|-\d+|--max-count=\d+|--skip=\d+|--since=.+|--after=.+|--until=.+|--before=.+|--author=.+|--committer=.+|--grep=.+|--format=.+|--pretty(?:=.+)?|--stat(?:=.+)?|--shortstat|--numstat|--name-only|--name-status|--abbrev-commit|--no-abbrev-commit|--no-merges|--merges|--first-parent|--reverse|--date=.+|--color(?:=.+)?|--no-color|--follow|--relative-date|--date-order|--topo-order|--author-date-order|-i|--regexp-ignore-case|--left-right|--cherry-pick|--cherry-mark|--boundary|--source|--simplify-by-decoration|--no-walk|--summary|--abbrev=\d+|--)$/u;

/** Options of `git status` that print names and states, never a diff (its -v does). */
const STATUS_NAMES = /^(?:-s|--short|-b|--branch|--porcelain(?:=.+)?|--long|-u\w*|--untracked-files(?:=.+)?|--ignored(?:=.+)?|--show-stash|--ahead-behind|--no-ahead-behind|--column|--no-column|--renames|--no-renames|-z|--)$/u;

export function gitRead(argv: readonly string[]): GitRead | undefined {
  const [sub = '', ...rest] = argv;
  if (NAMES.has(sub)) return 'names';
  const options = (allowed: RegExp): boolean => rest.every((a) => !a.startsWith('-') || allowed.test(a));
  switch (sub) {
    case 'status':
      return options(STATUS_NAMES) ? 'names' : undefined;
    case 'log':
      return options(LOG_NAMES) ? 'names' : undefined;
    case 'branch':
    case 'tag':
      // a listing: options that choose what it shows, and no name (a name makes or moves one)
      return rest.every((a) => LISTING.test(a)) ? 'names' : undefined;
    case 'stash':
      return rest.length === 1 && rest[0] === 'list' ? 'names' : undefined;
    case 'reflog':
      return rest.length === 0 || (rest[0] === 'show' && rest.slice(1).every((a) => !a.startsWith('-') || LOG_NAMES.test(a))) ? 'names' : undefined;
    case 'worktree':
      return rest[0] === 'list' ? 'names' : undefined;
    default:
      return undefined;
  }
}
