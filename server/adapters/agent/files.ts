import { OracleError } from '../../../shared/oracle-error.js';
import { createHash, randomBytes } from 'node:crypto';
import { sha256Hex } from '../sha256.js';
import { chmodSync, closeSync, constants, copyFileSync, cpSync, fsyncSync, linkSync, lstatSync, mkdirSync, opendirSync, openSync, readdirSync, readlinkSync, readSync, renameSync, rmSync, fstatSync, symlinkSync, utimesSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Pacer } from './pacer.js';

/**
 * File operations for agents, used only by the toolhost (SPEC §6 "fs"). The path given is the
 * canonical one the gate decided on and the toolhost re-resolved (step 12); these functions still
 * refuse to follow a link on the final component.
 */

export class FileOpError extends OracleError<'FS_NOT_FOUND' | 'FS_NOT_A_FILE' | 'FS_TOO_LARGE' | 'FS_IO' | 'FS_EXISTS' | 'PATH_CHANGED'> {}

export const sha256Bytes = (bytes: Uint8Array): string => `sha256:${sha256Hex(bytes)}`;

/**
 * The directory that holds `path`, opened without following a link and checked to be exactly
 * `dirname(path)` now. On Linux the operations that follow go through `/proc/self/fd/N/…`, so they
 * land in that directory's inode even if a component of the path is swapped for a link meanwhile
 * (the TOCTOU a parallel job could try). Elsewhere they fall back to the path.
 */
function pinParent(path: string): { readonly prefix: string; readonly fd: number; close(): void } {
  const dir = dirname(path);
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (e) {
    throw new FileOpError('PATH_CHANGED', `\`${dir}\` is not a plain directory now: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const close = () => {
    closeSync(fd);
  };
  if (process.platform !== 'linux') return { prefix: dir, fd, close };
  const actual = readlinkSync(`/proc/self/fd/${String(fd)}`);
  if (actual !== dir) {
    close();
    throw new FileOpError('PATH_CHANGED', `\`${dir}\` now resolves to \`${actual}\``);
  }
  return { prefix: `/proc/self/fd/${String(fd)}`, fd, close };
}

/** What is at `path` now, without following a final link. */
export function probe(path: string): 'missing' | 'file' | 'dir' | 'link' | 'other' {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return 'link';
    if (stat.isFile()) return 'file';
    if (stat.isDirectory()) return 'dir';
    return 'other';
  } catch {
    return 'missing';
  }
}

/** Permission bits of what is at `path`, without following a final link. */
export function modeNoFollow(path: string): number {
  return lstatSync(path).mode & 0o777;
}

/** The bytes as UTF-8 text, or undefined when they hold a NUL or are not UTF-8 (a BOM is kept). */
export function utf8Text(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether `readNoFollow(…, 'exact')` can check the file it opened against its path (Linux's /proc/self/fd). */
export const OPENED_PATH_CHECKED = process.platform === 'linux';

/**
 * Reads a regular file through O_NOFOLLOW, refusing more than `max` bytes. With `exact` (a path
 * with no link in it, as a walk of real folders makes), the opened file must be that very path
 * (Linux: its /proc/self/fd entry), so a folder swapped for a link mid-walk reads nothing.
 */
export function readNoFollow(path: string, max: number, check: 'none' | 'exact' = 'none'): Buffer {
  const exact = check === 'exact';
  // A FIFO or device would block the whole gate on open, and opening one is itself a side effect
  // (a FIFO's blocked writer is released, then dies of SIGPIPE; a serial line toggles): only a
  // regular file is opened. This look is taken here, at the moment of the read, even right after
  // a decision's walk: that walk takes a FIFO or a device for a plain entry, and an approved read
  // runs minutes later. O_NONBLOCK covers the moment between this look and the open (a FIFO then
  // opens at once and fstat refuses it; O_NOCTTY keeps a terminal from becoming the gate's).
  const kind = probe(path);
  if (kind === 'missing') throw new FileOpError('FS_NOT_FOUND', `\`${path}\` does not exist`);
  if (kind === 'link') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is a symbolic link; links are never followed`);
  if (kind !== 'file') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is not a regular file`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new FileOpError('FS_NOT_FOUND', `\`${path}\` does not exist`);
    // O_NOFOLLOW refuses a final link with ELOOP.
    if (code === 'ELOOP') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is a symbolic link; links are never followed`);
    throw new FileOpError('FS_NOT_A_FILE', `cannot open \`${path}\`: ${code ?? 'error'}`);
  }
  try {
    if (exact && OPENED_PATH_CHECKED && readlinkSync(`/proc/self/fd/${String(fd)}`) !== path) throw new FileOpError('PATH_CHANGED', `\`${path}\` resolves elsewhere now`);
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is not a regular file`);
    if (stat.size > max) throw new FileOpError('FS_TOO_LARGE', `\`${path}\` is ${stat.size} bytes; the limit is ${max}`);
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * A folder's entries, links not followed. With `exact` (a path with no link in it), the folder
 * listed is the one opened at that very path (Linux: its /proc/self/fd entry, read through the
 * descriptor), so a folder swapped for a link after the decision lists nothing.
 */
export function listNoFollow(path: string, check: 'none' | 'exact' = 'none'): { name: string; type: 'file' | 'dir' | 'link' | 'other' }[] {
  const kind = probe(path);
  if (kind === 'missing') throw new FileOpError('FS_NOT_FOUND', `\`${path}\` does not exist`);
  if (kind !== 'dir') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is not a directory`);
  if (check === 'none' || !OPENED_PATH_CHECKED) return entriesOf(path);
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const opened = `/proc/self/fd/${String(fd)}`;
    if (readlinkSync(opened) !== path) throw new FileOpError('PATH_CHANGED', `\`${path}\` resolves elsewhere now`);
    return entriesOf(opened);
  } finally {
    closeSync(fd);
  }
}

