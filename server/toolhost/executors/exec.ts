import { gitHomeFiles, type ToolhostEnv } from '../env.js';
import { runJob, type JobOutcome } from '../run-job.js';
import { failed, type PreparedAction } from '../types.js';
import { batBadButRefusal } from '../batbadbut.js';
import { NEUTRAL } from './git.js';
import { sandboxView } from '../sandbox-masks.js';
import { hiddenNames, setAsidePlanted } from '../planted.js';
import { probe } from '../../adapters/agent/files.js';
import type { ScopedPath } from '../../core/paths/scope.js';
import { dirname, join } from 'node:path';

/**
 * exec.run (SPEC §6): the pinned program from the decision, the model's argv untouched, the
 * working directory the gate resolved, inside a job. Of the user's files the child sees only what
 * `jobFolders` gives it, less what the policy hides there.
 */
export function execRun(action: PreparedAction<'exec.run'>, env: ToolhostEnv): Promise<JobOutcome> {
  return runProgram(action, env, {});
}

/**
 * exec.run_with_secrets (secret.read): the named secrets are read from the store at the last
 * moment, put only in the variables the approved action named, and redacted from every output.
 * Their values never pass through the gate, the model, an event or the audit log (SPEC §6).
 */
export async function execRunWithSecrets(action: PreparedAction<'exec.run_with_secrets'>, env: ToolhostEnv): Promise<JobOutcome> {
  const wanted = Object.entries(action.args.secrets);
  if (env.secrets === undefined) return { result: failed('SECRET_MISSING', 'no secret store is available on this host') };
  const values: Record<string, string> = {};
  for (const [variable, name] of wanted) {
    const value = await env.secrets.get(name);
    if (value === undefined) return { result: failed('SECRET_MISSING', `no secret named \`${name}\``) };
    values[variable] = value;
  }
  const outcome = await runProgram(action, env, values);
  return { ...outcome, result: { ...outcome.result, secrets_read: wanted.map(([, name]) => name) } };
}

/**
 * The top of the git work tree holding `cwd` (the nearest folder with a `.git`, never above the
 * scope root), else `cwd` itself.
 */
function workTree(cwd: ScopedPath): string {
  const top = cwd.root.real;
  for (let dir = cwd.real; dir === top || dir.startsWith(`${top}/`); dir = dirname(dir)) {
    const git = probe(join(dir, '.git'));
    if (git === 'dir' || git === 'file') return dir;
    if (dir === top || dirname(dir) === dir) break;
  }
  return cwd.real;
}

type Bind = { readonly path: string; readonly mode: 'ro' | 'rw' };

/**
 * What a job in `cwd` sees of the user's files, and what hides in it: the whole git work tree
 * holding `cwd`, read only, with `cwd` itself in its root's mode. Given only `cwd`, a job in a
 * package of a monorepo had no repository (`git log`: "not a git repository"), no `../tests` and
 * no root `node_modules` (MCP probe, session 36); given the work tree to write, it could change
 * what the decision never covered, such as a root `package.json` a write of waits for a person
 * (review, session 36). git itself gets the work tree in its root's mode, as it would run from the
 * top: a `git switch` from a package's folder had moved HEAD and the index and left the files
 * outside that folder as they were, a half-switched repository (second review, session 36); what
 * git may do is judged by its own argv, wherever it runs from. A work tree too large to mask falls
 * back to `cwd` alone.
 */
async function jobFolders(env: ToolhostEnv, cwd: ScopedPath, isGit: boolean): Promise<{ readonly tree: string; readonly binds: readonly Bind[]; readonly view: Awaited<ReturnType<typeof sandboxView>> }> {
  const own: Bind = { path: cwd.real, mode: cwd.root.mode };
  const tree = workTree(cwd);
  if (tree !== cwd.real) {
    const view = await sandboxView(env.gate, tree, { gitVisible: isGit });
    if (!('incomplete' in view)) return { tree, binds: isGit ? [{ path: tree, mode: cwd.root.mode }] : [{ path: tree, mode: 'ro' }, own], view };
  }
  return { tree: cwd.real, binds: [own], view: await sandboxView(env.gate, cwd.real, { gitVisible: isGit }) };
}

async function runProgram(action: PreparedAction<'exec.run' | 'exec.run_with_secrets'>, env: ToolhostEnv, secrets: Readonly<Record<string, string>>): Promise<JobOutcome> {
  const program = action.args.program_path;
  if (program === null) return { result: failed('EXECUTOR_UNAVAILABLE', 'the program was not pinned at start') };
  const { args, timeout } = action.args;
  const batch = batBadButRefusal(program, args);
  if (batch !== undefined) return { result: failed('NOT_ALLOWED', batch) };
  const cwd = action.paths[0];
  // git with the model's argv still gets ORACLE's own switches first: no hooks, no fsmonitor,
  // no pager, no implicit bare repository (a config the agent planted never runs anything).
  const isGit = /(?:^|\/)git(?:\.exe)?$/u.test(program);
  // An external diff or textconv driver from a repository config would run a program.
  const diffing = isGit && ['diff', 'log', 'show'].includes(args[0] ?? '');
  const gitArgs = diffing ? [args[0] ?? '', '--no-ext-diff', '--no-textconv', ...args.slice(1)] : args;
  // The child sees the working directory's tree, minus what the gate would refuse there.
  const folders = cwd === undefined ? undefined : await jobFolders(env, cwd, isGit);
  const view = folders === undefined ? { masks: [], readOnly: [] } : folders.view;
  if ('incomplete' in view) return { result: failed('NOT_ALLOWED', `ORACLE cannot tell what to hide from the job: ${view.incomplete}; run it in a smaller folder`) };
  const bound = folders?.tree;
  // What no agent may write in the tree now, to tell afterwards what the job made (planted.ts).
  const before = bound === undefined ? undefined : await hiddenNames(env, bound, isGit);
  const outcome = await runJob(
    {
      program,
      args: isGit ? [...NEUTRAL, ...gitArgs] : args,
      cwd: cwd?.real,
      view,
      binds: folders?.binds ?? [],
      // exec.run is not granted net.egress (SPEC §4 table): no `egress`, no network at all.
      timeoutMs: timeout * 1000,
      extraEnv: { ...(isGit ? { GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1' } : {}), ...secrets },
      ...(isGit ? { homeFiles: gitHomeFiles(env.gitIdentity) } : {}),
      secrets: Object.values(secrets),
      ...(action.signal === undefined ? {} : { signal: action.signal }),
    },
    env,
  );
  if (bound === undefined || before === undefined) return outcome;
  const planted = await setAsidePlanted(env, action.actionId, { bound, before, gitVisible: isGit });
  if (planted.set_aside.length === 0 && planted.unchecked === undefined) return outcome;
  return { ...outcome, result: { ...outcome.result, set_aside: planted.set_aside, ...(planted.unchecked === undefined ? {} : { set_aside_unchecked: planted.unchecked }) } };
}
