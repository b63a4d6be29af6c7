/**
 * The git commands that only read the repository (SPEC §4: git.status, git.diff and git.log are
 * T0, as every read is): run by an agent's own runtime they are the same reads, so a session's
 * taint, which raises every tier above T0 (a dependency's README read an hour ago), does not put
 * them before a person. Only argv ORACLE reads whole counts, in two kinds:
 *
 * - `names`: what git prints is names, states and messages, never a file's text (status, a log
 *   without patches, listings of branches, tags, refs, files);
 * - `text`: a diff of the work tree or the index, which prints the text of tracked files: a read
 *   only where the repository tracks nothing the policy hides (the runtime looks that up).
 *
 * Anything that prints older text (show, blame, cat-file, grep, a log with patches, a diff against
 * a revision) is neither, and keeps its tier. The gate's own git refusals (--output, --ext-diff,
 * -O, …) come first. Pure.
 */
export type GitRead = 'names' | 'text';

const NAMES: ReadonlySet<string> = new Set([
  'status', 'ls-files', 'rev-parse', 'describe', 'shortlog', 'show-ref', 'for-each-ref', 'merge-base', 'show-branch', 'rev-list', 'name-rev',
  'count-objects', 'check-ignore',
]);

/** Options of `git branch` and `git tag` that only choose what a listing shows. */
const LISTING = /^(?:-[arvl]+|-vv|--all|--remotes|--verbose|--list|--show-current|--merged|--no-merged|--column|--no-column|--sort=.+|--format=.+|-n\d*|--ignore-case|--omit-empty)$/u;

/** log options that print text of files: patches, pickaxe searches, line histories, combined diffs. */
const LOG_TEXT = /^(?:-p|-u|--patch.*|-U.*|--unified.*|--word-diff.*|--color-words.*|-G.*|-S.*|-L.*|--cc|-c|--full-diff|--pickaxe.*|--find-object.*|--textconv|--function-context|-W|-[a-zA-Z]*[puGSLcW][a-zA-Z]*)$/u;

export function gitRead(argv: readonly string[]): GitRead | undefined {
  const [sub = '', ...rest] = argv;
  if (NAMES.has(sub)) return 'names';
  switch (sub) {
    case 'log':
      return rest.some((a) => LOG_TEXT.test(a)) ? undefined : 'names';
    case 'diff': {
      // The work tree against the index, or the index against HEAD (--cached): options written
      // with their values attached, and pathspecs only after `--` (a bare word may be a revision).
      const end = rest.indexOf('--');
      const options = end < 0 ? rest : rest.slice(0, end);
      return options.every((a) => a.startsWith('-') && a !== '-' && !/^-[SGO]$/u.test(a) && !a.startsWith('--no-index')) ? 'text' : undefined;
    }
    case 'branch':
    case 'tag':
      // a listing: options that choose what it shows, and no name (a name makes or moves one)
      return rest.every((a) => LISTING.test(a)) ? 'names' : undefined;
    case 'stash':
      return rest.length === 1 && rest[0] === 'list' ? 'names' : undefined;
    case 'reflog':
      return rest.length === 0 || (rest[0] === 'show' && !rest.some((a) => LOG_TEXT.test(a))) ? 'names' : undefined;
    case 'worktree':
      return rest[0] === 'list' ? 'names' : undefined;
    default:
      return undefined;
  }
}
