import { createHash, randomBytes } from 'node:crypto';
import { constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { chmod, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { UndoRecord } from '../../toolhost/undo-store.js';
import { commitFile, probe, readNoFollow, treeBytes } from './files.js';

/**
 * The undo store: one JSON record per undoable action, the replaced bytes beside it, and an
 * `.applied` marker that makes every undo single-use. Files are 0600 in a 0700 directory.
 */
export class UndoFiles {
  /** Bytes of the copies kept per undo id (`.prev`, `.keep`), oldest first; counted when first needed. */
  private copies: Map<string, number> | undefined;
  /** Undos being applied now: one at a time each, and their copies never pruned meanwhile. */
  private readonly applying = new Set<string>();

  private constructor(
    readonly dir: string,
    /** Past this many bytes of copies, the oldest undos' copies are removed (`prunedAt` says when). */
    readonly maxCopyBytes: number,
  ) {}

  static open(dir: string, maxCopyBytes = UNDO_COPY_BYTES): UndoFiles {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // What a gate that stopped had set aside and not yet removed.
    for (const name of readdirSync(dir)) if (GONE_NAME.test(name)) void removeAside(join(dir, name));
    return new UndoFiles(dir, maxCopyBytes);
  }

  /**
   * Removes a copy or trash the store no longer needs. A folder is renamed out of the way at once
   * (its id's names are free again) and removed on libuv's pool: removing a kept 2,000-file folder
   * in one go had held every other agent's answer for 0.3 s on this VM (session 35). What a stop
   * leaves set aside is removed at the next open.
   */
  private discard(name: string): void {
    const path = join(this.dir, name);
    if (probe(path) !== 'dir') {
      rmSync(path, { force: true });
      return;
    }
    const aside = join(this.dir, `gone-${randomBytes(8).toString('hex')}`);
    renameSync(path, aside);
    void removeAside(aside);
  }

  /**
   * Counts what `id` keeps (called once its copies and record are written) and removes the copies
   * of the oldest undos while all of them take more than `maxCopyBytes`: an agent's T1 writes and
   * moves had filled the disk through this store (566 MiB in 2.7 s, red team, session 33). A
   * delete's trash is a move, not a copy, and is never counted or removed here.
   */
  private account(record: UndoRecord): void {
    const { id } = record;
    const copies = this.tally();
    copies.delete(id);
    // The copies this record names (no listing of the whole store on every write).
    const own = record.kind === 'write' ? [`${id}.prev`] : record.kind === 'change' ? record.entries.flatMap((e) => (e.kept === undefined ? [] : [e.kept])) : [];
    copies.set(id, own.reduce((sum, name) => sum + treeBytes(isAbsolute(name) ? name : join(this.dir, name)), 0));
    let total = 0;
    for (const bytes of copies.values()) total += bytes;
    for (const [old, bytes] of copies) {
      if (total <= this.maxCopyBytes) break;
      if (old === id || this.applying.has(old)) continue;
      for (const name of this.copyNames(old)) this.discard(name);
      commitFile(join(this.dir, `${old}.pruned`), Buffer.from(new Date().toISOString(), 'utf8'), 0o600);
      copies.delete(old);
      total -= bytes;
    }
  }

  private tally(): Map<string, number> {
    if (this.copies !== undefined) return this.copies;
    const ids = new Map<string, string>();
    for (const name of readdirSync(this.dir)) {
      const id = COPY_NAME.exec(name)?.[1];
      // Oldest first by the record's own time (a copy whose record is gone counts as oldest).
      if (id !== undefined && !ids.has(id)) ids.set(id, this.get(id)?.created_at ?? '');
    }
    this.copies = new Map([...ids].sort((a, b) => a[1].localeCompare(b[1])).map(([id]) => [id, this.copyBytes(id)]));
    return this.copies;
  }

  private copyNames(id: string): string[] {
    return readdirSync(this.dir).filter((name) => COPY_NAME.exec(name)?.[1] === id);
  }

  private copyBytes(id: string): number {
    return this.copyNames(id).reduce((sum, name) => sum + treeBytes(join(this.dir, name)), 0);
  }

  /** When the copies `id` kept were removed to keep the store within its size, if they were. */
  prunedAt(id: string): string | undefined {
    const path = join(this.dir, `${id}.pruned`);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  }

  newId(): string {
    return `un_${randomBytes(12).toString('hex')}`;
  }

  /** Where a delete moves what it deletes. */
  trashPath(id: string): string {
    return join(this.dir, `${id}.trash`);
  }

  /** Where undoing change `id` puts what its entry `index` had made (moved aside, never deleted in place). */
  undonePath(id: string, index: number): string {
    return join(this.dir, `${id}.${String(index)}.undone`);
  }

  /** Where entry `index` of change `id` keeps its copy. */
  keptPath(id: string, index: number): string {
    return join(this.dir, `${id}.${String(index)}.keep`);
  }

  /** Links an agent's call id to the change record it confirms. */
  bindCall(call: string, id: string): void {
    commitFile(join(this.dir, `${callKey(call)}.call`), Buffer.from(id, 'utf8'), 0o600);
  }

  byCall(call: string): string | undefined {
    const path = join(this.dir, `${callKey(call)}.call`);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  }

  /** Marks undo `id` as being applied (false when it already is): see applyUndo. */
  claim(id: string): boolean {
    if (this.applying.has(id)) return false;
    this.applying.add(id);
    return true;
  }

  release(id: string): void {
    this.applying.delete(id);
  }

  /** Forgets a change that never ran (its call was not allowed): record, copies and binding. */
  drop(id: string): void {
    if (!/^un_[0-9a-f]{24}$/u.test(id)) return;
    // Also what a keep left before its record was saved (a copy that failed half-way).
    for (const name of readdirSync(this.dir)) if (name.startsWith(`${id}.`) && name !== `${id}.json`) this.discard(name);
    const record = this.get(id);
    rmSync(join(this.dir, `${id}.json`), { force: true });
    if (record?.kind === 'change' && record.call !== '') rmSync(join(this.dir, `${callKey(record.call)}.call`), { force: true });
  }

  /** `previous`: the bytes a write replaces, none when the file did not exist (nothing to sync then). */
  save(record: UndoRecord, previous?: Uint8Array): void {
    if (previous !== undefined) commitFile(join(this.dir, `${record.id}.prev`), previous, 0o600);
    commitFile(join(this.dir, `${record.id}.json`), Buffer.from(JSON.stringify(record), 'utf8'), 0o600);
    this.account(record);
  }

  /**
   * `save`, with the writes and fsyncs on libuv's thread pool and run side by side: for a write an
   * agent's own runtime makes (Claude Code's Write and Edit), whose answer waits for its audit
   * record's fsync anyway. The names are fresh (a new id), so each file is created in place with
   * `O_EXCL` rather than renamed, and its data and the folder's entry are synced together. A crash
   * before both syncs returned leaves a record nobody was told about: a torn one reads as absent
   * (`get`), and a copy that does not match its digest is refused by undo.
   */
  async saveDurably(record: UndoRecord, previous?: Uint8Array): Promise<void> {
    const parts: [string, Uint8Array][] = [[`${record.id}.json`, Buffer.from(JSON.stringify(record), 'utf8')]];
    if (previous !== undefined) parts.unshift([`${record.id}.prev`, previous]);
    const opened: FileHandle[] = [];
    const closeAll = () => Promise.all(opened.map((f) => f.close()));
    try {
      for (const [name, bytes] of parts) {
        const file = await open(join(this.dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
        opened.push(file);
        await file.writeFile(bytes);
      }
      opened.push(await open(this.dir, constants.O_RDONLY | constants.O_DIRECTORY));
      await Promise.all(opened.map((f) => f.sync()));
    } catch (e) {
      // A full disk or an I/O error: the write is refused, and what was begun is not left behind.
      await closeAll();
      await Promise.all(parts.map(([name]) => rm(join(this.dir, name), { force: true })));
      throw e;
    }
    await closeAll();
    this.account(record);
  }

  get(id: string): UndoRecord | undefined {
    if (!/^un_[0-9a-f]{24}$/u.test(id)) return undefined;
    const path = join(this.dir, `${id}.json`);
    if (!existsSync(path)) return undefined;
    try {
      return JSON.parse(readNoFollow(path, 1_048_576).toString('utf8')) as UndoRecord;
    } catch (e) {
      // Torn by a crash before its write was acknowledged (see saveDurably): nothing to undo.
      if (e instanceof SyntaxError) return undefined;
      throw e;
    }
  }

  previous(id: string): Buffer {
    return readNoFollow(join(this.dir, `${id}.prev`), Number.MAX_SAFE_INTEGER);
  }

  appliedAt(id: string): string | undefined {
    const path = join(this.dir, `${id}.applied`);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  }

  markApplied(id: string, at: string): void {
    commitFile(join(this.dir, `${id}.applied`), Buffer.from(at, 'utf8'), 0o600);
  }

  list(): UndoRecord[] {
    return readdirSync(this.dir)
      .filter((f) => /^un_[0-9a-f]{24}\.json$/u.test(f))
      .map((f) => this.get(f.slice(0, -5)))
      .filter((r): r is UndoRecord => r !== undefined)
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }
}

/** What the copies kept for undo may take in all, by default (1 GiB). */
export const UNDO_COPY_BYTES = 1024 * 1024 * 1024;

/**
 * Removes a folder set aside, off the event loop. A kept copy keeps its folders' modes, so a
 * read-only folder (0555) in it cannot be emptied by its owner as it is: its folders are made the
 * owner's to write first, then it is removed again (review, session 35: such copies were never
 * removed, and the store grew past its limit).
 */
async function removeAside(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
    return;
  } catch {
    // made writable below
  }
  try {
    for (const pending = [path]; pending.length > 0; ) {
      const dir = pending.pop() ?? path;
      await chmod(dir, 0o700);
      for (const d of await readdir(dir, { withFileTypes: true })) if (d.isDirectory()) pending.push(join(dir, d.name));
    }
    await rm(path, { recursive: true, force: true });
  } catch {
    // Left for the next open to try again.
  }
}

/** A folder set aside to be removed (discard). */
const GONE_NAME = /^gone-[0-9a-f]{16}$/u;

/** A copy kept for an undo: the bytes a write replaced, or what a change removes or replaces. */
const COPY_NAME = /^(un_[0-9a-f]{24})\.(?:prev|\d+\.keep)$/u;

const callKey = (call: string): string => `call_${createHash('sha256').update(call).digest('hex').slice(0, 32)}`;
