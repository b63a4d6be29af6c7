import { moveTree, treeDigest } from '../adapters/agent/files.js';
import type { ToolhostEnv } from './env.js';
import { sandboxView, whyHidden, type SandboxView } from './sandbox-masks.js';

/**
 * What a job left that no agent may write, moved to ORACLE's trash: `trash` is where, for a person
 * to move it back by hand (an undo through the gate would write a name the policy denies).
 */
export interface SetAside {
  readonly path: string;
  readonly why: string;
  readonly trash: string;
  readonly undo_id: string;
}

/**
 * A job's masks hide what exists when it starts; it can still create a name the policy denies to
 * every agent (red team, session 33: a `node --test` job wrote `.claude/settings.local.json` with
 * hooks off, `.mcp.json`, a `.npmrc` naming a script shell, a nested `.git/config`). After the job,
 * the tree is walked again: each hidden path that was not hidden before it ran (a name the job
 * made) is moved to ORACLE's trash and reported, so nothing it planted outlives the job. While the
 * job runs, what it made is there (README, Known limits). A tree past the walk's limit is reported
 * as not checked.
 */
export function setAsidePlanted(env: ToolhostEnv, actionId: string, job: { readonly bound: string; readonly before: SandboxView; readonly gitVisible: boolean }): { readonly set_aside: readonly SetAside[]; readonly unchecked?: string } {
  const { bound, before, gitVisible } = job;
  const after = sandboxView(env.gate, bound, { gitVisible });
  if (after === undefined) return { set_aside: [], unchecked: `the tree under \`${bound}\` is too large to look for what the job made` };
  const known = new Set(before.masks.map((m) => m.path));
  const out: SetAside[] = [];
  for (const mask of after.masks) {
    if (known.has(mask.path)) continue;
    // Only a name no agent may write: a file whose read merely needs a person may be written.
    const hidden = whyHidden(env.gate, mask.path);
    if (hidden === undefined) continue;
    const id = env.undo.newId();
    const trash = env.undo.trashPath(id);
    env.undo.save({ id, kind: 'delete', action_id: actionId, created_at: env.now().toISOString(), path: mask.path, trash, digest: treeDigest(mask.path) });
    moveTree(mask.path, trash);
    out.push({ path: mask.path, why: hidden.why, trash, undo_id: id });
  }
  return { set_aside: out };
}
