import type { ToolhostEnv } from '../env.js';
import { runJob } from '../run-job.js';
import { sandboxView } from '../sandbox-masks.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';

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
  '-c', 'safe.directory=*',
  '-c', 'safe.bareRepository=explicit',
  '--no-pager',
];

interface GitRun {
  readonly args: readonly string[];
  readonly network?: boolean;
}

async function git(action: PreparedAction, env: ToolhostEnv, run: GitRun): Promise<ExecutionResult & { cleanupError?: string }> {
  if (!env.git.ok) return failed('EXECUTOR_UNAVAILABLE', `git is not available: ${env.git.reason}`);
  const repo = action.paths[0];
  if (repo === undefined) return failed('EXECUTOR_UNAVAILABLE', 'no repository path');
  const view = sandboxView(env.gate, repo.real, { gitVisible: true });
  if (view === undefined) return failed('NOT_ALLOWED', 'the repository holds too many files to hide what the policy denies');
  const outcome = await runJob(
    {
      program: env.git.path,
      args: [...NEUTRAL, '-C', repo.real, ...run.args],
      cwd: repo.real,
      view,
      binds: [{ path: repo.real, mode: repo.root.mode }],
      network: run.network === true,
      timeoutMs: 120_000,
      // Literal pathspecs: `[.]env` names a file called `[.]env`, never `.env` (a glob around deny_always).
      extraEnv: { ...env.gitIdentity, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', GIT_LITERAL_PATHSPECS: '1' },
    },
    env,
  );
  return outcome.cleanupError === undefined ? outcome.result : { ...outcome.result, cleanupError: outcome.cleanupError };
}

export function gitStatus(action: PreparedAction, env: ToolhostEnv): Promise<ExecutionResult> {
  return git(action, env, { args: ['status', '--porcelain=v1', '--branch'] });
}

export function gitDiff(action: PreparedAction, env: ToolhostEnv): Promise<ExecutionResult> {
  return git(action, env, { args: ['diff', '--no-ext-diff', '--no-textconv', '--no-color', ...(action.args['staged'] === true ? ['--staged'] : [])] });
}

export function gitLog(action: PreparedAction, env: ToolhostEnv): Promise<ExecutionResult> {
  const limit = typeof action.args['limit'] === 'number' ? action.args['limit'] : 20;
  return git(action, env, { args: ['log', '--no-color', `-n${String(limit)}`, '--format=%H%x09%an%x09%aI%x09%s'] });
}

async function head(action: PreparedAction, env: ToolhostEnv): Promise<string | null> {
  const r = await git(action, env, { args: ['rev-parse', '--verify', '-q', 'HEAD'] });
  return r.ok ? str(r.stdout).trim() : null;
}

/** git.commit (T1): records HEAD before and after, so undo is a soft reset while HEAD is unchanged. */
export async function gitCommit(action: PreparedAction, env: ToolhostEnv): Promise<ExecutionResult> {
  const repo = action.paths[0];
  if (repo === undefined) return failed('EXECUTOR_UNAVAILABLE', 'no repository path');
  const paths = action.paths.slice(1).map((p) => p.real);
  const before = await head(action, env);
  if (paths.length > 0) {
    const added = await git(action, env, { args: ['add', '--', ...paths] });
    if (!added.ok) return failed('GIT_FAILED', `git add failed: ${str(added.stderr).trim()}`, added);
  }
  const committed = await git(action, env, { args: ['commit', '--no-verify', '-m', str(action.args['message']), ...(paths.length > 0 ? ['--', ...paths] : [])] });
  if (!committed.ok) return failed('GIT_FAILED', `git commit failed: ${(str(committed.stdout) + str(committed.stderr)).trim()}`, committed);
  const after = await head(action, env);
  if (after === null || after === before) return failed('GIT_FAILED', 'the commit did not move HEAD', committed);
  const id = env.undo.newId();
  env.undo.save({ id, kind: 'commit', action_id: action.actionId, created_at: env.now().toISOString(), repo: repo.real, before, after });
  return { ...committed, undo_id: id, output: { head: after } };
}

export function gitPush(action: PreparedAction, env: ToolhostEnv): Promise<ExecutionResult> {
  // remote and branch were shape-checked by the gate (no options, no refspecs, no force).
  return git(action, env, { args: ['push', '--porcelain', '--no-verify', str(action.args['remote']), str(action.args['branch'])], network: true });
}

/** For undo: HEAD now, and a soft reset to where it was. */
export { head as gitHead };
export function gitSoftReset(action: PreparedAction, env: ToolhostEnv, to: string | null): Promise<ExecutionResult> {
  return git(action, env, { args: to === null ? ['update-ref', '-d', 'HEAD'] : ['reset', '--soft', to] });
}
