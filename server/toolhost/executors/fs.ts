import { commitFile, FileOpError, listNoFollow, modeNoFollow, moveTree, probe, readNoFollow, sha256Bytes, treeDigest } from '../../adapters/agent/files.js';
import type { ToolhostEnv } from '../env.js';
import type { UndoRecord } from '../undo-store.js';
import { textPage } from '../../core/tools/text-page.js';
import { hiddenByPolicy } from '../sandbox-masks.js';
import { treeVerdict } from '../tree-reach.js';
import { join } from 'node:path';
import { abortedBy } from '../../core/halt.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';

/**
 * An executor that looked through a folder first gave way to others meanwhile: HALT, or its caller
 * going away, stops it before it changes anything.
 */
export function stoppedBy(signal: AbortSignal | undefined): ExecutionResult | undefined {
  if (signal?.aborted !== true) return undefined;
  return abortedBy(signal) === 'halt' ? failed('HALTED', 'HALT stopped it before it changed anything') : failed('CANCELLED', 'the caller withdrew it before it changed anything');
}

function guarded(run: () => ExecutionResult): ExecutionResult {
  try {
    return run();
  } catch (e) {
    if (e instanceof FileOpError) return failed(e.code, e.message);
    return failed('FS_IO', e instanceof Error ? e.message : 'file operation failed');
  }
}

/** A page (`offset`/`limit`) holds at most this much text, so no read floods a model's context. */
export const PAGE_BYTES = 256 * 1024;

/**
 * fs.read: the file's text, or a page of it. Only UTF-8 text is returned: a file holding a NUL
 * byte or bytes that are not UTF-8 is refused with that reason, never turned into mojibake.
 */
export function fsRead(action: PreparedAction<'fs.read'>, env: ToolhostEnv): ExecutionResult {
  return guarded(() => {
    const { path, offset, limit } = action.args;
    // `path` is the real path the gate decided on (no link in it): the file opened must be that
    // very file (the boundary leaves step 12 to this check on Linux).
    const bytes = readNoFollow(path, env.limits.maxReadBytes, 'exact');
    const digest = sha256Bytes(bytes);
    const notText = (why: string): ExecutionResult => failed('FS_NOT_TEXT', `\`${path}\` is not text (${String(bytes.length)} bytes; ${why}): fs.read returns text only`, { digest });
    if (bytes.includes(0)) return notText('it holds a NUL byte');
    let text: string;
    try {
      // A byte-order mark stays: the text is the file's, so writing it back changes nothing.
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return notText('it is not valid UTF-8');
    }
    // Redacted whole, then paged: a secret across a page boundary (a PEM block) is still caught,
    // and line numbers are those of the text the agent is shown, the same on every call.
    const redacted = env.redact(text, []);
    if (offset === undefined && limit === undefined) return { ok: true, output: redacted, digest };
    const { text: shown, ...page } = textPage(redacted, { offset: offset ?? 1, limit: limit ?? Number.MAX_SAFE_INTEGER, maxBytes: PAGE_BYTES });
    return { ok: true, output: shown, digest, page };
  });
}

export function fsList(action: PreparedAction<'fs.list'>, env: ToolhostEnv): ExecutionResult {
  // What the gate would refuse to touch (`.env`, keys, ORACLE's own files) is not shown either.
  const dir = action.args.path;
  return guarded(() => ({ ok: true, output: listNoFollow(dir, 'exact').filter((entry) => !hiddenByPolicy(env.gate, join(dir, entry.name))) }));
}

/**
 * fs.write by exact commit, keeping what it replaces so the write can be undone (T1). A file too
 * large to keep is not replaced at all: a T1 write without undo would be a lie.
 */
export function fsWrite(action: PreparedAction<'fs.write'>, env: ToolhostEnv): ExecutionResult {
  return guarded(() => {
    const { path, expect_before: expect } = action.args;
    const content = Buffer.from(action.args.content, 'utf8');
    const kept = keepForUndo(env, { path, content, actionId: action.actionId, ...(expect === undefined ? {} : { expect }) });
    if (!kept.ok) return kept.result;
    const made = kept.created || env.made.madeHere(action.session, path);
    commitFile(path, content, kept.mode);
    // A file the session wrote where nothing was (or rewrote, having made it): its own to delete again.
    if (made) env.made.add(action.session, path);
    return { ok: true, digest: kept.digest, undo_id: kept.id };
  });
}

/** What a write replaces, read and described, before it is saved to the undo store. */
interface UndoKeep {
  readonly ok: true;
  readonly id: string;
  readonly mode: number;
  readonly digest: string;
  readonly record: UndoRecord;
  readonly previous: Buffer | undefined;
}

/**
 * What a write to `path` replaces, kept with the digest of what the write leaves, so an undo
 * restores it only while the file still holds exactly that. Used by fs.write before it commits.
 */
export function keepForUndo(env: ToolhostEnv, write: { path: string; content: Uint8Array; actionId: string; expect?: string }): { ok: true; id: string; mode: number; digest: string; created: boolean } | { ok: false; result: ExecutionResult } {
  const kept = undoKeep(env, write);
  if (!kept.ok) return kept;
  env.undo.save(kept.record, kept.previous);
  return { ...kept, created: kept.previous === undefined };
}

