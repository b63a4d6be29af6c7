import type { ScopedPath } from '../../core/paths/scope.js';
import type { LeavingCommit, PushFacts } from '../../core/decide/push.js';
import type { RemoteFacts } from '../../core/decide/git-fetch.js';
import type { StagingFacts, StagingQuery } from '../../core/decide/git-stage.js';
import { gitHomeFiles, type ToolhostEnv } from '../env.js';
import { runJob } from '../run-job.js';
import { sandboxView } from '../sandbox-masks.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';
import type { EgressTarget } from '../../adapters/agent/egress.js';
import { remoteWhere } from '../../core/decide/git-remote.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The git intents (SPEC §6): fixed argv built here, never the model's. Hooks, fsmonitor, pagers,
 * external diff and credential helpers are switched off for every call, so nothing a repository
 * or its config says can run a program.
 */
export const NEUTRAL = [
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.fsmonitor=false',
  '-c', 'core.pager=cat',
  '-c', 'credential.helper=',
  '-c', 'protocol.ext.allow=never',
  '-c', 'core.sshCommand=ssh -oBatchMode=yes',
  // A signing program a repository names (gpg.program, gpg.ssh.program) would run at commit: a
  // repository a job created has a config no person wrote (red team, session 33).
  '-c', 'commit.gpgSign=false',
  '-c', 'tag.gpgSign=false',
  '-c', 'push.gpgSign=false',
  '-c', 'safe.directory=*',
  '-c', 'safe.bareRepository=explicit',
  '--no-pager',
];

interface GitRun {
  readonly args: readonly string[];
  /**
   * Run in a git directory made in the job directory from these files (by path below it), in
   * place of the repository's own; the repository stays bound, read-only, for its objects.
   */
  readonly gitDir?: { readonly name: string; readonly files: Readonly<Record<string, string>> };
  /** The one host a push may reach, through the job's egress proxy. */
  readonly egress?: EgressTarget;
  readonly signal?: AbortSignal;
}

/** What running git needs of an action: the repository it was judged in, and its cancel signal. */
export type InRepo = Pick<PreparedAction, 'actionId' | 'paths' | 'signal'>;

function git(action: InRepo, env: ToolhostEnv, run: GitRun): Promise<ExecutionResult & { cleanupError?: string }> {
  const repo = action.paths[0];
  if (repo === undefined) return Promise.resolve(failed('EXECUTOR_UNAVAILABLE', 'no repository path'));
  return gitIn(repo, env, action.signal === undefined ? run : { ...run, signal: action.signal });
}

