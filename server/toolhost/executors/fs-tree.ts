import { dirname } from 'node:path';
import { makeDirs, moveTree, probe } from '../../adapters/agent/files.js';
import { confirmChanges, keepChanges, type PlannedChange } from '../agent-changes.js';
import { treeVerdict } from '../tree-reach.js';
import { stoppedBy } from './fs.js';
import type { ToolhostEnv } from '../env.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';

/**
 * fs.mkdir and fs.move run by the gate itself (for `oracle mcp` and REST agents; Claude Code makes
 * these changes in its own runtime). Each keeps what it changes first, the way the hook does for
 * an agent's own `mkdir` and `mv` (agent-changes.ts), so it is T1 and undoable: undo removes the
 * folders it made, or moves the tree back, only while nothing changed there since.
 */
async function changing(env: ToolhostEnv, action: PreparedAction, changes: readonly PlannedChange[], run: () => ExecutionResult): Promise<ExecutionResult> {
  const call = `gate:${action.actionId}`;
  const kept = await keepChanges(env, { changes, actionId: action.actionId, call, summary: `${action.tool} ${changes.map((c) => c.path).join(' → ')}` });
  if (!kept.ok) return failed('UNDO_UNAVAILABLE', `${kept.reason}, so nothing was changed`);
  // Keeping a folder's copy gave way to others: HALT, or the caller gone, stops it here.
  const stopped = stoppedBy(action.signal);
  if (stopped !== undefined) {
    env.undo.drop(kept.id);
    return stopped;
  }
  let result: ExecutionResult;
  try {
    result = run();
  } catch (e) {
    env.undo.drop(kept.id);
    return failed('FS_IO', e instanceof Error ? e.message : 'the change failed');
  }
  if (!result.ok) {
    env.undo.drop(kept.id);
    return result;
  }
  await confirmChanges(env, call);
  return { ...result, undo_id: kept.id };
}

export async function fsMkdir(action: PreparedAction<'fs.mkdir'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { path } = action.args;
  const kind = probe(path);
  if (kind === 'dir') return { ok: true, output: { created: false, path } };
  if (kind !== 'missing') return failed('FS_EXISTS', `\`${path}\` exists and is not a folder`);
  return changing(env, action, [{ path, removes: false }], () => {
    makeDirs(path);
    return { ok: true, output: { created: true, path } };
  });
}

/**
 * A file or folder moved (renamed) to a path where nothing is: never over an existing one, and
 * into a folder that exists. (Between this check and the rename another process could create the
 * destination; a file there would then be replaced, and the undo, which checks every path first,
 * would refuse to move anything back over it.)
 */
export async function fsMove(action: PreparedAction<'fs.move'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { from, to } = action.args;
  const source = probe(from);
  if (source === 'missing') return failed('FS_NOT_FOUND', `\`${from}\` does not exist`);
  if (source === 'other') return failed('FS_NOT_A_FILE', `\`${from}\` is neither a file, a folder nor a link`);
  const exists = failed('FS_EXISTS', `\`${to}\` exists; a move never replaces anything (delete it first, or pick another name)`);
  if (probe(to) !== 'missing') return exists;
  if (probe(dirname(to)) !== 'dir') return failed('FS_NO_PARENT', `the folder \`${dirname(to)}\` does not exist; create it first (fs_mkdir)`);
  // A folder moves with everything in it: none of that may change what the policy hides.
  const tree = await treeVerdict(env.gate, { kind: 'move', from, to: [to] }, { signal: action.signal, current: () => env.gate });
  const stopped = stoppedBy(action.signal);
  if (stopped !== undefined) return stopped;
  if (tree.kind !== 'ok') return failed('NOT_ALLOWED', tree.reason);
  return changing(
    env,
    action,
    [
      { path: from, removes: true },
      { path: to, removes: false },
    ],
    () => {
      // The walk and the keep gave way to others: the destination is looked at again, at once before the move.
      if (probe(to) !== 'missing') return exists;
      const moved = moveTree(from, to);
      // Copied whole from another file system, but not all of it went from where it was.
      if (moved.sourceLeft !== undefined) return failed('FS_IO', `\`${from}\` is whole at \`${to}\`, but removing it from where it was failed partway (${moved.sourceLeft}): part of it is still there`);
      return { ok: true, output: { from, to } };
    },
  );
}
