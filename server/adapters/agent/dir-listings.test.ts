import { mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../../../tests/fixtures/temp-tree.js';
import { DirListings, heldBytes, RACY_MS, walkListings, type Listing } from './dir-listings.js';

// The folders' change times are set by the kernel from the real clock; the listings' clock is
// moved forward instead, so a folder "changed long ago" needs no sleeping.
const later = (): number => Date.now() + RACY_MS + 1000;

// Changes in one kernel clock tick share a change time; the listings' own rule (RACY_MS) covers
// that, which the moved clock above skips, so each change here waits out the tick.
const tick = (): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);

const names = (listing: Listing<unknown>): string[] => ('shown' in listing ? listing.shown.map((e) => e.name).sort() : []);

describe('DirListings', () => {
  let tree: TempTree;
  afterEach(() => {
    tree.dispose();
  });

  const counted = (clock: () => number, capacity?: number): { listings: DirListings<string>; judged: string[] } => {
    const judged: string[] = [];
    const listings = new DirListings<string>(
      (entry) => {
        judged.push(entry.path);
        return `${entry.kind}:${entry.name}`;
      },
      { clock, ...(capacity === undefined ? {} : { capacity }) },
    );
    return { listings, judged };
  };

  it('judges an unchanged folder once, and again after a name is created, renamed or removed in it', () => {
    tree = tempTree();
    const dir = tree.dir('p');
    tree.file('p/a.txt');
    tree.dir('p/sub');
    const { listings, judged } = counted(later);
    tick();
    const first = listings.list(dir);
    expect('shown' in first && first.count === 2 && [...first.shown].sort((x, y) => (x.name < y.name ? -1 : 1))).toEqual([
      { path: join(dir, 'a.txt'), name: 'a.txt', kind: 'file', note: 'file:a.txt' },
      { path: join(dir, 'sub'), name: 'sub', kind: 'dir', note: 'dir:sub' },
    ]);
    expect(names(listings.list(dir))).toEqual(['a.txt', 'sub']);
    expect(judged).toHaveLength(2);

    writeFileSync(join(dir, '.env'), 'SECRET=1');
    expect(names(listings.list(dir))).toEqual(['.env', 'a.txt', 'sub']);
    tick();
    renameSync(join(dir, '.env'), join(dir, 'b.env'));
    expect(names(listings.list(dir))).toEqual(['a.txt', 'b.env', 'sub']);
    tick();
    rmSync(join(dir, 'a.txt'));
    expect(names(listings.list(dir))).toEqual(['b.env', 'sub']);
    expect(judged.length).toBeGreaterThanOrEqual(2 + 3 + 3 + 2);
  });

  it('re-reads a folder whose times were set back, and a folder put in place of another', () => {
    tree = tempTree();
    const dir = tree.dir('p');
    tree.file('p/a.txt');
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(dir, old, old);
    tick();
    const { listings, judged } = counted(later);
    listings.list(dir);
    // A name planted and the folder's times set back to what they were: utimes cannot set the
    // change time, so the kept listing is not used.
    writeFileSync(join(dir, 'planted'), 'x');
    utimesSync(dir, old, old);
    expect(names(listings.list(dir))).toEqual(['a.txt', 'planted']);
    tick();

    // Another folder moved to the same path: another inode.
    mkdirSync(join(tree.root, 'q'));
    writeFileSync(join(tree.root, 'q', 'other'), 'x');
    renameSync(dir, join(tree.root, 'p-old'));
    renameSync(join(tree.root, 'q'), dir);
    expect(names(listings.list(dir))).toEqual(['other']);
    expect(judged.sort()).toEqual([join(dir, 'a.txt'), join(dir, 'a.txt'), join(dir, 'other'), join(dir, 'planted')]);
  });

  it('never keeps a folder that changed within RACY_MS before it was read', () => {
    tree = tempTree();
    const dir = tree.dir('p');
    tree.file('p/a.txt');
    const { listings, judged } = counted(Date.now);
    listings.list(dir);
    listings.list(dir);
    expect(judged).toHaveLength(2);
  });

  it('drops what it kept past its capacity, and still answers', () => {
    tree = tempTree();
    for (let i = 0; i < 3; i += 1) {
      tree.file(`p${String(i)}/a`);
      tree.file(`p${String(i)}/b`);
    }
    // Room for two of these folders, not three (each holds the same: same-length paths).
    const one = heldBytes(join(tree.root, 'p0'), { count: 2, shown: ['a', 'b'].map((n) => ({ path: join(tree.root, 'p0', n), name: n, kind: 'file' as const, note: '' })) });
    const { listings, judged } = counted(later, 2 * one + 1);
    for (let i = 0; i < 3; i += 1) listings.list(join(tree.root, `p${String(i)}`));
    // p0 and p1 were kept; p2 would pass the capacity: everything was dropped, p2 kept.
    listings.list(join(tree.root, 'p2'));
    expect(judged).toHaveLength(6);
    listings.list(join(tree.root, 'p1'));
    expect(judged).toHaveLength(8);
  });

  it('keeps nothing where told not to (a host where a process can set a folder\'s change time)', () => {
    tree = tempTree();
    const dir = tree.dir('p');
    tree.file('p/a.txt');
    const judged: string[] = [];
    const listings = new DirListings<string>((entry) => judged.push(entry.path).toString(), { clock: later, keeps: false });
    listings.list(dir);
    listings.list(dir);
    expect(judged).toHaveLength(2);
  });

  it('drops everything kept when the clock moves back', () => {
    tree = tempTree();
    const dir = tree.dir('p');
    tree.file('p/a.txt');
    let now = later();
    const { listings, judged } = counted(() => now);
    listings.list(dir);
    listings.list(dir);
    expect(judged).toHaveLength(1);
    now -= 1;
    listings.list(dir);
    expect(judged).toHaveLength(2);
  });

  it('says how many entries a folder has past the room left, kept or not', () => {
    tree = tempTree();
    for (let i = 0; i < 4; i += 1) tree.file(`p/f${String(i)}`);
    const { listings } = counted(later);
    expect(listings.list(join(tree.root, 'p'), 3)).toEqual({ tooMany: 4 });
    expect(listings.list(join(tree.root, 'p'))).toMatchObject({ count: 4 });
    expect(listings.list(join(tree.root, 'p'), 3)).toEqual({ tooMany: 4 });
  });

  it('reports a missing folder or a file as an error and keeps nothing', () => {
    tree = tempTree();
    const file = tree.file('a.txt');
    const { listings } = counted(later);
    expect(listings.list(join(tree.root, 'gone'))).toEqual({ error: 'ENOENT' });
    expect(listings.list(file)).toEqual({ error: 'ENOTDIR' });
  });
});

