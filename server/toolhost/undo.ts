import { commitFile, DIGEST_CONTENT_BYTES, FileOpError, moveTree, probe, readNoFollow, removeFile, sha256Bytes, treeDigest } from '../adapters/agent/files.js';
import { canonicalize } from '../core/paths/canonicalize.js';
import { UNDO_HALTED, undoChange } from './agent-changes.js';
import type { ToolhostEnv } from './env.js';
import { gitHead, gitSoftReset, type InRepo } from './executors/git.js';
import { failed, type ExecutionResult, type PreparedAction } from './types.js';
import type { UndoRecord } from './undo-store.js';

/**
 * Undo of a T1 action (SPEC §4, §7): listed, applied once, and refused when the world moved on:
 * the file changed since the write, something now stands where a deleted file was, or HEAD is
 * no longer the commit being undone. The path must still pass the gate's path checks.
 */
export async function applyUndo(id: string, env: ToolhostEnv, halted: () => boolean = () => false): Promise<ExecutionResult> {
  // One at a time per undo, and what it kept not pruned meanwhile: its checks give way to others
  // (a tree's digest), and a second request for the same undo, or another keep pruning its copy,
  // must not land between its checks and its moves (review, session 35).
  if (!env.undo.claim(id)) return failed('UNDO_UNAVAILABLE', `undo \`${id}\` is being applied now`);
  try {
    return await applyOnce(id, env, halted);
  } finally {
    env.undo.release(id);
  }
}

async function applyOnce(id: string, env: ToolhostEnv, halted: () => boolean): Promise<ExecutionResult> {
  const record = env.undo.get(id);
  if (record === undefined) return failed('UNDO_UNAVAILABLE', `no undo record \`${id}\``);
  const applied = env.undo.appliedAt(id);
  if (applied !== undefined) return failed('UNDO_UNAVAILABLE', `undo \`${id}\` was already applied at ${applied}`);
  const pruned = env.undo.prunedAt(id);
  if (pruned !== undefined) return failed('UNDO_UNAVAILABLE', `what undo \`${id}\` kept was removed at ${pruned}: the undo store keeps its newest copies within ${String(Math.round(env.undo.maxCopyBytes / 1048576))} MiB`);
  const targets = record.kind === 'commit' ? [record.repo] : record.kind === 'change' ? record.entries.map((e) => e.path) : [record.path];
  const scoped = targets.map((target) => ({ target, scoped: canonicalize(target, env.gate, { cwd: undefined, access: record.kind === 'change' ? 'delete' : 'write' }) }));
  const refused = scoped.find((s) => !s.scoped.ok);
  if (refused !== undefined && !refused.scoped.ok) return failed('NOT_ALLOWED', `the gate refuses \`${refused.target}\` now: ${refused.scoped.reason}`);
  const first = scoped[0]?.scoped;
  if (first?.ok !== true) return failed('UNDO_UNAVAILABLE', 'the undo record names no path');
  let result: ExecutionResult;
  try {
    result = record.kind === 'change' ? await undoChange(record, env, halted) : await undoOne(record, env, first.value, halted);
  } catch (e) {
    // A write and a delete are put back by one rename or link each (a copy across file systems
    // lands under a name of its own first), so a failure normally leaves the path as it was.
    return failed('UNDO_UNAVAILABLE', `undo \`${id}\` could not be applied: ${e instanceof Error ? e.message : String(e)}; it is not recorded as applied: look at \`${targets[0] ?? id}\` before trying again`);
  }
  if (result.ok) env.undo.markApplied(id, env.now().toISOString());
  return result;
}

async function undoOne(record: Exclude<UndoRecord, { kind: 'change' }>, env: ToolhostEnv, scoped: PreparedAction['paths'][number], halted: () => boolean): Promise<ExecutionResult> {
  switch (record.kind) {
    case 'write': {
      const now = probe(record.path);
      const current = now === 'file' ? currentDigest(record.path) : now;
      if (current !== record.after_digest) return failed('UNDO_UNAVAILABLE', `\`${record.path}\` changed since the write; undo refused`);
      if (!record.previous.existed) {
        removeFile(record.path);
        return { ok: true, output: { restored: record.path } };
      }
      const kept = env.undo.previous(record.id);
      if (record.previous.digest !== undefined && sha256Bytes(kept) !== record.previous.digest) return failed('UNDO_UNAVAILABLE', `the copy kept of \`${record.path}\` is damaged; undo refused`);
      commitFile(record.path, kept, record.previous.mode);
      return { ok: true, output: { restored: record.path } };
    }
    case 'delete': {
      if (probe(record.path) !== 'missing') return failed('UNDO_UNAVAILABLE', `something now stands at \`${record.path}\`; undo refused`);
      if (probe(record.trash) === 'missing' || (await treeDigest(record.trash)) !== record.digest) return failed('UNDO_UNAVAILABLE', 'the trashed copy is gone or changed');
      if (halted()) return UNDO_HALTED;
      // The digest gave way to others: what stands at the path is looked at again, just before the move.
      if (probe(record.path) !== 'missing') return failed('UNDO_UNAVAILABLE', `something now stands at \`${record.path}\`; undo refused`);
      moveTree(record.trash, record.path);
      return { ok: true, output: { restored: record.path } };
    }
    case 'commit': {
      const action: InRepo = { actionId: `undo-${record.id}`, paths: [scoped] };
      const now = await gitHead(action, env);
      if (!now.ok) return failed('UNDO_UNAVAILABLE', `HEAD could not be read: ${now.result.error?.message ?? 'git failed'}; undo refused`);
      const head = now.sha;
      if (head !== record.after) return failed('UNDO_UNAVAILABLE', `HEAD moved since the commit (now ${head ?? 'unborn'}); undo refused`);
      const reset = await gitSoftReset(action, env, record.before);
      return reset.ok ? { ok: true, output: { head: record.before } } : failed('GIT_FAILED', `the soft reset failed: ${reset.stderr ?? ''}`);
    }
  }
}

/**
 * The digest of the file a write left, read up to DIGEST_CONTENT_BYTES: a file larger than that is
 * no write's own (a write larger than the undo store keeps is never made), so it has changed;
 * reading it whole would hold the gate's thread (red team, session 33).
 */
function currentDigest(path: string): string {
  try {
    return sha256Bytes(readNoFollow(path, DIGEST_CONTENT_BYTES));
  } catch (e) {
    if (e instanceof FileOpError && e.code === 'FS_TOO_LARGE') return 'too large';
    throw e;
  }
}
