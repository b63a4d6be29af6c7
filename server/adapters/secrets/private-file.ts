import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoOf, SecretStoreError } from './errors.js';

/**
 * Private files for secret material (SPEC §6 "a 0600 file store under the home"): a 0700
 * directory owned by the current user holding 0600 files owned by the current user. Anything
 * else is refused, not repaired: a widened mode or a foreign owner means someone else may have
 * read or planted the file, and only the user can judge that (fail closed, SPEC §1.2).
 *
 * On Windows the POSIX mode and uid do not exist (`process.getuid` is undefined); there the
 * profile's ACLs protect the file and only the symlink and file-type checks apply.
 */

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** A secrets file is small; a huge one is not ours. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const NOFOLLOW = constants.O_NOFOLLOW;
const POSIX = typeof process.getuid === 'function';

function checkOwnerAndMode(stats: Stats, allowed: number, path: string): void {
  if (!POSIX) return;
  const uid = process.getuid?.();
  if (stats.uid !== uid) throw new SecretStoreError('wrong_owner', `\`${path}\` is owned by uid ${stats.uid}, not by the current user (uid ${uid ?? '?'})`);
  const mode = stats.mode & 0o777;
  if ((mode & ~allowed) !== 0) {
    throw new SecretStoreError('insecure_permissions', `\`${path}\` has mode ${mode.toString(8).padStart(4, '0')}; it must be ${allowed.toString(8).padStart(4, '0')} or narrower`);
  }
}

/**
 * Checks the directory; with `create`, makes it (0700) first. Returns false when it does not
 * exist and was not to be created.
 */
export async function checkPrivateDir(dir: string, create: boolean): Promise<boolean> {
  if (create) {
    try {
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
    } catch (e) {
      throw new SecretStoreError('io_failed', `cannot create \`${dir}\`: ${errnoOf(e)}`);
    }
  }
  let stats: Stats;
  try {
    stats = await lstat(dir);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return false;
    throw new SecretStoreError('io_failed', `cannot inspect \`${dir}\`: ${errnoOf(e)}`);
  }
  if (stats.isSymbolicLink()) throw new SecretStoreError('unsafe_path', `\`${dir}\` is a symbolic link; the secret store does not follow links`);
  if (!stats.isDirectory()) throw new SecretStoreError('unsafe_path', `\`${dir}\` is not a directory`);
  checkOwnerAndMode(stats, DIR_MODE, dir);
  return true;
}

/**
 * Reads a private file; undefined when it does not exist. Opened with O_NOFOLLOW and checked on
 * the open descriptor, so a link or a swap between check and read is refused, not followed.
 */
export async function readPrivateFile(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | NOFOLLOW);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new SecretStoreError('unsafe_path', `\`${path}\` is a symbolic link; the secret store does not follow links`);
    throw new SecretStoreError('io_failed', `cannot open \`${path}\`: ${code}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new SecretStoreError('unsafe_path', `\`${path}\` is not a regular file`);
    checkOwnerAndMode(stats, FILE_MODE, path);
    if (stats.size > MAX_FILE_BYTES) throw new SecretStoreError('corrupt_store', `\`${path}\` is larger than ${MAX_FILE_BYTES} bytes`);
    return await handle.readFile({ encoding: 'utf8' });
  } catch (e) {
    if (e instanceof SecretStoreError) throw e;
    throw new SecretStoreError('io_failed', `cannot read \`${path}\`: ${errnoOf(e)}`);
  } finally {
    await handle.close();
  }
}

/** fsync of the directory makes the rename itself durable (SPEC §6 exact commit, same recipe). */
async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync there
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | NOFOLLOW);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `dir/name` atomically: a fresh 0600 temp file in the same directory (O_EXCL, never
 * an existing file), written and fsynced, renamed over the target, then the directory fsynced.
 * A reader sees the old file or the new one, never a mix; a failure removes the temp file.
 */
export async function writePrivateFile(dir: string, name: string, content: string): Promise<void> {
  const target = join(dir, name);
  const temp = join(dir, `.${name}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, FILE_MODE);
    try {
      await handle.chmod(FILE_MODE); // the umask can only narrow the mode; this pins it exactly
      await handle.writeFile(content, { encoding: 'utf8' });
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await syncDir(dir);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw new SecretStoreError('io_failed', `cannot write \`${target}\`: ${errnoOf(e)}`);
  }
}
