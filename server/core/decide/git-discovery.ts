import { maxTier } from '../../../shared/tiers.js';
import { joinPath, splitCanonical } from '../paths/canonical.js';
import type { LinkReader } from '../paths/resolve.js';
import type { Outcome } from './outcome.js';

/**
 * Which repository a git command started in a folder uses, found as git finds it
 * (setup_git_directory): in each folder from there up, a `.git` entry first, else the folder
 * itself when it looks like a git directory (a bare repository). The project's `.git` is
 * deny_always, so its config and hooks are the user's; a bare repository is a plain folder of
 * files, which any write in a scope can plant, and git runs the programs its config names
 * (core.editor for `git tag -a`, core.fsmonitor, hooks) whatever command it is given. git's own
 * guard (`safe.bareRepository=explicit`) is off by default, and a command the agent runs itself
 * never gets ORACLE's.
 */
export type Discovered = { readonly kind: 'dotgit'; readonly at: string } | { readonly kind: 'bare'; readonly at: string } | { readonly kind: 'none' };

/**
 * Looser than git on purpose (it also wants HEAD to hold a ref and `refs/` to exist): a folder
 * with HEAD and either `objects` or a `commondir` file counts, whatever kind of entry each is.
 */
function looksLikeGitDir(dir: string, reader: LinkReader): boolean {
  const present = (name: string): boolean => reader.entry(`${dir.replace(/\/$/u, '')}/${name}`).kind !== 'missing';
  return present('HEAD') && (present('objects') || present('commondir'));
}

export function discoverRepository(cwd: string, reader: LinkReader): Discovered {
  const { root, segments } = splitCanonical(cwd);
  for (let n = segments.length; n >= 0; n--) {
    const dir = joinPath({ root, segments: segments.slice(0, n) });
    const dotGit = `${dir.replace(/\/$/u, '')}/.git`;
    // git takes a `.git` file (a worktree or submodule) or a valid `.git` folder here; an invalid
    // folder it passes over, so only a bare repository here could then still be found.
    const entry = reader.entry(dotGit);
    if (entry.kind === 'file' || entry.kind === 'link' || (entry.kind === 'dir' && looksLikeGitDir(dotGit, reader))) return { kind: 'dotgit', at: dotGit };
    if (looksLikeGitDir(dir, reader)) return { kind: 'bare', at: dir };
  }
  return { kind: 'none' };
}

/**
 * An allowed git command is a person's call (T2, a floor) when git would use a bare repository:
 * the card says why. Elsewhere it keeps its outcome.
 */
export function judgeGitRepository(granted: Extract<Outcome, { ok: true }>, cwd: string | undefined, reader: LinkReader): Outcome {
  if (cwd === undefined) return granted;
  const found = discoverRepository(cwd, reader);
  if (found.kind !== 'bare') return granted;
  const why = `git would use \`${found.at}\` as a bare repository: its config and hooks are plain files any write there can plant, and git runs the programs they name, so a person decides`;
  return { ...granted, tier: maxTier(granted.tier, 'T2'), floor: maxTier(granted.floor ?? 'T0', 'T2'), reasons: [...granted.reasons, why] };
}

/**
 * An allowed git command is a person's call (T2, a floor) when git would run hooks from a folder
 * agents may write unasked (core.hooksPath naming a project folder), or from a config ORACLE
 * could not read whole: what runs there is whatever an agent last wrote.
 */
export function judgeGitHooks(granted: Extract<Outcome, { ok: true }>, hooks: { readonly dir: string; readonly writable: boolean } | { readonly unsure: string } | undefined): Outcome {
  if (hooks === undefined || ('writable' in hooks && !hooks.writable)) return granted;
  const why =
    'unsure' in hooks
      ? `git may run hooks from a folder ORACLE cannot see (${hooks.unsure}), so a person decides`
      : `git runs the hooks in \`${hooks.dir}\` (core.hooksPath), which agents may change unasked, so a person decides each git command; to run git unasked again, make writes there wait for a person (a policy tier rule \`{ tool: fs.write, path: "${hooks.dir}/**", tier: T2 }\`)`;
  return { ...granted, tier: maxTier(granted.tier, 'T2'), floor: maxTier(granted.floor ?? 'T0', 'T2'), reasons: [...granted.reasons, why] };
}
