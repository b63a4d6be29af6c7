import { walkTree } from '../adapters/agent/tree-walk.js';
import { foreignFolder } from '../core/lifecycle/provenance-of.js';

/** Entries walked before giving up on knowing: a larger tree counts as one that holds such a folder. */
const WALK_LIMIT = 20_000;

/**
 * The folder of someone else's files that a recursive read of `dir` (`grep -rn TODO .`) reaches,
 * or undefined when it reaches none (or `dir` is no folder). A search through the agent's own
 * runtime descends into node_modules as readily as into src, so what it prints there taints the
 * session (SPEC §4) as reading the file itself would. No link is followed; `.git` holds no one
 * else's text a search prints. Fails closed: a tree too large to walk is taken to hold one.
 */
export function foreignBelow(dir: string): string | undefined {
  const walked = walkTree(dir, (entry) => (entry.kind !== 'dir' ? 'skip' : foreignFolder(entry.name) ? 'mask' : entry.name === '.git' ? 'skip' : 'descend'), WALK_LIMIT, true);
  if (!walked.complete) return `${dir} (more than ${String(WALK_LIMIT)} entries, so ORACLE cannot tell what it holds)`;
  return walked.masks[0]?.path;
}
