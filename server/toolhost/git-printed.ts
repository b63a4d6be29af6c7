import { join } from 'node:path';
import type { PrintsQuery } from '../core/decide/git-prints.js';
import { hiddenInPrinted, type PrintedFacts } from '../core/decide/git-printed-names.js';
import type { ScopedPath } from '../core/paths/scope.js';
import type { ToolhostEnv } from './env.js';
import { gitLook } from './executors/git.js';
import { trackedHidden } from './tracked-hidden.js';

/** How much of a query's list is read: a `git log -p` of 50,000 commits names some 5 MiB of files. */
const LIST_BYTES = 16 * 1024 * 1024;

/**
 * Asks git the query core/decide/git-prints.ts made of a command, in the repository the command
 * runs in, as the gate's own look-only run (no output reaches an agent), and judges each file it
 * names against deny_always. A diff or grep of the work tree alone is answered from the index's
 * list when that holds nothing hidden (cached per index version, tracked-hidden.ts). Pathspecs
 * are read as the command's own git will read them: literally where ORACLE runs it
 * (executors/exec.ts), as globs with magic where the agent's runtime does (Claude Code).
 */
export async function printedHidden(cwd: ScopedPath, repo: { readonly top: string; readonly gitDir: string }, query: PrintsQuery, how: { readonly env: ToolhostEnv; readonly literalPathspecs: boolean }): Promise<PrintedFacts> {
  const { env, literalPathspecs } = how;
  if (query.asks.length === 0) return { hidden: [] };
  if (!env.git.ok) return { unsure: `git is not available to ask what it would print: ${env.git.reason}` };
  if (query.worktreeOnly && (await trackedHidden(cwd, repo, env))?.length === 0) return { hidden: [] };
  const outputs: string[] = [];
  for (const ask of query.asks) {
    const asked = await gitLook(env.git.path, ask, { cwd: cwd.real, root: cwd.root.real, literalPathspecs, maxOutputBytes: LIST_BYTES }, env);
    // grep's exit 1 is "no file listed": it prints nothing.
    if (query.output === 'names' && asked.exit_code === 1 && (asked.stdout ?? '') === '' && (asked.stderr ?? '').trim() === '') continue;
    if (!asked.ok) {
      const said = (asked.stderr ?? '').trim().split('\n').find((l) => l.startsWith('fatal:') || l.startsWith('error:'));
      return { unsure: `git could not say which files it would print${said === undefined ? '' : ` (${said.slice(0, 200)})`}` };
    }
    if (asked.truncated === true) return { unsure: 'the list of files git would print was too long to read whole' };
    outputs.push(asked.stdout ?? '');
  }
  return hiddenInPrinted(outputs, query, (name) => env.gate.denied(join(repo.top, name)) !== undefined);
}
