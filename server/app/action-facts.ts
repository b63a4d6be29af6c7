import type { ActionFacts, GateMode } from '../core/decide/context.js';
import { evaluate } from '../core/decide/decide.js';
import { MIN_REFUSED_SECRET } from '../core/decide/fetch-secrets.js';
import { fetchRemoteArg, isGitFetch } from '../core/decide/git-fetch.js';
import { stagingQuery } from '../core/decide/git-stage.js';
import { fetchSource, pushTarget, untrackedFiles } from '../toolhost/executors/git.js';
import type { Toolhost } from '../toolhost/open.js';
import { configuredHooksPath, repositoryOf } from '../toolhost/git-hooks.js';
import { printedHidden } from '../toolhost/git-printed.js';
import { existsFrom, gitPrints } from '../core/decide/git-prints.js';
import type { ScopedPath } from '../core/paths/scope.js';
import { isGit } from '../core/decide/programs.js';
import type { GateState } from './gate-policy.js';

/**
 * Facts only I/O learns, for the judgements that need them: where a git.push goes, where a
 * `git fetch|pull` run through exec.run reads from, which untracked files a `git add` or
 * `git stash -u` would start tracking, which of the gate's terminals are open, what
 * the secret store holds (a net.fetch that carries a stored value is refused before anyone is
 * asked; the executor checks again at send time). A first, pure evaluation under the local
 * ceiling gives the repository as the gate resolved it; an action it already refuses for its
 * shape or paths is not looked up at all. A runtime that runs nothing (the headless hook)
 * looks nothing up: what needs the facts then goes to a person. `agentRuns`: the action is a part
 * of an agent's own tool call (Claude Code runs it), not one ORACLE runs.
 */
export async function lookUpFacts(action: unknown, on: { readonly gate: GateState; readonly toolhost: Toolhost; readonly mode: GateMode; readonly agentRuns?: boolean }): Promise<ActionFacts | undefined> {
  const { gate, toolhost } = on;
  if (typeof action !== 'object' || action === null) return undefined;
  // Headless, only what the files say: which folder git takes hooks from (read, never run).
  if (!toolhost.env.runs) return headlessFacts(action, on);
  const tool = (action as { tool?: unknown }).tool;
  if (tool === 'term.write' || tool === 'term.read') {
    const views = toolhost.env.terminals.list();
    return { terminals: { running: views.filter((t) => t.exited === null).map((t) => t.name), ended: views.filter((t) => t.exited !== null).map((t) => t.name) } };
  }
  if (tool === 'net.fetch') return { storedSecrets: toolhost.env.knownSecrets().filter((v) => v.length >= MIN_REFUSED_SECRET) };
  if (tool === 'fs.delete') return madeFact(action, on);
  if (tool !== 'git.push' && tool !== 'exec.run') return undefined;
  const first = evaluate(action, { ...gate.context, mode: on.mode });
  const repo = first.paths[0];
  if (first.args === null || repo === undefined) return undefined;
  if (first.tool === 'exec.run') {
    const argv = Array.isArray(first.args['args']) ? first.args['args'].map(String) : [];
    if (first.decision.decision === 'deny') return undefined;
    const program = String(first.args['program']);
    const pin = gate.context.pins.get(program);
    const git = pin?.ok === true && isGit(program, pin.path);
    const hooks = git ? gitHooksFact(repo.real, on) : undefined;
    // What a git command that prints stored text would print, as git says (git-prints.ts).
    const printed = git ? await gitPrintedFact(argv, repo, on) : undefined;
    const extra: ActionFacts = { ...(hooks === undefined ? {} : { gitHooks: hooks }), ...(printed === undefined ? {} : { gitPrinted: printed }) };
    const withHooks = (facts: ActionFacts | undefined): ActionFacts | undefined => (Object.keys(extra).length === 0 ? facts : { ...facts, ...extra });
    const staging = stagingQuery(program, argv, gate.context.pins);
    if (staging !== undefined && !('unclear' in staging)) return withHooks({ staging: await untrackedFiles(repo, staging, toolhost.env) });
    if (!isGitFetch(program, argv, gate.context.pins)) return withHooks(undefined);
    const named = fetchRemoteArg(argv);
    return withHooks('unclear' in named ? undefined : { remote: await fetchSource(repo, named.remote, toolhost.env) });
  }
  if (first.tool !== 'git.push') return undefined;
  if (first.decision.decision === 'deny' && first.decision.code !== 'GIT_REMOTE') return undefined;
  return { push: await pushTarget(repo, String(first.args['remote']), String(first.args['branch']), toolhost.env) };
}

