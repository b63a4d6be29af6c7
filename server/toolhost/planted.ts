import { join } from 'node:path';
import { inodeOf, moveTree } from '../adapters/agent/files.js';
import { walkListings } from '../adapters/agent/dir-listings.js';
import type { ToolhostEnv } from './env.js';
import { judgedListings, MAX_MASK_WALK, PACKAGE_FOLDERS } from './sandbox-masks.js';

/**
 * What a job left that no agent may write, moved to ORACLE's trash: `trash` is where, for a person
 * to move it back by hand (an undo through the gate would write a name the policy denies).
 */
export interface SetAside {
  readonly path: string;
  readonly why: string;
  readonly trash: string;
}

/** The names the policy keeps every agent from writing in a tree, links included, each by its inode. */
export type HiddenNames = { readonly names: ReadonlyMap<string, { readonly id: string; readonly why: string }> } | { readonly incomplete: string };

/**
 * Every entry below `bound` at a name no agent may write (deny_always, ORACLE's own files,
 * excludes), files, folders and links alike, with the inode it is: what a job may not leave
 * behind. A package manager's folders are not walked, nor (for git's own runs) `.git`.
 */
export async function hiddenNames(env: ToolhostEnv, bound: string, gitVisible: boolean): Promise<HiddenNames> {
  const names = new Map<string, { id: string; why: string }>();
  const walked = await walkListings(
    judgedListings(env.gate),
    bound,
    (entry) => {
      const { hidden } = entry.note;
      if (hidden === undefined) return !PACKAGE_FOLDERS.has(entry.name) && !(gitVisible && entry.name === '.git');
      // Read now, never kept: a mount over the name changes what it is without touching its folder.
      names.set(entry.path, { id: inodeOf(entry.path) ?? 'gone', why: hidden.why });
      return false;
    },
    { limit: MAX_MASK_WALK, unreadable: 'incomplete' },
  );
  return 'incomplete' in walked ? { incomplete: walked.incomplete } : { names };
}

/**
 * A job's masks hide what exists when it starts; it can still make a name the policy denies to
 * every agent (red team, session 33: a `node --test` job wrote `.claude/settings.local.json` with
 * hooks off, `.mcp.json`, a `.npmrc` naming a script shell, a nested `.git/config`; then the same
 * as links, and in place of the person's own file after renaming its folder). After the job, each
 * such name whose inode was not at such a name before it ran is the job's: it is moved to ORACLE's
 * trash and reported. The person's own files keep their inodes wherever the job moved them, so
 * they are never taken. While the job runs, what it made is there (README, Known limits). A tree
 * that cannot be walked whole is reported as not checked.
 */
export async function setAsidePlanted(env: ToolhostEnv, actionId: string, job: { readonly bound: string; readonly before: HiddenNames; readonly gitVisible: boolean }): Promise<{ readonly set_aside: readonly SetAside[]; readonly unchecked?: string }> {
  const { bound, before, gitVisible } = job;
  if ('incomplete' in before) return { set_aside: [], unchecked: `before the job: ${before.incomplete}` };
  const after = await hiddenNames(env, bound, gitVisible);
  if ('incomplete' in after) return { set_aside: [], unchecked: `after the job: ${after.incomplete}` };
  const known = new Set([...before.names.values()].map((n) => n.id));
  const made = [...after.names].filter(([, { id }]) => !known.has(id));
  if (made.length === 0) return { set_aside: [] };
  // One folder of ORACLE's trash per job, each name moved into it by rename through its pinned
  // parent: no digest, no record and no sync per name (thousands of names had held the gate's thread
  // for minutes, red team round 3); the audit record lists them. Past MAX_SET_ASIDE the job's tree
  // is not set right here and the result says so.
  const folder = env.undo.trashPath(`planted-${actionId}`);
  const out: SetAside[] = [];
  const left: string[] = [];
  for (const [i, [path, { why }]] of made.slice(0, MAX_SET_ASIDE).entries()) {
    const trash = join(folder, String(i));
    try {
      moveTree(path, trash, { aside: true });
      out.push({ path, why, trash });
    } catch (e) {
      // Another file system than ORACLE's home, or a parent swapped for a link: left, and said.
      left.push(`\`${path}\` (${e instanceof Error ? e.message : 'not moved'})`);
    }
  }
  if (made.length > MAX_SET_ASIDE) left.push(`${String(made.length - MAX_SET_ASIDE)} more past the first ${String(MAX_SET_ASIDE)}`);
  return left.length === 0 ? { set_aside: out } : { set_aside: out, unchecked: `the job made names no agent may write that are still in \`${bound}\` for a person to look at: ${left.slice(0, 20).join('; ')}` };
}

/** Names set aside after one job at most; past it the result and the audit record say what is left. */
export const MAX_SET_ASIDE = 200;
