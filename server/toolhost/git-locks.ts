import { join } from 'node:path';
import { removeFile, versionOf } from '../adapters/agent/files.js';
import type { LinkReader } from '../core/paths/resolve.js';
import { repositoryOf } from './git-hooks.js';

/** A lock file git left, as it was when HALT found it. */
export interface GitLock {
  readonly path: string;
  readonly version: string;
}

/** The locks one git command holds while it writes: the index, and HEAD while it moves. */
const LOCKS = ['index.lock', 'HEAD.lock'];

/**
 * The lock files of the repositories where HALT killed a git process (`git add` of a large tree):
 * killed by SIGKILL, git cannot remove them, and every later git there fails with "index.lock:
 * File exists" until someone does, which no agent may (`.git` is deny_always; fault probe,
 * session 37). Found right after the kill, each with its version.
 */
export function gitLocksIn(dirs: readonly string[], reader: LinkReader): GitLock[] {
  const found: GitLock[] = [];
  for (const dir of dirs) {
    const repo = repositoryOf(dir, reader);
    if (repo === undefined || 'unsure' in repo) continue;
    for (const name of LOCKS) {
      const path = join(repo.gitDir, name);
      const version = versionOf(path);
      if (version !== undefined && !found.some((l) => l.path === path)) found.push({ path, version });
    }
  }
  return found;
}

/**
 * At resume: each lock still exactly as HALT found it is removed (no git has run there since, or
 * it would have failed on the lock and left it so; one that was removed and taken again by a new
 * git has another version and is left alone). Answers the paths removed.
 */
export function removeLeftLocks(locks: readonly GitLock[]): string[] {
  const removed: string[] = [];
  for (const lock of locks) {
    if (versionOf(lock.path) !== lock.version) continue;
    try {
      removeFile(lock.path);
      removed.push(lock.path);
    } catch {
      // gone, or not a plain file any more: not ours to touch
    }
  }
  return removed;
}
