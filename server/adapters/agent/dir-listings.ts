import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { direntKind, STOPPED, type TreeEntry } from './tree-walk.js';

/**
 * Folders' entries, each with a note the caller computes once (what the policy says of it), kept
 * while the folder is unchanged: a job's masks and its planted-name check walk the whole tree
 * three times per exec.run, and judging 60,000 entries each time had held the gate's thread for
 * 0.45 s per job (session 34; `npm run bench` measures it: "exec.run sh -c : in a 60000-file
 * project", beside the same job in a 10-file one).
 *
 * A folder's entries change only with its change time (ctime): creating, removing, renaming or
 * linking a name in it sets it, and on Linux no process can set it back (utimes sets only atime
 * and mtime; ctime follows the clock, which only root sets). Windows lets any process that may
 * write a folder's attributes set its change time, and macOS's setattrlist names it too: there
 * nothing is kept (KEEPS_ON_HOST), every walk reads every folder. A kept listing is used only
 * while the folder's device, inode, ctime and mtime are all as they were when it was read, and
 * only a folder that had not changed for RACY_MS before it was read is kept at all (git's "racily
 * clean" rule): a change in the same clock tick as the read would leave the times equal, and file
 * systems with coarse times (FAT's 2 s) round them down. That rule needs a clock that only moves
 * forward: one that moved back drops everything kept.
 */
export class DirListings<T> {
  private readonly kept = new Map<string, Kept<T>>();
  /** Bytes held across all kept listings, roughly (quiet files are counted by number, not held). */
  private held = 0;
  private lastRead = Number.NEGATIVE_INFINITY;
  /** Folders looked at and entries judged so far: what a walk measures its pauses by. */
  work = 0;

  /**
   * `quiet` says of a note that a walk need not be shown that file (a file the policy says nothing
   * of): kept listings then cost a walk their folders, not their 60,000 files. `capacity` is in
   * bytes (heldBytes); `keeps: false` reads every folder every time.
   */
  constructor(
    private readonly note: (entry: TreeEntry) => T,
    private readonly options: { readonly quiet?: (note: T) => boolean; readonly capacity?: number; readonly clock?: () => number; readonly keeps?: boolean } = {},
  ) {}

  /**
   * The folder's entries with their notes, or why it cannot be read (never kept). A folder with
   * more than `room` entries is not judged: the caller's walk ends there anyway.
   */
  list(dir: string, room = Number.POSITIVE_INFINITY): Listing<T> {
    const started = (this.options.clock ?? Date.now)();
    if (started < this.lastRead) this.clear();
    this.lastRead = started;
    this.work += 1;
    let stat;
    try {
      stat = lstatSync(dir, { bigint: true });
    } catch (e) {
      return { error: (e as NodeJS.ErrnoException).code ?? 'error' };
    }
    if (!stat.isDirectory()) return { error: 'ENOTDIR' };
    const stamp = `${String(stat.dev)}:${String(stat.ino)}:${String(stat.ctimeNs)}:${String(stat.mtimeNs)}`;
    const kept = this.kept.get(dir);
    if (kept?.stamp === stamp) return kept.listing.count > room ? { tooMany: kept.listing.count } : kept.listing;
    let dirents: Dirent[];
    try {
      dirents = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      return { error: (e as NodeJS.ErrnoException).code ?? 'error' };
    }
    if (dirents.length > room) return { tooMany: dirents.length };
    this.work += dirents.length;
    const entries = dirents.map((d): Listed<T> => {
      const entry: TreeEntry = { path: join(dir, d.name), name: d.name, kind: direntKind(d) };
      return { ...entry, note: this.note(entry) };
    });
    const { quiet } = this.options;
    const listing = { count: entries.length, shown: quiet === undefined ? entries : entries.filter((e) => e.kind !== 'file' || !quiet(e.note)) };
    if (kept !== undefined) this.forget(dir, kept);
    const newest = Number((stat.ctimeNs > stat.mtimeNs ? stat.ctimeNs : stat.mtimeNs) / 1_000_000n);
    if ((this.options.keeps ?? KEEPS_ON_HOST) && newest < started - RACY_MS) this.keep(dir, { stamp, listing, bytes: heldBytes(dir, listing) });
    return listing;
  }