function entriesOf(path: string): { name: string; type: 'file' | 'dir' | 'link' | 'other' }[] {
  return readdirSync(path, { withFileTypes: true }).map((d) => ({
    name: d.name,
    type: d.isSymbolicLink() ? 'link' : d.isFile() ? 'file' : d.isDirectory() ? 'dir' : 'other',
  }));
}

/**
 * Exact commit (SPEC §6): write a temp file in the same directory, fsync it, rename it over the
 * target, fsync the directory. The target must be absent or a regular file; a link there is
 * refused, never followed. Returns the content digest.
 */
export function commitFile(path: string, content: Uint8Array, mode = 0o644): string {
  makeDirs(dirname(path));
  const parent = pinParent(path);
  try {
    const target = `${parent.prefix}/${basename(path)}`;
    const now = probe(target);
    if (now !== 'missing' && now !== 'file') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is a ${now}; only regular files are written`);
    const tmp = `${parent.prefix}/.${basename(path)}.oracle-${randomBytes(6).toString('hex')}.tmp`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, now === 'file' ? lstatSync(target).mode & 0o777 : mode);
    try {
      let written = 0;
      while (written < content.length) written += writeSync(fd, content, written);
      fsyncSync(fd);
    } catch (e) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw new FileOpError('FS_IO', `write failed: ${(e as Error).message}`);
    }
    closeSync(fd);
    renameSync(tmp, target);
    fsyncSync(parent.fd);
  } finally {
    parent.close();
  }
  return sha256Bytes(content);
}

/** Removes a file (used by undo of a write that created it). */
export function removeFile(path: string): void {
  const parent = pinParent(path);
  try {
    const target = `${parent.prefix}/${basename(path)}`;
    if (probe(target) !== 'file') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is not a regular file`);
    rmSync(target);
    fsyncSync(parent.fd);
  } finally {
    parent.close();
  }
}

/**
 * Moves `from` to `to` (a trash or back out of it) through pinned parents (a parent swapped for a
 * link is refused, never followed), across file systems when it must, both folders synced. `aside`:
 * one rename and nothing more, no copy across file systems and no sync (setting aside many names at
 * once; a crash may leave one where it was). Across file systems the copy lands under a short name
 * of its own beside `to` and is then linked (a file) or renamed (a folder) into place, so a copy
 * that fails partway leaves nothing half-made at `to`, and something that appeared at `to`
 * meanwhile is never replaced. Answers `sourceLeft` when `to` is whole but removing `from`
 * failed partway (part of it may still be there).
 */
