import { copyTreeBounded, linkTargetOf, moveTree, probe, restoreKept, treeDigest } from '../adapters/agent/files.js';
import type { ToolhostEnv } from './env.js';
import { failed, type ExecutionResult } from './types.js';
import type { ChangeEntry, UndoRecord } from './undo-store.js';
import { trimEnd } from '../../shared/trim-end.js';

/**
 * Undo for changes an agent's own runtime makes once the gate allowed them (Claude Code's Bash:
 * mkdir, touch, cp, mv, rm, ln -s, sed -i; SPEC §1.6 "reversibility beats permission"). Before
 * the agent runs the call, what each path holds is kept; when the agent reports the call done
 * (PostToolUse), what each path holds then is recorded; an undo puts every path back only while
 * all of them still hold exactly that, so it never clobbers later work.
 */
export interface PlannedChange {
  readonly path: string;
  /** The change may delete or replace what is there (rm, mv's source): a folder is copied whole. */
  readonly removes: boolean;
}

/** A tree larger than this is not copied for undo; the call then needs a person instead. */
const MAX_KEPT_ENTRIES = 5_000;

/** `created`: the paths nothing was at before the call (the topmost of a missing chain). */
type Kept = { readonly ok: true; readonly id: string; readonly created: readonly string[] } | { readonly ok: false; readonly reason: string };

export async function keepChanges(env: ToolhostEnv, what: { readonly changes: readonly PlannedChange[]; readonly actionId: string; readonly call: string; readonly summary: string }): Promise<Kept> {
  const id = env.undo.newId();
  const entries: ChangeEntry[] = [];
  const seen = new Set<string>();
  try {
    for (const change of what.changes) {
      const path = topmostMissing(change.path);
      if (seen.has(path)) continue;
      seen.add(path);
      const kind = probe(path);
      if (kind === 'other') return drop(env, id, `\`${path}\` is neither a file, a folder nor a link`);
      const entry: ChangeEntry = { path, before: kind };
      if (kind === 'file' || (kind === 'dir' && change.removes)) {
        const kept = env.undo.keptPath(id, entries.length);
        if (!(await copyTreeBounded(path, kept, { entries: MAX_KEPT_ENTRIES, bytes: env.limits.maxUndoBytes }))) return drop(env, id, `\`${path}\` is too large to keep for undo`);
        entries.push({ ...entry, kept });
      } else if (kind === 'link') entries.push({ ...entry, link: linkTargetOf(path) ?? '' });
      else entries.push(entry);
    }
    // A fresh record: written and synced on libuv's pool, not on the thread every agent's answer waits for.
    await env.undo.saveDurably({ id, kind: 'change', action_id: what.actionId, created_at: env.now().toISOString(), summary: what.summary.slice(0, 500), call: what.call, entries });
    if (what.call !== '') env.undo.bindCall(what.call, id);
    return { ok: true, id, created: entries.filter((e) => e.before === 'missing').map((e) => e.path) };
  } catch (e) {
    return drop(env, id, e instanceof Error ? e.message : 'the undo store refused it');
  }
}

function drop(env: ToolhostEnv, id: string, reason: string): Kept {
  env.undo.drop(id);
  return { ok: false, reason };
}

/** The agent reports the call done: what every path holds now is what an undo will expect. */
export async function confirmChanges(env: ToolhostEnv, call: string): Promise<boolean> {
  const id = env.undo.byCall(call);
  const record = id === undefined ? undefined : env.undo.get(id);
  if (record?.kind !== 'change' || record.after !== undefined) return false;
  const after: string[] = [];
  for (const e of record.entries) after.push(await stateDigest(e.path, probe(e.path), deep(e)));
  env.undo.save({ ...record, after });
  return true;
}

/** HALT landed while an undo checked what it would put back: it stops before it moves anything. */
export const UNDO_HALTED = failed('HALTED', 'HALT stopped the undo before it changed anything');