/** What git says a command that prints stored text would print of the files the policy hides; undefined for any other command. */
async function gitPrintedFact(argv: readonly string[], cwd: ScopedPath, on: { readonly gate: GateState; readonly toolhost: Toolhost; readonly agentRuns?: boolean }): Promise<ActionFacts['gitPrinted']> {
  const reader = on.gate.context.gate.host.reader;
  const prints = gitPrints(argv, existsFrom(cwd.real, reader));
  // (nothing to ask: the judge needs no answer)
  if (prints === undefined || 'unclear' in prints || prints.asks.length === 0) return undefined;
  const repository = repositoryOf(cwd.real, reader);
  if (repository === undefined) return { unsure: 'no repository was found here' };
  if ('unsure' in repository) return repository;
  // ORACLE's own git reads pathspecs literally (executors/exec.ts): an exclusion leaves nothing out there.
  const literalPathspecs = on.agentRuns !== true;
  const printed = await printedHidden(cwd, repository, prints, { env: on.toolhost.env, literalPathspecs });
  return 'hidden' in printed && printed.hidden.length > 0 && literalPathspecs ? { ...printed, literal: true } : printed;
}

/** What a runtime that runs nothing (the headless hook) still learns: a git command's hooks folder. */
function headlessFacts(action: object, on: { readonly gate: GateState; readonly mode: GateMode }): ActionFacts | undefined {
  if ((action as { tool?: unknown }).tool !== 'exec.run') return undefined;
  const first = evaluate(action, { ...on.gate.context, mode: on.mode });
  const named = first.args?.['program'];
  const program = typeof named === 'string' ? named : '';
  const pin = on.gate.context.pins.get(program);
  const cwd = first.paths[0]?.real;
  if (cwd === undefined || first.decision.decision === 'deny' || pin?.ok !== true || !isGit(program, pin.path)) return undefined;
  const hooks = gitHooksFact(cwd, on);
  return hooks === undefined ? undefined : { gitHooks: hooks };
}

/** A delete that would wait for a person: is its file one the action's session made itself (made-files.ts)? */
function madeFact(action: object, on: { readonly gate: GateState; readonly toolhost: Toolhost; readonly mode: GateMode }): ActionFacts | undefined {
  const session = (action as { session?: unknown }).session;
  if (typeof session !== 'string' || !on.toolhost.env.made.madeAny(session)) return undefined;
  const first = evaluate(action, { ...on.gate.context, mode: on.mode });
  const path = first.paths[0]?.real;
  if (path === undefined || first.decision.decision !== 'needs-approval') return undefined;
  return on.toolhost.env.made.madeHere(session, path) ? { made: { path } } : undefined;
}

/** The folder git takes hooks from here (toolhost/git-hooks.ts), and whether a write there would run unasked. */
function gitHooksFact(cwd: string, on: { readonly gate: GateState; readonly mode: GateMode }): ActionFacts['gitHooks'] {
  const hooks = configuredHooksPath(cwd, on.gate.context.gate.host.reader);
  if (hooks === undefined || 'unsure' in hooks) return hooks;
  const writable = (dir: string): boolean => evaluate({ tool: 'fs.write', args: { path: `${dir}/pre-commit`, content: '' } }, { ...on.gate.context, mode: on.mode }).decision.decision === 'allow';
  // Any folder a config names may be the one git uses (toolhost/git-hooks.ts): the first an agent may write decides.
  const open = hooks.dirs.find(writable);
  return { dir: open ?? hooks.dirs[0] ?? '', writable: open !== undefined };
}
