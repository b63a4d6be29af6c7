import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, cpSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, fstatSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * File operations for agents, used only by the toolhost (SPEC §6 "fs"). The path given is the
 * canonical one the gate decided on and the toolhost re-resolved (step 12); these functions still
 * refuse to follow a link on the final component.
 */

export class FileOpError extends Error {
  constructor(
    readonly code: 'FS_NOT_A_FILE' | 'FS_TOO_LARGE' | 'FS_IO',
    message: string,
  ) {
    super(message);
  }
}

export const sha256Bytes = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
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

/** Reads a regular file through O_NOFOLLOW, refusing more than `max` bytes. */
export function readNoFollow(path: string, max: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    throw new FileOpError('FS_NOT_A_FILE', `cannot open \`${path}\`: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
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

export function listNoFollow(path: string): { name: string; type: 'file' | 'dir' | 'link' | 'other' }[] {
  if (probe(path) !== 'dir') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is not a directory`);
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
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const now = probe(path);
  if (now !== 'missing' && now !== 'file') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is a ${now}; only regular files are written`);
  const tmp = join(dir, `.${basename(path)}.oracle-${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, now === 'file' ? lstatSync(path).mode & 0o777 : mode);
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
  renameSync(tmp, path);
  syncDir(dir);
  return sha256Bytes(content);
}

/** Removes a file (used by undo of a write that created it). */
export function removeFile(path: string): void {
  if (probe(path) !== 'file') throw new FileOpError('FS_NOT_A_FILE', `\`${path}\` is not a regular file`);
  rmSync(path);
  syncDir(dirname(path));
}

/** Moves `from` to `to` (a trash or back out of it), across file systems when it must. */
export function moveTree(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  try {
    renameSync(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
    rmSync(from, { recursive: true });
  }
  syncDir(dirname(from));
  syncDir(dirname(to));
}

/** A digest of a file or a whole tree (names, types, link targets, contents), to see if it changed. */
export function treeDigest(path: string): string {
  const hash = createHash('sha256');
  const walk = (p: string, rel: string): void => {
    const kind = probe(p);
    hash.update(`${rel}\0${kind}\0`);
    if (kind === 'file') hash.update(readNoFollow(p, Number.MAX_SAFE_INTEGER));
    if (kind === 'dir') for (const name of readdirSync(p).sort()) walk(join(p, name), `${rel}/${name}`);
  };
  walk(path, '.');
  return `sha256:${hash.digest('hex')}`;
}