export async function undoChange(record: Extract<UndoRecord, { kind: 'change' }>, env: ToolhostEnv, halted: () => boolean = () => false): Promise<ExecutionResult> {
  const after = record.after;
  if (after === undefined) return failed('UNDO_UNAVAILABLE', 'the agent never reported this call as done, so ORACLE cannot tell what it changed; undo refused');
  // INVARIANT: every path is checked before any is touched: an undo applies whole or not at all.
  for (const [i, entry] of record.entries.entries()) {
    if ((await stateDigest(entry.path, probe(entry.path), deep(entry))) !== after[i]) return failed('UNDO_UNAVAILABLE', `\`${entry.path}\` changed since \`${record.summary}\`; undo refused`);
  }
  // The checks gave way to others: a HALT meanwhile stops the undo before anything moves.
  if (halted()) return UNDO_HALTED;
  const restored: string[] = [];
  for (const [i, entry] of [...record.entries.entries()].reverse()) {
    if (entry.before === 'dir' && entry.kept === undefined) continue; // a folder that stayed; what went inside has its own entries
    // What the change made is moved aside into ORACLE's trash, never deleted in place: a recursive
    // delete walks by path, and a job swapping a folder deep inside for a link had it delete a
    // read-only root's files (red team, session 33). A rename through the pinned parent walks nothing.
    const aside = env.undo.undonePath(record.id, i);
    let movedAside = false;
    try {
      if (probe(entry.path) !== 'missing') {
        const moved = moveTree(entry.path, aside);
        movedAside = true;
        // Whole in the trash, but part of it is still at the path: nothing is put back over it.
        if (moved.sourceLeft !== undefined) throw new Error(`moving what the change left there into ORACLE's trash left part of it in place (${moved.sourceLeft})`);
      }
      if (entry.kept !== undefined) restoreKept(entry.path, { copy: entry.kept });
      else if (entry.link !== undefined) restoreKept(entry.path, { link: entry.link });
    } catch (e) {
      return stopped(record, { restored, at: entry, movedAside: movedAside ? aside : undefined, why: reasonOf(e) });
    }
    restored.push(entry.path);
  }
  return { ok: true, output: { restored: record.entries.map((e) => e.path) } };
}

/**
 * An undo that failed partway (a full disk, a folder in the way): nothing is lost, since what the
 * change made is in ORACLE's trash and what it replaced is still kept; the answer says which paths
 * are back, which are not, and where both copies of the one it stopped at are, so a person can
 * finish by hand. The record is not marked applied; a second try is refused (the paths moved on).
 */
function stopped(record: Extract<UndoRecord, { kind: 'change' }>, how: { readonly restored: readonly string[]; readonly at: ChangeEntry; readonly movedAside: string | undefined; readonly why: string }): ExecutionResult {
  const { restored, at, movedAside, why } = how;
  const where = [
    ...(movedAside === undefined ? [] : [`what the change had left there is in ${movedAside}`]),
    ...(at.kept === undefined ? (at.link === undefined ? [] : [`it was a link to \`${at.link}\``]) : [`what it held before is kept in ${at.kept}`]),
  ];
  const left = record.entries.filter((e) => e.path !== at.path && !restored.includes(e.path) && !(e.before === 'dir' && e.kept === undefined)).map((e) => e.path);
  if (restored.length === 0 && movedAside === undefined) return failed('UNDO_UNAVAILABLE', `\`${at.path}\` could not be put back (${why}); no path was put back`);
  const parts = [
    `undo of \`${record.summary}\` stopped at \`${at.path}\`: ${why}`,
    `put back: ${restored.length === 0 ? 'nothing' : restored.map((p) => `\`${p}\``).join(', ')}`,
    `not put back: ${[at.path, ...left].map((p) => `\`${p}\``).join(', ')}`,
    ...where,
  ];
  return failed('UNDO_PARTIAL', parts.join('; '));
}

/** An error's reason without the descriptor paths a system call names (`ENOSPC: no space left on device`). */
function reasonOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const { code, syscall } = e as NodeJS.ErrnoException;
  return code !== undefined && syscall !== undefined ? (e.message.split(', ')[0] ?? e.message) : e.message;
}

const deep = (entry: ChangeEntry): boolean => entry.before !== 'dir' || entry.kept !== undefined;

/**
 * A path's state, to see whether it moved on: the whole tree for what the change made or removes,
 * only "a folder" for a folder that stays (its contents are not this change's to judge).
 */
async function stateDigest(path: string, kind: ReturnType<typeof probe>, whole: boolean): Promise<string> {
  if (kind === 'dir' && !whole) return 'dir';
  if (kind === 'link') return `link:${linkTargetOf(path) ?? ''}`;
  return treeDigest(path);
}

/** `mkdir -p a/b/c` with only `a` missing makes `a`: undo removes from there. */
function topmostMissing(path: string): string {
  let top = trimEnd(path, '/');
  for (;;) {
    const parent = top.slice(0, top.lastIndexOf('/'));
    if (parent === '' || probe(top) !== 'missing' || probe(parent) !== 'missing') return top;
    top = parent;
  }
}