export function moveTree(from: string, to: string, options: { readonly aside?: boolean } = {}): { readonly sourceLeft?: string } {
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  const source = pinParent(from);
  const dest = pinParent(to);
  let sourceLeft: string | undefined;
  try {
    const src = `${source.prefix}/${basename(from)}`;
    const dst = `${dest.prefix}/${basename(to)}`;
    try {
      renameSync(src, dst);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV' || options.aside === true) throw e;
      if (probe(dst) !== 'missing') throw new FileOpError('FS_EXISTS', `\`${to}\` is in the way`);
      const partial = `${dest.prefix}/.oracle-${randomBytes(6).toString('hex')}`;
      try {
        cpSync(src, partial, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false, preserveTimestamps: true });
        if (probe(partial) === 'dir') renameSync(partial, dst);
        else {
          linkSync(partial, dst); // EEXIST rather than replace what appeared at `to` meanwhile
          rmSync(partial, { force: true });
        }
      } catch (copyFailed) {
        try {
          rmSync(partial, { recursive: true, force: true });
        } catch {
          // the copy's own error is the one to report; the partial copy is ORACLE's name
        }
        throw copyFailed;
      }
      try {
        rmSync(src, { recursive: true });
      } catch (removeFailed) {
        sourceLeft = removeFailed instanceof Error ? removeFailed.message : String(removeFailed);
      }
    }
    if (options.aside === true) return {};
    fsyncSync(source.fd);
    fsyncSync(dest.fd);
  } finally {
    source.close();
    dest.close();
  }
  return sourceLeft === undefined ? {} : { sourceLeft };
}

/** Bytes of content a tree digest reads, in all; past them a file counts by its size and modification time. */
export const DIGEST_CONTENT_BYTES = 64 * 1024 * 1024;
/** Entries a tree digest looks at; past them a change goes unseen (README, Known limits). */
export const DIGEST_MAX_ENTRIES = 20_000;

/**
 * A digest of a file or a whole tree (names, types, link targets, contents), to see if it changed.
 * Its work is bounded, since it runs on the gate's thread: the contents of files are read while
 * they add up to at most DIGEST_CONTENT_BYTES, and any file past that counts by its size and
 * modification time (which a rename and a move into the trash keep). Reading every file whole
 * held the gate for 55 s on four sparse 2 GiB files an agent's job had made (red team, session 33).
 * It gives way to other agents between short stretches (pacer.ts): reading 64 MiB of a moved
 * folder is a stretch of work others need not wait for. The entries are taken in the same order as
 * ever (each folder's names sorted, depth first), so digests recorded before still compare.
 */
