import { join } from 'node:path';
import { versionOf } from '../adapters/agent/files.js';
import type { ScopedPath } from '../core/paths/scope.js';
import type { ToolhostEnv } from './env.js';
import { gitLook } from './executors/git.js';

/** Paths named, at most, in what a repository tracks and the policy hides. */
const MAX_NAMED = 20;
/** Repositories remembered; the least recently asked goes first. */
const MAX_REPOSITORIES = 64;

/** Per policy (a reload hides other files): repository → the index version seen and what it tracks hidden. */
const caches = new WeakMap<object, Map<string, { readonly version: string; readonly hidden: readonly string[] }>>();

/**
 * Which files a repository tracks that the policy hides (deny_always), as git's index lists them:
 * git can print those (a diff, a grep, a log with patches) whatever the file system says, so a
 * git read only reads what any agent may where this is empty. Kept by the index file's version,
 * so a session's dozens of `git status` and `git diff` ask git once per change of the index.
 * Undefined when git cannot say (no git, the repository above the scope root the job can see, a
 * list too long to read whole). At most MAX_NAMED paths, relative to the top.
 */
export async function trackedHidden(at: ScopedPath, repo: { readonly top: string; readonly gitDir: string }, env: ToolhostEnv): Promise<readonly string[] | undefined> {
  if (!env.git.ok) return undefined;
  const inside = repo.top === at.root.real || repo.top.startsWith(`${at.root.real}/`);
  if (!inside) return undefined;
  const version = versionOf(join(repo.gitDir, 'index'));
  // No index yet: nothing is tracked.
  if (version === undefined) return [];
  const gate = env.gate;
  const cache = caches.get(gate) ?? new Map<string, { readonly version: string; readonly hidden: readonly string[] }>();
  caches.set(gate, cache);
  const key = repo.gitDir;
  const known = cache.get(key);
  if (known?.version === version) {
    cache.delete(key);
    cache.set(key, known);
    return known.hidden;
  }
  // With each entry's mode: a submodule (160000) is a repository of its own, whose files a
  // diff can print (`--submodule=diff`, or diff.submodule in a config) and this index does not list.
  const listed = await gitLook(env.git.path, ['-c', 'core.quotePath=false', 'ls-files', '-z', '--cached', '--stage'], { cwd: repo.top, root: at.root.real }, env);
  if (!listed.ok || listed.truncated === true) return undefined;
  const hidden: string[] = [];
  for (const entry of (listed.stdout ?? '').split('\0')) {
    // `MODE OBJECT STAGE<TAB>PATH`
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    if (entry.startsWith('160000 ')) return undefined;
    const path = entry.slice(tab + 1);
    if (gate.denied(join(repo.top, path)) !== undefined) hidden.push(path);
    if (hidden.length >= MAX_NAMED) break;
  }
  cache.set(key, { version, hidden });
  while (cache.size > MAX_REPOSITORIES) cache.delete(cache.keys().next().value ?? '');
  return hidden;
}