/**
 * The same, for writes an agent's own runtime performs once the gate allowed them (Claude Code's
 * Write and Edit): the store's writes and syncs leave the event loop, overlapping the audit fsync
 * the answer waits for. If such a write never happens, the digest never matches and undo refuses.
 */
/** `created`: nothing was at the path before the write. */
export async function keepForAgentWrite(env: ToolhostEnv, write: { path: string; content: Uint8Array; actionId: string }): Promise<{ ok: true; id: string; created: boolean } | { ok: false; result: ExecutionResult }> {
  const kept = undoKeep(env, write);
  if (!kept.ok) return kept;
  await env.undo.saveDurably(kept.record, kept.previous);
  return { ok: true, id: kept.id, created: kept.previous === undefined };
}

function undoKeep(env: ToolhostEnv, write: { path: string; content: Uint8Array; actionId: string; expect?: string }): UndoKeep | { ok: false; result: ExecutionResult } {
  const { path } = write;
  const before = probe(path);
  if (before !== 'missing' && before !== 'file') return { ok: false, result: failed('FS_NOT_A_FILE', `\`${path}\` is a ${before}; only regular files are written`) };
  let previous: Buffer | undefined;
  let mode = 0o644;
  if (before === 'file') {
    try {
      // The very file at the decided path (no link swapped in above it since), or nothing is kept.
      previous = readNoFollow(path, env.limits.maxUndoBytes, 'exact');
    } catch (e) {
      if (e instanceof FileOpError && e.code === 'FS_TOO_LARGE') return { ok: false, result: failed('UNDO_UNAVAILABLE', `\`${path}\` is too large to keep for undo, so it is not replaced`) };
      throw e;
    }
    mode = modeNoFollow(path);
  }
  // An edit's write lands only on the file it was computed from (and shown to the person as a diff).
  if (write.expect !== undefined && write.expect !== (previous === undefined ? 'absent' : sha256Bytes(previous))) {
    return { ok: false, result: failed('FS_CHANGED', `\`${path}\` changed since the edit was computed; nothing was written: read it again and redo the edit`) };
  }
  const id = env.undo.newId();
  const digest = sha256Bytes(write.content);
  const record: UndoRecord = { id, kind: 'write', action_id: write.actionId, created_at: env.now().toISOString(), path, previous: previous === undefined ? { existed: false, mode } : { existed: true, mode, digest: sha256Bytes(previous) }, after_digest: digest };
  return { ok: true, id, mode, digest, record, previous };
}

/** fs.delete moves to ORACLE's trash (undoable); nothing is unlinked for good. */
export async function fsDelete(action: PreparedAction<'fs.delete'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { path } = action.args;
  const kind = probe(path);
  if (kind === 'missing') return failed('FS_NOT_FOUND', `\`${path}\` does not exist`);
  if (kind === 'link' || kind === 'other') return failed('FS_NOT_A_FILE', `\`${path}\` is a ${kind}; only files and directories are deleted`);
  // Deleting a folder must not take with it what the gate would never let be deleted alone.
  const tree = await treeVerdict(env.gate, { kind: 'delete', path }, { signal: action.signal, current: () => env.gate });
  const stopped = stoppedBy(action.signal);
  if (stopped !== undefined) return stopped;
  if (tree.kind !== 'ok') return failed('NOT_ALLOWED', tree.reason);
  const id = env.undo.newId();
  const trash = env.undo.trashPath(id);
  // The record first (a crash after the move leaves the trash findable), its digest once the tree
  // is in the trash: made there, where no agent reaches, it is what an undo must find, however long
  // the reading gives way to others. Until then no digest matches, so no undo runs.
  const record = { id, kind: 'delete' as const, action_id: action.actionId, created_at: env.now().toISOString(), path, trash, digest: 'pending' };
  const moved = guarded(() => {
    env.undo.save(record);
    const left = moveTree(path, trash).sourceLeft;
    // Whole in the trash (from another file system, a copy), but not all of it went from here.
    return left === undefined ? { ok: true } : failed('FS_IO', `\`${path}\` is whole in ORACLE's trash (${trash}), but removing it here failed partway (${left}): part of it is still there`);
  });
  if (!moved.ok) return moved;
  let digest: string;
  try {
    digest = await treeDigest(trash);
    env.undo.save({ ...record, digest });
  } catch (e) {
    // No undo could be kept (a file the gate cannot read, a full disk): what was deleted goes back
    // where it was while nothing stands there, and the delete is refused, as before it moved.
    const reason = e instanceof Error ? e.message : 'unknown error';
    if (probe(path) === 'missing' && guarded(() => (moveTree(trash, path).sourceLeft === undefined ? { ok: true } : failed('FS_IO', 'partly moved back'))).ok) {
      env.undo.drop(id);
      return failed(e instanceof FileOpError ? e.code : 'FS_IO', `\`${path}\` could not be read whole for its undo (${reason}), so it was not deleted`);
    }
    return failed('FS_IO', `\`${path}\` is in ORACLE's trash (${trash}), but reading it there failed (${reason}) and it could not be put back: its undo will be refused`);
  }
  return { ok: true, digest, undo_id: id };
}

