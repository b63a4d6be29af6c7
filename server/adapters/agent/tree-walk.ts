import { readdirSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export type WalkEntry = { readonly path: string; readonly name: string; readonly kind: 'dir' | 'file' };

/**
 * Walks a tree without following links, asking `visit` about each entry: `'mask'` records it and
 * does not descend, `'skip'` neither records nor descends, `'descend'` goes on. Stops at `limit`
 * entries and says so, so the caller can fail closed instead of half-masking a huge tree. With
 * `firstMask`, it ends at the first masked entry (the caller only asks whether there is one).
 */
export function walkTree(root: string, visit: (entry: WalkEntry) => 'mask' | 'skip' | 'descend', limit: number, firstMask = false): { masks: WalkEntry[]; complete: boolean } {
  const masks: WalkEntry[] = [];
  const stack = [root];
  let seen = 0;
  while (stack.length > 0) {
    const dir = stack.pop();
    if (dir === undefined) break;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable: the child cannot read it either
    }
    for (const d of entries) {
      seen += 1;
      if (seen > limit) return { masks, complete: false };
      if (d.isSymbolicLink() || !(d.isDirectory() || d.isFile())) continue;
      const entry: WalkEntry = { path: join(dir, d.name), name: d.name, kind: d.isDirectory() ? 'dir' : 'file' };
      const verdict = visit(entry);
      if (verdict === 'mask') {
        masks.push(entry);
        if (firstMask) return { masks, complete: true };
      } else if (verdict === 'descend' && entry.kind === 'dir') stack.push(entry.path);
    }
  }
  return { masks, complete: true };
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

export type TreeEntry = { readonly path: string; readonly name: string; readonly kind: 'dir' | 'file' | 'link' | 'other' };

/** What a folder entry is, links and special files told apart (never followed). */
export function direntKind(d: Dirent): TreeEntry['kind'] {
  return d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other';
}

/**
 * Every entry of a tree, links and special files included (never followed), for a caller that
 * must know all of it: `visit` may stop the walk with an answer; `descend` may pass over a
 * folder's contents. A folder that cannot be read, or
 * more than `limit` entries, ends it with `incomplete` saying why; the caller fails closed.
 */
export function walkEveryEntry<T>(root: string, visit: (entry: TreeEntry) => T | undefined, limit: number, descend: (entry: TreeEntry) => boolean = () => true): { readonly stopped: T } | { readonly complete: true } | { readonly incomplete: string } {
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
      seen += 1;
      if (seen > limit) return { incomplete: `there are more than ${String(limit)} entries below \`${root}\`` };
      const kind = direntKind(d);
      const entry: TreeEntry = { path: join(dir, d.name), name: d.name, kind };
      const answer = visit(entry);
      if (answer !== undefined) return { stopped: answer };
      if (kind === 'dir' && descend(entry)) stack.push(entry.path);
    }
  }
  return { complete: true };
}