describe('walkListings', () => {
  let tree: TempTree;
  afterEach(() => {
    tree.dispose();
  });

  const judgeNothing = (): DirListings<undefined> => new DirListings<undefined>(() => undefined, { clock: later });

  it('visits every entry, links and all, descending where asked', async () => {
    tree = tempTree();
    tree.file('p/a/deep/x');
    tree.file('p/node_modules/pkg/.env');
    tree.link('p/out', '/etc');
    const seen: string[] = [];
    const walked = await walkListings(
      judgeNothing(),
      join(tree.root, 'p'),
      (entry) => {
        seen.push(`${entry.kind} ${entry.path.slice(tree.root.length + 3)}`);
        return entry.name !== 'node_modules';
      },
      { limit: 100, unreadable: 'incomplete' },
    );
    expect(walked).toEqual({ complete: true });
    expect(seen.sort()).toEqual(['dir a', 'dir a/deep', 'dir node_modules', 'file a/deep/x', 'link out']);
  });

  it('shows a walk no file whose note is quiet, and counts it toward the limit', async () => {
    tree = tempTree();
    tree.file('p/d/plain.ts');
    tree.file('p/d/.env');
    tree.link('p/d/link.ts', 'plain.ts');
    const listings = new DirListings<boolean>((entry) => entry.name === '.env', { quiet: (flagged) => !flagged, clock: later });
    const seen: string[] = [];
    const walk = (limit: number) => walkListings(listings, join(tree.root, 'p'), (entry) => seen.push(entry.name) > 0, { limit, unreadable: 'incomplete' });
    expect(await walk(4)).toEqual({ complete: true });
    expect(seen.sort()).toEqual(['.env', 'd', 'link.ts']);
    expect(await walk(3)).toMatchObject({ incomplete: expect.stringMatching(/more than 3 entries/u) as unknown });
  });

  it('lets the gate answer others while it judges a large tree, and not while it walks kept listings', async () => {
    tree = tempTree();
    for (let d = 0; d < 3; d += 1) for (let f = 0; f < 1500; f += 1) tree.file(`p/d${String(d)}/f${String(f)}`);
    const listings = new DirListings<undefined>(() => undefined, { clock: later });
    const walk = async (): Promise<boolean[]> => {
      let answered = false;
      setImmediate(() => {
        answered = true;
      });
      const seen: boolean[] = [];
      await walkListings(listings, join(tree.root, 'p'), (entry) => seen.push(answered) > 0 && entry.kind === 'dir', { limit: 10_000, unreadable: 'incomplete' });
      return seen;
    };
    tick();
    const first = await walk();
    expect(first).toHaveLength(4503);
    expect(first[0]).toBe(false);
    expect(first.at(-1)).toBe(true);
    expect(await walk()).not.toContain(true);
  });

  it('ends incomplete past the limit', async () => {
    tree = tempTree();
    for (let i = 0; i < 3; i += 1) tree.file(`p/d/f${String(i)}`);
    const walked = await walkListings(judgeNothing(), join(tree.root, 'p'), () => true, { limit: 3, unreadable: 'incomplete' });
    expect(walked).toEqual({ incomplete: `there are more than 3 entries below \`${join(tree.root, 'p')}\`` });
    expect(await walkListings(judgeNothing(), join(tree.root, 'p'), () => true, { limit: 4, unreadable: 'incomplete' })).toEqual({ complete: true });
  });

  it('passes over an unreadable folder only when told to, and never over an unreadable root', async () => {
    tree = tempTree();
    const root = join(tree.root, 'p');
    // The folder is removed between its parent's listing and its own read (root reads through
    // mode bits, so a folder gone is the unreadable one here).
    const vanishing = (entry: { name: string; path: string }): boolean => {
      if (entry.name === 'vanishing') rmSync(entry.path, { recursive: true });
      return true;
    };
    tree.file('p/vanishing/x');
    expect(await walkListings(judgeNothing(), root, vanishing, { limit: 100, unreadable: 'skip' })).toEqual({ complete: true });
    tree.file('p/vanishing/x');
    expect(await walkListings(judgeNothing(), root, vanishing, { limit: 100, unreadable: 'incomplete' })).toEqual({ incomplete: `\`${join(root, 'vanishing')}\` cannot be read (ENOENT)` });
    expect(await walkListings(judgeNothing(), join(tree.root, 'gone'), () => true, { limit: 100, unreadable: 'skip' })).toEqual({ incomplete: `\`${join(tree.root, 'gone')}\` cannot be read (ENOENT)` });
  });
});
