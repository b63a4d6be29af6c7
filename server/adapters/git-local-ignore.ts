import { execFile } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** What git was made to do about a file that must never be committed. */
export type LocalIgnore =
  /** DIR is in no git work tree: nothing can commit the file. */
  | { readonly kind: 'no-work-tree' }
  /** git ignores the file already (a .gitignore, info/exclude or core.excludesFile). */
  | { readonly kind: 'ignored' }
  /** The pattern was appended to the repository's own, uncommitted exclude file. */
  | { readonly kind: 'excluded'; readonly file: string; readonly pattern: string }
  /** git tracks the file: no ignore rule keeps what is written there out of the next commit. */
  | { readonly kind: 'tracked' }
  | { readonly kind: 'failed'; readonly reason: string };

interface GitRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Makes sure git will not commit `relative` (a path under `dir`): asks the real git whether it is
 * ignored (`git check-ignore`, which knows every source of ignore rules), and when it is not, adds
 * it to the repository's `info/exclude`, which is never committed (the committed .gitignore is the
 * project's, not ORACLE's), then asks again. git runs by absolute path, with hooks and the
 * fsmonitor (a program a repository's config names) off, on this repository only.
 */
export async function ignoreLocally(git: string, dir: string, relative: string): Promise<LocalIgnore> {
  const run = (args: readonly string[]) => runGit(git, dir, args);
  const where = await run(['rev-parse', '--is-inside-work-tree', '--show-prefix', '--git-path', 'info/exclude']);
  if (where.code !== 0) {
    if (/not a git repository/iu.test(where.stderr)) return { kind: 'no-work-tree' };
    return { kind: 'failed', reason: firstLine(where) };
  }
  const [inside = '', prefix = '', excludeAt = ''] = where.stdout.split('\n');
  if (inside !== 'true') return { kind: 'no-work-tree' };
  const tracked = await run(['ls-files', '--', relative]);
  if (tracked.code !== 0) return { kind: 'failed', reason: firstLine(tracked) };
  if (tracked.stdout.trim() !== '') return { kind: 'tracked' };
  const before = await checkIgnore(run, relative);
  if (before !== false) return before;
  const file = resolve(dir, excludeAt);
  // Anchored at the work tree's root, with gitignore's special characters taken literally.
  const pattern = `/${`${prefix}${relative}`.replace(/[\\*?[]/gu, (c) => `\\${c}`)}`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = '';
    }
    appendFileSync(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}# ORACLE: Claude Code's personal settings hold the hook's credential\n${pattern}\n`);
  } catch (e) {
    return { kind: 'failed', reason: `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  const after = await checkIgnore(run, relative);
  if (after === false) return { kind: 'failed', reason: `git does not ignore it even with \`${pattern}\` in ${file}` };
  return after.kind === 'ignored' ? { kind: 'excluded', file, pattern } : after;
}

/** `git check-ignore`: exit 0 ignored, 1 not ignored, anything else an error. */
async function checkIgnore(run: (args: readonly string[]) => Promise<GitRun>, relative: string): Promise<false | { readonly kind: 'ignored' } | { readonly kind: 'failed'; readonly reason: string }> {
  const checked = await run(['check-ignore', '-q', '--', relative]);
  if (checked.code === 0) return { kind: 'ignored' };
  if (checked.code === 1) return false;
  return { kind: 'failed', reason: firstLine(checked) };
}

const firstLine = (run: GitRun): string => run.stderr.trim().split('\n')[0] ?? `git exited ${String(run.code)}`;

/** Variables that would point git at another repository than DIR's. */
const REPOSITORY_VARIABLES = new Set(['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY']);

function runGit(git: string, dir: string, args: readonly string[]): Promise<GitRun> {
  const inherited = Object.entries(process.env).filter(([name]) => !REPOSITORY_VARIABLES.has(name));
  const env: NodeJS.ProcessEnv = { ...Object.fromEntries(inherited), LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };
  const argv = ['-C', dir, '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', ...args];
  return new Promise((done) => {
    execFile(git, argv, { env, timeout: 15_000, maxBuffer: 1_048_576, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      done({ code, stdout, stderr: error !== null && code === null ? `${stderr}${error.message}` : stderr });
    });
  });
}