async function gitIn(repo: ScopedPath, env: ToolhostEnv, run: GitRun): Promise<ExecutionResult & { cleanupError?: string }> {
  if (!env.git.ok) return failed('EXECUTOR_UNAVAILABLE', `git is not available: ${env.git.reason}`);
  const view = await sandboxView(env.gate, repo.real, { gitVisible: true });
  if ('incomplete' in view) return failed('NOT_ALLOWED', `ORACLE cannot tell what to hide from git: ${view.incomplete}`);
  const own = run.gitDir;
  const outcome = await runJob(
    {
      program: env.git.path,
      // A git directory of the gate's own is named relative to the job directory, its working directory.
      args: own === undefined ? [...NEUTRAL, '-C', repo.real, ...run.args] : [...NEUTRAL, `--git-dir=${own.name}`, ...run.args],
      cwd: own === undefined ? repo.real : undefined,
      view,
      binds: [{ path: repo.real, mode: own === undefined ? repo.root.mode : 'ro' }],
      ...(run.egress === undefined ? {} : { egress: [run.egress] }),
      timeoutMs: 120_000,
      // Literal pathspecs: `[.]env` names a file called `[.]env`, never `.env` (a glob around deny_always).
      extraEnv: { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', GIT_LITERAL_PATHSPECS: '1' },
      homeFiles: own === undefined ? gitHomeFiles(env.gitIdentity) : { ...gitHomeFiles(env.gitIdentity), ...Object.fromEntries(Object.entries(own.files).map(([name, text]) => [`${own.name}/${name}`, text])) },
      ...(own === undefined ? {} : { homeDirs: [own.name, `${own.name}/refs`, `${own.name}/objects`, `${own.name}/objects/info`] }),
      // ORACLE's own git, with its own fixed arguments: it writes the repository as the gate does.
      runAs: 'gate',
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    },
    env,
  );
  return outcome.cleanupError === undefined ? outcome.result : { ...outcome.result, cleanupError: outcome.cleanupError };
}

export function gitStatus(action: PreparedAction<'git.status'>, env: ToolhostEnv): Promise<ExecutionResult> {
  return git(action, env, { args: ['status', '--porcelain=v1', '--branch'] });
}

export function gitDiff(action: PreparedAction<'git.diff'>, env: ToolhostEnv): Promise<ExecutionResult> {
  return git(action, env, { args: ['diff', '--no-ext-diff', '--no-textconv', '--no-color', ...(action.args.staged ? ['--staged'] : [])] });
}

export function gitLog(action: PreparedAction<'git.log'>, env: ToolhostEnv): Promise<ExecutionResult> {
  return git(action, env, { args: ['log', '--no-color', `-n${String(action.args.limit)}`, '--format=%H%x09%an%x09%aI%x09%s'] });
}

/**
 * HEAD's commit, null while the branch has none yet (rev-parse's exit 1), or the failure: a
 * rev-parse killed by HALT or a timeout is not "no commits yet" (red team, session 33: a commit
 * made after HALT recorded `before: null`, whose undo then deleted the branch).
 */
async function head(action: InRepo, env: ToolhostEnv): Promise<{ readonly ok: true; readonly sha: string | null } | { readonly ok: false; readonly result: ExecutionResult }> {
  const r = await git(action, env, { args: ['rev-parse', '--verify', '-q', 'HEAD'] });
  if (r.ok) return { ok: true, sha: str(r.stdout).trim() };
  return r.error?.code === 'EXIT_NONZERO' && r.exit_code === 1 && str(r.stdout).trim() === '' ? { ok: true, sha: null } : { ok: false, result: r };
}

/** git.commit (T1): records HEAD before and after, so undo is a soft reset while HEAD is unchanged. */
export async function gitCommit(action: PreparedAction<'git.commit'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const repo = action.paths[0];
  if (repo === undefined) return failed('EXECUTOR_UNAVAILABLE', 'no repository path');
  const paths = action.paths.slice(1).map((p) => p.real);
  const was = await head(action, env);
  if (!was.ok) return was.result;
  const before = was.sha;
  if (paths.length > 0) {
    const added = await git(action, env, { args: ['add', '--', ...paths] });
    // What git said travels in the result's own stdout and stderr: not repeated in the message.
    if (!added.ok) return failed('GIT_FAILED', `git add failed (exit ${String(added.exit_code ?? added.error?.code)}; git's output follows)`, added);
  }
  const committed = await git(action, env, { args: ['commit', '--no-verify', '-m', action.args.message, ...(paths.length > 0 ? ['--', ...paths] : [])] });
  if (!committed.ok) return failed('GIT_FAILED', `git commit failed (exit ${String(committed.exit_code ?? committed.error?.code)}; git's output follows)`, committed);
  const now = await head(action, env);
  if (!now.ok) return failed(now.result.error?.code ?? 'GIT_FAILED', `the commit ran, but reading HEAD after it did not (${now.result.error?.message ?? 'git failed'}): see \`git log\`; no undo is kept`, now.result);
  const after = now.sha;
  if (after === null || after === before) return failed('GIT_FAILED', 'the commit did not move HEAD', committed);
  const id = env.undo.newId();
  env.undo.save({ id, kind: 'commit', action_id: action.actionId, created_at: env.now().toISOString(), repo: repo.real, before, after });
  return { ...committed, undo_id: id, output: { head: after } };
}

/**
 * git.push pushes exactly what was judged and shown (issue 14): the commit the card names, to the
 * URL the card names. The push runs in a git directory the gate writes in the job directory, whose
 * only link to the repository is its object store (objects/info/alternates): git applies a
 * repository's `url.*.insteadOf`/`pushInsteadOf` rules and `remote."URL"` sections (receivepack,
 * uploadpack) even to a URL given on the command line, so pushing from the repository itself let
 * its config send the commits elsewhere or run a program (red team, session 33). With the system
 * config off and the job's own HOME, no config but the gate's applies. The remote-tracking ref then
 * moves as a push by name would move it.
 */
export async function gitPush(action: PreparedAction<'git.push'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { url, commit, branch, remote } = action.args;
  const repo = action.paths[0];
  if (repo === undefined) return failed('EXECUTOR_UNAVAILABLE', 'no repository path');
  if (url === '' || !/^[0-9a-f]{40,64}$/u.test(commit)) return failed('EXECUTOR_UNAVAILABLE', 'the push target was not resolved at decision time');
  const endpoint = pushEndpoint(url);
  if (typeof endpoint === 'string') return failed('EGRESS_DENIED', endpoint);
  const store = await git(action, env, { args: ['rev-parse', '--path-format=absolute', '--git-path', 'objects', '--show-object-format'] });
  const [objects, format] = str(store.stdout).trim().split('\n');
  if (!store.ok || objects === undefined || !objects.startsWith('/') || (format !== 'sha1' && format !== 'sha256')) {
    return failed('GIT_FAILED', `the repository's object store could not be found: ${str(store.stderr).trim()}`, store);
  }
  const config = format === 'sha1' ? '[core]\n\trepositoryformatversion = 0\n\tbare = true\n' : '[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n';
  // The job reaches that host and port only, through its egress proxy (run-job.ts).
  const pushed = await gitIn(repo, env, {
    args: ['push', '--porcelain', '--no-verify', '--', url, `${commit}:refs/heads/${branch}`],
    gitDir: { name: PUSH_DIR, files: { 'HEAD': 'ref: refs/heads/oracle-push\n', config, 'objects/info/alternates': `${objects}\n` } },
    egress: endpoint,
    ...(action.signal === undefined ? {} : { signal: action.signal }),
  });
  if (!pushed.ok) return pushed;
  if (repo.root.mode === 'rw') await git(action, env, { args: ['update-ref', `refs/remotes/${remote}/${branch}`, commit] });
  return pushed;
}

/** The push's own git directory, in the job directory (the job's working directory). */
const PUSH_DIR = 'push.git';

/**
 * The host and port a push URL connects to, as the egress proxy's one allowed destination, read
 * by the parse the decision used (core/decide/git-remote.ts `remoteWhere`), so the proxy admits
 * exactly the host the card named; or why it cannot go through the proxy (plain http would not be
 * a CONNECT tunnel; a local path needs no network and is refused before this).
 */
export function pushEndpoint(url: string): EgressTarget | string {
  const where = remoteWhere(url);
  if (where.kind !== 'network') return `\`${url}\` names no host a push could reach`;
  if (where.scheme === 'http') return 'a push over `http://` cannot go through the job\'s egress proxy (https, ssh and git:// can)';
  return { host: where.host, port: where.port, why: 'the push remote' };
}

/** Commits a card lists by subject; the count says how many more leave. */
const LEAVING_SHOWN = 20;

/**
 * Where a push of `branch` to `remote` goes, looked up before the decision (git reads the
 * config, insteadOf rewrites included): exactly one push URL, the branch's commit, and the
 * commits none of the remote's tracking refs has.
 */
export async function pushTarget(repo: ScopedPath, remote: string, branch: string, env: ToolhostEnv): Promise<PushFacts> {
  const urls = await gitIn(repo, env, { args: ['remote', 'get-url', '--push', '--all', '--', remote] });
  if (!urls.ok) return { ok: false, reason: `\`${remote}\` is not a remote of this repository` };
  const list = str(urls.stdout).split('\n').filter((u) => u !== '');
  if (list.length !== 1) return { ok: false, reason: `\`${remote}\` has ${String(list.length)} push URLs; ORACLE pushes to exactly one` };
  const head = await gitIn(repo, env, { args: ['rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`] });
  const commit = str(head.stdout).trim();
  if (!head.ok || commit === '') return { ok: false, reason: `there is no local branch \`${branch}\`` };
  const counted = await gitIn(repo, env, { args: ['rev-list', '--count', commit, '--not', `--remotes=${remote}`] });
  const logged = await gitIn(repo, env, { args: ['log', '--no-color', `-n${String(LEAVING_SHOWN)}`, '--format=%H%x09%s', commit, '--not', `--remotes=${remote}`] });
  if (!counted.ok || !logged.ok) return { ok: false, reason: 'the commits that would leave could not be listed' };
  const leaving: LeavingCommit[] = str(logged.stdout)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => ({ sha: l.slice(0, l.indexOf('\t')), subject: l.slice(l.indexOf('\t') + 1) }));
  return { ok: true, target: { url: list[0] ?? '', commit, leaving, count: Number(str(counted.stdout).trim()) } };
}

/**
 * Where `git fetch|pull [REMOTE]` reads from, looked up before the decision: the remote named, or
 * the current branch's (`branch.<name>.remote`, else origin, as git chooses), and its fetch URL
 * as git resolves it (insteadOf rewrites included). A name that is no remote is what git then
 * takes it for: a URL or a path.
 */
export async function fetchSource(repo: ScopedPath, remote: string | undefined, env: ToolhostEnv): Promise<RemoteFacts> {
  let name = remote;
  if (name === undefined) {
    const branch = str((await gitIn(repo, env, { args: ['symbolic-ref', '--short', '-q', 'HEAD'] })).stdout).trim();
    const configured = branch === '' ? undefined : await gitIn(repo, env, { args: ['config', '--get', `branch.${branch}.remote`] });
    name = configured?.ok === true && str(configured.stdout).trim() !== '' ? str(configured.stdout).trim() : 'origin';
  }
  const url = await gitIn(repo, env, { args: ['remote', 'get-url', '--', name] });
  if (url.ok) return { ok: true, remote: name, url: str(url.stdout).trim() };
  if (remote === undefined) return { ok: false, reason: `this repository has no remote \`${name}\` to fetch from` };
  return { ok: true, remote: name, url: name };
}

/** For undo: HEAD now, and a soft reset to where it was. */
export { head as gitHead };
export function gitSoftReset(action: InRepo, env: ToolhostEnv, to: string | null): Promise<ExecutionResult> {
  return git(action, env, { args: to === null ? ['update-ref', '-d', 'HEAD'] : ['reset', '--soft', to] });
}

/**
 * The untracked files a `git add` or `git stash -u|-a` with these pathspecs would start tracking
 * (see core/decide/git-stage.ts), as git says: `ls-files --others`, with the repository's ignore
 * rules unless ignored files count too, from the command's own working directory. It runs in the
 * sandbox with the scope root bound read-only and nothing masked: the names it lists are the
 * gate's to judge and never reach the agent, and a deny_always file hidden from git would be
 * missing from the very list that must name it. Pathspecs are git's, not literal, as a git run by
 * Claude Code reads them (a literal one matches a subset of what the glob does).
 */
export async function untrackedFiles(cwd: ScopedPath, query: StagingQuery, env: ToolhostEnv): Promise<StagingFacts> {
  if (!env.git.ok) return { ok: false, reason: `git is not available to list untracked files: ${env.git.reason}` };
  const listed = await gitLook(env.git.path, ['ls-files', '-z', '--others', ...(query.ignored ? [] : ['--exclude-standard']), '--', ...query.pathspecs], { cwd: cwd.real, root: cwd.root.real }, env);
  if (!listed.ok) return { ok: false, reason: `git could not list the untracked files here (${str(listed.stderr).trim().split('\n')[0] ?? 'no reason given'})` };
  if (listed.truncated === true) return { ok: false, reason: 'the list of untracked files was too long to read whole' };
  return { ok: true, files: str(listed.stdout).split('\0').filter((f) => f !== '') };
}

/**
 * Which of `paths` (below `dir`) the repository's ignore rules ignore, as git says
 * (`check-ignore`: .gitignore files, .git/info/exclude; the user's global excludes file is not
 * read, as the job has its own home, so git may answer "not ignored" where a search skips the
 * file: the safe side). Run like untrackedFiles: the scope root bound read-only, nothing masked,
 * no output that reaches an agent. Undefined when git cannot say (no repository here).
 */
export async function ignoredByGit(dir: ScopedPath, paths: readonly string[], env: ToolhostEnv): Promise<ReadonlySet<string> | undefined> {
  if (!env.git.ok || paths.length === 0) return undefined;
  // One path a line (`-z` needs --stdin, which a job has not); a name git must quote matches
  // none of `paths`, so it counts as not ignored: the safe side. rg matches case-sensitively
  // and may not read the global excludes file this user's git reads: git must not either.
  const result = await gitLook(env.git.path, ['-c', 'core.quotePath=false', '-c', 'core.ignoreCase=false', '-c', 'core.excludesFile=/dev/null', 'check-ignore', '--', ...paths], { cwd: dir.real, root: dir.root.real }, env);
  // 0: some are ignored, 1: none is; anything else (128: no repository) says nothing.
  if (result.truncated === true || !(result.ok || result.exit_code === 1)) return undefined;
  return new Set(str(result.stdout).split('\n').filter((p) => p !== ''));
}

/**
 * A git run that only looks (lists, checks) for a judgement of the gate: hooks, pagers and
 * fsmonitor off (NEUTRAL), the scope root bound read-only, nothing masked, as the gate's own
 * user, and no output that reaches an agent.
 */
export async function gitLook(git: string, args: readonly string[], where: { readonly cwd: string; readonly root: string; readonly literalPathspecs?: boolean; readonly maxOutputBytes?: number }, env: ToolhostEnv): Promise<ExecutionResult> {
  const outcome = await runJob(
    {
      program: git,
      args: [...NEUTRAL, ...args],
      cwd: where.cwd,
      view: { masks: [], readOnly: [] },
      binds: [{ path: where.root, mode: 'ro' }],
      timeoutMs: 20_000,
      ...(where.maxOutputBytes === undefined ? {} : { maxOutputBytes: where.maxOutputBytes }),
      extraEnv: { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', ...(where.literalPathspecs === true ? { GIT_LITERAL_PATHSPECS: '1' } : {}) },
      homeFiles: gitHomeFiles(env.gitIdentity),
      runAs: 'gate',
    },
    env,
  );
  return outcome.result;
}