  private keep(dir: string, kept: Kept<T>): void {
    // Past the capacity everything kept is dropped at once (the next walks read again): a bound
    // on memory (a job can make many long names), not a cache policy worth tuning.
    if (this.held + kept.bytes > (this.options.capacity ?? DEFAULT_CAPACITY)) this.clear();
    this.kept.set(dir, kept);
    this.held += kept.bytes;
  }

  private forget(dir: string, kept: Kept<T>): void {
    this.kept.delete(dir);
    this.held -= kept.bytes;
  }

  private clear(): void {
    this.kept.clear();
    this.held = 0;
  }
}

export type Listed<T> = TreeEntry & { readonly note: T };
/**
 * How many entries a folder has, and those a walk is shown: every folder, link and special file,
 * and each file whose note is not quiet (only these are held: a kept 60,000-file tree costs its
 * folders and flagged files, not 60,000 objects).
 */
export type Entries<T> = { readonly count: number; readonly shown: readonly Listed<T>[] };
export type Listing<T> = Entries<T> | { readonly error: string } | { readonly tooMany: number };
type Kept<T> = { readonly stamp: string; readonly listing: Entries<T>; readonly bytes: number };

/** A folder changed this recently (ms) is read every time, never kept. */
export const RACY_MS = 3000;
/** Bytes held across all folders at most, roughly: 16 MiB (about 40,000 folders of 100-character paths). */
const DEFAULT_CAPACITY = 16 * 1024 * 1024;
/** Where no process but root can set a folder's change time (see DirListings). */
const KEEPS_ON_HOST = process.platform === 'linux';

/** What a kept listing holds, roughly: its path and stamp, and each shown entry's path, name and note. */
export function heldBytes(dir: string, listing: Entries<unknown>): number {
  let bytes = 200 + 2 * dir.length;
  for (const entry of listing.shown) bytes += 200 + 2 * (entry.path.length + entry.name.length);
  return bytes;
}

/** Work (DirListings.work) between two pauses of a walk: about 4 ms of judging on this VM, as pacer.ts's slices. */
const PAUSE_EVERY = 800;

/**
 * Walks a tree through `listings`, links and special files included (never followed), showing
 * `visit` what the listings show (every entry but quiet files). `visit` answers whether to
 * descend into a folder; every entry counts toward `limit`. An unreadable folder ends the walk as
 * incomplete, or is passed over with `unreadable: 'skip'` (never the root: a walk that saw nothing
 * is not complete); past `limit` entries the walk is incomplete, as it is before the next folder
 * once `stop()` says so. It pauses (setImmediate) after
 * each PAUSE_EVERY of work: a first walk of a 100,000-entry tree judges for 0.6 s, which would
 * otherwise hold every other agent's answer; a walk of kept listings seldom pauses at all.
 */
export async function walkListings<T>(
  listings: DirListings<T>,
  root: string,
  visit: (entry: Listed<T>) => boolean,
  options: { readonly limit: number; readonly unreadable: 'skip' | 'incomplete'; readonly stop?: () => boolean },
): Promise<{ readonly complete: true } | { readonly incomplete: string }> {
  const stack = [root];
  let seen = 0;
  let rested = listings.work;
  while (stack.length > 0) {
    if (options.stop?.() === true) return { incomplete: STOPPED };
    if (listings.work - rested >= PAUSE_EVERY) {
      await new Promise((resolve) => setImmediate(resolve));
      rested = listings.work;
    }
    const dir = stack.pop() ?? root;
    const listing = listings.list(dir, options.limit - seen);
    if ('tooMany' in listing) return { incomplete: `there are more than ${String(options.limit)} entries below \`${root}\`` };
    if ('error' in listing) {
      if (options.unreadable === 'skip' && dir !== root) continue;
      return { incomplete: `\`${dir}\` cannot be read (${listing.error})` };
    }
    seen += listing.count;
    for (const entry of listing.shown) if (visit(entry) && entry.kind === 'dir') stack.push(entry.path);
  }
  return { complete: true };
}