export async function treeDigest(path: string, pacer: { breathe(): Promise<void> } = new Pacer()): Promise<string> {
  const hash = createHash('sha256');
  let budget = DIGEST_CONTENT_BYTES;
  let entries = 0;
  for (const stack: [string, string][] = [[path, '.']]; stack.length > 0; ) {
    await pacer.breathe();
    const [p, rel] = stack.pop() ?? [path, '.'];
    entries += 1;
    const kind = probe(p);
    hash.update(`${rel}\0${kind}\0`);
    if (kind === 'file') {
      const stat = lstatSync(p, { bigint: true });
      if (stat.size <= BigInt(budget)) {
        const bytes = readNoFollow(p, budget);
        budget -= bytes.length;
        hash.update(bytes);
      } else hash.update(`size:${String(stat.size)}:mtime:${String(stat.mtimeNs)}`);
    }
    if (kind === 'link') hash.update(linkTargetOf(p) ?? '');
    if (kind === 'dir') {
      // At most DIGEST_MAX_ENTRIES in all, read as the folder lists them; past them the rest counts
      // as "more" (a folder of a million hard links held the gate 40 s: red team, session 33).
      const room = DIGEST_MAX_ENTRIES - entries;
      const names: string[] = [];
      const dir = opendirSync(p);
      try {
        for (let d = dir.readSync(); d !== null && names.length <= room; d = dir.readSync()) names.push(d.name);
      } finally {
        dir.closeSync();
      }
      if (names.length > room) hash.update('\0more\0');
      // Pushed last first: the first name in order is the next taken, its whole tree before the second.
      const taken = names.slice(0, Math.max(room, 0)).sort();
      for (let i = taken.length - 1; i >= 0; i--) {
        const name = taken[i] ?? '';
        stack.push([join(p, name), `${rel}/${name}`]);
      }
    }
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Which file `path` names and how it stands (device, inode, size, modification time), to see whether it was rewritten. */
export function versionOf(path: string): string | undefined {
  const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return stat === undefined ? undefined : `${String(stat.dev)}:${String(stat.ino)}:${String(stat.size)}:${String(stat.mtimeNs)}`;
}

/** Which file `path` names (device and inode, the link itself for a link), or undefined when nothing is there. */
export function inodeOf(path: string): string | undefined {
  const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return stat === undefined ? undefined : `${String(stat.dev)}:${String(stat.ino)}`;
}

/** Bytes of the regular files at or below `path`, links not followed (what a copy takes on disk, roughly). */
export function treeBytes(path: string): number {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined || stat.isSymbolicLink()) return 0;
  if (stat.isFile()) return stat.size;
  if (!stat.isDirectory()) return 0;
  return readdirSync(path).reduce((sum, name) => sum + treeBytes(join(path, name)), 0);
}

/** What is at a path, as an approval card binds it (see `subjectOf`). */
export interface Subject {
  readonly kind: 'missing' | 'file' | 'dir' | 'link' | 'other';
  /** A file's size in bytes. */
  readonly bytes?: number;
  /** A folder's entries below it, counted up to SUBJECT_MAX_ENTRIES (more is `over`). */
  readonly entries?: number;
  readonly over?: boolean;
  /** Identity and state: inode, size and change time of the path and of everything below it. */
  readonly fingerprint: string;
}

export const SUBJECT_MAX_ENTRIES = 10_000;

/**
 * What is at `path` now, cheaply: its own inode, size and times, and for a folder the same of
 * every entry below it (names included), up to SUBJECT_MAX_ENTRIES. No contents are read: a
 * different thing put at the path (a folder where a file was: red team, session 32) or a change
 * inside it gives another fingerprint. Links are not followed.
 */
export function subjectOf(path: string): Subject {
  const hash = createHash('sha256');
  const seen = { entries: 0, over: false };
  const note = (p: string, rel: string): { readonly dir: boolean; readonly size: number } | undefined => {
    const stat = lstatSync(p, { bigint: true, throwIfNoEntry: false });
    hash.update(stat === undefined ? `${rel}\0missing\0` : `${rel}\0${String(stat.dev)}:${String(stat.ino)}:${String(stat.mode)}:${String(stat.size)}:${String(stat.mtimeNs)}:${String(stat.ctimeNs)}\0`);
    return stat === undefined ? undefined : { dir: stat.isDirectory(), size: Number(stat.size) };
  };
  const walk = (p: string, rel: string): void => {
    for (const name of readdirSync(p).sort()) {
      if (seen.entries >= SUBJECT_MAX_ENTRIES) {
        seen.over = true;
        return;
      }
      seen.entries += 1;
      const child = join(p, name);
      if (note(child, `${rel}/${name}`)?.dir === true) walk(child, `${rel}/${name}`);
    }
  };
  const kind = probe(path);
  const top = note(path, '.');
  if (kind === 'dir') walk(path, '.');
  const fingerprint = `sha256:${hash.digest('hex')}`;
  if (kind === 'file') return { kind, bytes: top?.size ?? 0, fingerprint };
  if (kind === 'dir') return { kind, entries: seen.entries, ...(seen.over ? { over: true } : {}), fingerprint };
  return { kind, fingerprint };
}

/** What a symbolic link at `path` points to (undefined when it is not a link). */
export function linkTargetOf(path: string): string | undefined {
  return probe(path) === 'link' ? readlinkSync(path) : undefined;
}

/**
 * Copies a file or a whole tree for undo, links kept as links, and gives up (removing what it
 * copied) past `limits`: keeping a copy must never cost more than the change it guards. Both the
 * count and the copy give way to the event loop between short stretches (pacer.ts): keeping a
 * 2,000-file folder before an agent's `rm -r` had held every other agent's answer for 0.8 s on
 * this VM (session 35). The copy is done here, entry by entry, rather than by fs.promises.cp,
 * which took half as long again for the same folder.
 */
export async function copyTreeBounded(from: string, to: string, limits: { readonly entries: number; readonly bytes: number }, pacer: { breathe(): Promise<void> } = new Pacer()): Promise<boolean> {
  // Copied from the folder that holds it as it is now, pinned: a folder above swapped for a link
  // keeps nothing from where the link leads.
  const parent = pinParent(from);
  try {
    const source = `${parent.prefix}/${basename(from)}`;
    // Every entry, parents before their children, and its lstat: what is copied is what was counted.
    const plan: { readonly rel: string; readonly stat: Stats }[] = [];
    let bytes = 0;
    for (const stack = ['']; stack.length > 0; ) {
      await pacer.breathe();
      const rel = stack.pop() ?? '';
      const stat = lstatSync(rel === '' ? source : `${source}/${rel}`);
      plan.push({ rel, stat });
      bytes += stat.isFile() ? stat.size : 0;
      if (plan.length > limits.entries || bytes > limits.bytes) return false;
      if (stat.isDirectory()) for (const name of readdirSync(rel === '' ? source : `${source}/${rel}`)) stack.push(rel === '' ? name : `${rel}/${name}`);
    }
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    try {
      for (const { rel, stat } of plan) {
        await pacer.breathe();
        copyEntry(rel === '' ? source : `${source}/${rel}`, rel === '' ? to : `${to}/${rel}`, { stat, real: rel === '' ? from : `${from}/${rel}` });
      }
      // A folder's own mode last, once its entries are in (a read-only folder is filled first).
      for (const { rel, stat } of plan.reverse()) if (stat.isDirectory()) chmodSync(rel === '' ? to : `${to}/${rel}`, stat.mode & 0o7777);
    } catch (e) {
      rmSync(to, { recursive: true, force: true });
      throw e;
    }
    return true;
  } finally {
    parent.close();
  }
}

/**
 * One entry of a copy kept for undo: a file with its mode and times, a link as the link, a folder
 * (its mode set after). Each must still be the very entry counted (device, inode, and a file's
 * size): the copy gives way to others between stretches, and a folder on the way swapped for a
 * link meanwhile would otherwise copy, into what an undo puts back, a file from wherever the link
 * leads, or a file grown since it was counted would pass the copy's limits. A file is opened
 * without following links, must be the very path kept (`real`, checked on the descriptor where the
 * host can tell: a link swapped in while the entries were counted, then swapped back, is caught
 * here too), and is copied from that descriptor, never by its path again.
 */
function copyEntry(from: string, to: string, entry: { readonly stat: Stats; readonly real: string }): void {
  const planned = entry.stat;
  const changed = (): FileOpError => new FileOpError('PATH_CHANGED', `\`${entry.real}\` changed while it was being kept for undo`);
  if (planned.isFile()) {
    let fd: number;
    try {
      fd = openSync(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      throw changed();
    }
    try {
      const now = fstatSync(fd);
      if (now.dev !== planned.dev || now.ino !== planned.ino || now.size !== planned.size) throw changed();
      if (OPENED_PATH_CHECKED && readlinkSync(`/proc/self/fd/${String(fd)}`) !== entry.real) throw changed();
      copyFileSync(OPENED_PATH_CHECKED ? `/proc/self/fd/${String(fd)}` : from, to, constants.COPYFILE_EXCL);
    } finally {
      closeSync(fd);
    }
    chmodSync(to, planned.mode & 0o7777);
    utimesSync(to, planned.atime, planned.mtime);
    return;
  }
  const now = lstatSync(from, { throwIfNoEntry: false });
  if (now === undefined || now.dev !== planned.dev || now.ino !== planned.ino) throw changed();
  if (planned.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else if (planned.isDirectory()) mkdirSync(to, { mode: 0o700 });
  else throw new FileOpError('FS_NOT_A_FILE', `\`${entry.real}\` is neither a file, a folder nor a link, so it cannot be kept`);
}

/**
 * A folder and the missing folders above it, with the default permissions (as `mkdir -p`), each
 * made inside its parent as pinned (pinParent): a folder on the way swapped for a link makes
 * nothing where the link leads, and is refused.
 */
export function makeDirs(path: string): void {
  const missing: string[] = [];
  let at = path;
  while (probe(at) === 'missing') {
    const up = dirname(at);
    if (up === at) break;
    missing.unshift(basename(at));
    at = up;
  }
  // Callers pass resolved paths (an action's real path, ORACLE's own folders that exist): the
  // folder found first must be a plain one, not a link, or nothing is made.
  for (const name of missing) {
    const child = join(at, name);
    const parent = pinParent(child);
    try {
      mkdirSync(`${parent.prefix}/${name}`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      parent.close();
    }
    at = child;
  }
  if (probe(path) !== 'dir') throw new FileOpError('PATH_CHANGED', `\`${path}\` is not a plain folder now`);
}

/** Puts back what undo kept: a copied file or tree moved into place, or a link made again (in its pinned parent). */
export function restoreKept(path: string, kept: { readonly copy: string } | { readonly link: string }): void {
  if ('copy' in kept) {
    moveTree(kept.copy, path);
    return;
  }
  makeDirs(dirname(path));
  const parent = pinParent(path);
  try {
    symlinkSync(kept.link, `${parent.prefix}/${basename(path)}`);
  } finally {
    parent.close();
  }
}
