import { readdirSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Pacer } from './pacer.js';

export type WalkEntry = { readonly path: string; readonly name: string; readonly kind: 'dir' | 'file' };

/**
 * Walks a tree's files and folders without following links (links and special files are passed
 * over, and so are folders that cannot be read: the caller's reader could not read them either),
 * asking `visit` about each: `'descend'` goes into a folder, `'skip'` does not. Past `limit`
 * entries it stops and says so, and it stops when `stop()` says to (a HALT, a caller gone). It
 * gives way to the event loop between stretches (pacer.ts): `visit` may do real work per entry
 * (fs.search reads each file), and a search through 20,000 files held every other agent's answer
 * for 0.6 s when this walk ran in one go (session 35).
 */
export async function walkTree(root: string, visit: (entry: WalkEntry) => 'skip' | 'descend', limit: number, options: { readonly stop?: () => boolean } = {}): Promise<{ readonly complete: boolean }> {
  const pacer = new Pacer();
  const stack = [root];
  let seen = 0;
  while (stack.length > 0) {
    const dir = stack.pop();
    if (dir === undefined) break;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of entries) {
      if (pacer.due) {
        await pacer.breathe();
        if (options.stop?.() === true) return { complete: false };
      }
      seen += 1;
      if (seen > limit) return { complete: false };
      if (d.isSymbolicLink() || !(d.isDirectory() || d.isFile())) continue;
      const entry: WalkEntry = { path: join(dir, d.name), name: d.name, kind: d.isDirectory() ? 'dir' : 'file' };
      if (visit(entry) === 'descend' && entry.kind === 'dir') stack.push(entry.path);
    }
  }
  return { complete: true };
}

export type ReachedEntry = { readonly path: string; readonly name: string; readonly kind: 'dir' | 'file' | 'link' };

/** Folders read at once by the asynchronous walk: each read is a hop to libuv's pool, so one at a time would leave it idle. */
const PARALLEL_READS = 8;

/**
 * The same walk, asynchronous (it runs on the hook's path, where a sync walk of a large tree
 * would hold every other agent's answer), reading several folders at once and telling links
 * apart instead of skipping them: `visit` may stop the walk (`'stop'`). Unreadable folders are
 * passed over, as a search run by the same user would pass over them. Answers whether it saw
 * every entry.
 */
export async function walkTreeAsync(root: string, visit: (entry: ReachedEntry) => 'skip' | 'descend' | 'stop', limit: number): Promise<{ readonly complete: boolean }> {
  const pending = [root];
  let seen = 0;
  let ended: boolean | undefined;
  const take = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      if (ended !== undefined) return;
      seen += 1;
      if (seen > limit) {
        ended = false;
        return;
      }
      const kind = d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : undefined;
      if (kind === undefined) continue;
      const entry: ReachedEntry = { path: join(dir, d.name), name: d.name, kind };
      const verdict = visit(entry);
      if (verdict === 'stop') ended = true;
      else if (verdict === 'descend' && kind === 'dir') pending.push(entry.path);
    }
  };
  let failure: Error | undefined;
  await new Promise<void>((resolve) => {
    let active = 0;
    const pump = (): void => {
      while (ended === undefined && failure === undefined && active < PARALLEL_READS) {
        const dir = pending.pop();
        if (dir === undefined) break;
        active += 1;
        take(dir)
          .catch((e: unknown) => {
            failure ??= e instanceof Error ? e : new Error(String(e));
          })
          .finally(() => {
            active -= 1;
            pump();
          });
      }
      if (active === 0) resolve();
    };
    pump();
  });
  if (failure !== undefined) throw failure;
  return { complete: ended ?? true };
}

/** Why a walk told to stop (HALT, its caller gone) is not whole. */
export const STOPPED = 'the walk was stopped before it saw the whole folder (HALT, or the caller went away)';

export type TreeEntry = { readonly path: string; readonly name: string; readonly kind: 'dir' | 'file' | 'link' | 'other' };

/** What a folder entry is, links and special files told apart (never followed). */
export function direntKind(d: Dirent): TreeEntry['kind'] {
  return d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other';
}

/**
 * Every entry of a tree, links and special files included (never followed), for a caller that
 * must know all of it: `visit` may stop the walk with an answer; `descend` may pass over a
 * folder's contents. A folder that cannot be read, or more than `limit` entries, ends it with
 * `incomplete` saying why; the caller fails closed. It gives way to the event loop between
 * stretches (pacer.ts), and ends incomplete at such a pause once `stop()` says so.
 */
export async function walkEveryEntry<T>(
  root: string,
  visit: (entry: TreeEntry) => T | undefined,
  options: { readonly limit: number; readonly descend?: (entry: TreeEntry) => boolean; readonly stop?: () => boolean },
): Promise<{ readonly stopped: T } | { readonly complete: true } | { readonly incomplete: string }> {
  const { limit } = options;
  const pacer = new Pacer();
  const stack = [root];
  let seen = 0;
  while (stack.length > 0) {
    const dir = stack.pop() ?? root;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      return { incomplete: `\`${dir}\` cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    for (const d of entries) {
      if (pacer.due) {
        await pacer.breathe();
        if (options.stop?.() === true) return { incomplete: STOPPED };
      }
      seen += 1;
      if (seen > limit) return { incomplete: `there are more than ${String(limit)} entries below \`${root}\`` };
      const kind = direntKind(d);
      const entry: TreeEntry = { path: join(dir, d.name), name: d.name, kind };
      const answer = visit(entry);
      if (answer !== undefined) return { stopped: answer };
      if (kind === 'dir' && (options.descend?.(entry) ?? true)) stack.push(entry.path);
    }
  }
  return { complete: true };
}
