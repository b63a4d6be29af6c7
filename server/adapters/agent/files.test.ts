import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentText } from '../../toolhost/preview.js';
import { tempTree, type TempTree } from '../../../tests/fixtures/temp-tree.js';
import { cannotMountTmpfs, mountTmpfs, skipping, unmount } from '../../../tests/fixtures/privileges.js';
import { copyTreeBounded, listNoFollow, makeDirs, moveTree, OPENED_PATH_CHECKED, restoreKept } from './files.js';

/**
 * A path the gate decided holds no link; when a folder on it has become one since (another
 * process raced the gate between its last look and the open), what is listed or read must be
 * nothing, not the folder the link leads to (helper-15, session 27). The race itself is made
 * here by handing over a path that already goes through a link.
 */
describe.runIf(OPENED_PATH_CHECKED)('reads and listings of the very path decided', () => {
  let tree: TempTree;
  beforeAll(() => {
    tree = tempTree('oracle-files-');
    mkdirSync(`${tree.root}/outside/secretdir`, { recursive: true });
    writeFileSync(`${tree.root}/outside/secretdir/token.txt`, 'TOKEN=outside\n');
    mkdirSync(`${tree.root}/proj/d`, { recursive: true });
    writeFileSync(`${tree.root}/proj/d/f.txt`, 'mine\n');
    symlinkSync(`${tree.root}/outside`, `${tree.root}/proj/swapped`);
  });
  afterAll(() => {
    tree.dispose();
  });

  it('lists the folder opened at that path, and refuses one reached through a link', () => {
    expect(listNoFollow(`${tree.root}/proj/d`, 'exact').map((e) => e.name)).toEqual(['f.txt']);
    expect(() => listNoFollow(`${tree.root}/proj/swapped/secretdir`, 'exact')).toThrow(/resolves elsewhere/u);
    // Without the check (a job's own folder) the link is followed, as before.
    expect(listNoFollow(`${tree.root}/proj/swapped/secretdir`).map((e) => e.name)).toEqual(['token.txt']);
  });

  it('makes folders only inside the folders decided, and keeps for undo nothing from where a link leads', async () => {
    makeDirs(`${tree.root}/proj/d/new/deeper`);
    expect(statSync(`${tree.root}/proj/d/new/deeper`).isDirectory()).toBe(true);
    expect(() => { makeDirs(`${tree.root}/proj/swapped/made/deeper`); }).toThrow(/resolves to|not a plain directory/u);
    expect(existsSync(`${tree.root}/outside/made`)).toBe(false);
    await expect(copyTreeBounded(`${tree.root}/proj/swapped/secretdir`, `${tree.root}/kept/x`, { entries: 100, bytes: 1_000_000 })).rejects.toThrow(/resolves to|not a plain directory/u);
    expect(existsSync(`${tree.root}/kept/x`)).toBe(false);
    expect(await copyTreeBounded(`${tree.root}/proj/d`, `${tree.root}/kept/d`, { entries: 100, bytes: 1_000_000 })).toBe(true);
    expect(existsSync(`${tree.root}/kept/d/f.txt`)).toBe(true);
  });

  it('keeps a folder for undo off the event loop: other work runs while it is copied (session 35)', async () => {
    for (let i = 0; i < 600; i++) tree.file(`proj/many/d${String(i % 10)}/f${String(i)}.txt`, `file ${String(i)}\n`);
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    expect(await copyTreeBounded(`${tree.root}/proj/many`, `${tree.root}/kept/many`, { entries: 1000, bytes: 1_000_000 })).toBe(true);
    expect(turned, 'the event loop turned during the copy').toBe(true);
    expect(readFileSync(`${tree.root}/kept/many/d3/f123.txt`, 'utf8')).toBe('file 123\n');
    // Kept as it was: a file's mode and times, a link as the link, a read-only folder's mode.
    tree.file('proj/exact/run.sh', '#!/bin/sh\n');
    chmodSync(`${tree.root}/proj/exact/run.sh`, 0o750);
    utimesSync(`${tree.root}/proj/exact/run.sh`, new Date('2020-01-02T03:04:05Z'), new Date('2021-01-02T03:04:05Z'));
    symlinkSync('run.sh', `${tree.root}/proj/exact/again`);
    tree.file('proj/exact/locked/inside.txt', 'in\n');
    chmodSync(`${tree.root}/proj/exact/locked`, 0o555);
    expect(await copyTreeBounded(`${tree.root}/proj/exact`, `${tree.root}/kept/exact`, { entries: 100, bytes: 1_000_000 })).toBe(true);
    const run = statSync(`${tree.root}/kept/exact/run.sh`);
    expect([run.mode & 0o7777, run.mtime.toISOString()]).toEqual([0o750, '2021-01-02T03:04:05.000Z']);
    expect(readlinkSync(`${tree.root}/kept/exact/again`)).toBe('run.sh');
    expect(statSync(`${tree.root}/kept/exact/locked`).mode & 0o7777).toBe(0o555);
    expect(readFileSync(`${tree.root}/kept/exact/locked/inside.txt`, 'utf8')).toBe('in\n');
    chmodSync(`${tree.root}/proj/exact/locked`, 0o755);
    chmodSync(`${tree.root}/kept/exact/locked`, 0o755);
    // Past its limits nothing is copied.
    expect(await copyTreeBounded(`${tree.root}/proj/many`, `${tree.root}/kept/too-many`, { entries: 100, bytes: 1_000_000 })).toBe(false);
    expect(existsSync(`${tree.root}/kept/too-many`)).toBe(false);
  });

  it('keeps nothing from where a link leads when a folder inside is swapped for one while the copy gives way', async () => {
    tree.file('proj/sw/sub/notes.txt', 'mine\n');
    tree.file('outside/sub/notes.txt', 'from outside\n');
    // Three entries counted (three pauses), then the copy: the swap comes before the file is copied.
    let pauses = 0;
    const swapping = {
      breathe: (): Promise<void> => {
        pauses += 1;
        if (pauses === 6) {
          renameSync(`${tree.root}/proj/sw/sub`, `${tree.root}/proj/sw/sub-moved`);
          symlinkSync(`${tree.root}/outside/sub`, `${tree.root}/proj/sw/sub`);
        }
        return Promise.resolve();
      },
    };
    await expect(copyTreeBounded(`${tree.root}/proj/sw`, `${tree.root}/kept/sw`, { entries: 100, bytes: 1_000_000 }, swapping)).rejects.toThrow(/changed while it was being kept/u);
    expect(pauses).toBe(6);
    expect(existsSync(`${tree.root}/kept/sw`)).toBe(false);
  });

  it('keeps nothing from outside when the folder was swapped for a link while its entries were counted (review, session 35)', async () => {
    tree.file('proj/sw2/sub/notes.txt', 'mine\n');
    tree.file('outside2/sub/notes.txt', 'from outside\n');
    const toLink = (): void => {
      renameSync(`${tree.root}/proj/sw2/sub`, `${tree.root}/proj/sw2/sub-moved`);
      symlinkSync(`${tree.root}/outside2/sub`, `${tree.root}/proj/sw2/sub`);
    };
    const back = (): void => {
      rmSync(`${tree.root}/proj/sw2/sub`);
      renameSync(`${tree.root}/proj/sw2/sub-moved`, `${tree.root}/proj/sw2/sub`);
    };
    // Counted through the link (pause 3), the folder itself back as counted (pause 5), the link
    // again as the file is copied (pause 6): each entry is the one counted, yet the file is not the
    // kept folder's.
    let pauses = 0;
    const swapping = {
      breathe: (): Promise<void> => {
        pauses += 1;
        if (pauses === 3 || pauses === 6) toLink();
        if (pauses === 5) back();
        return Promise.resolve();
      },
    };
    await expect(copyTreeBounded(`${tree.root}/proj/sw2`, `${tree.root}/kept/sw2`, { entries: 100, bytes: 1_000_000 }, swapping)).rejects.toThrow(/changed while it was being kept/u);
    expect(existsSync(`${tree.root}/kept/sw2`)).toBe(false);
  });

  it('copies no file grown past what was counted (review, session 35)', async () => {
    tree.file('proj/grown/a.txt', 'small');
    let pauses = 0;
    const growing = {
      breathe: (): Promise<void> => {
        pauses += 1;
        if (pauses === 3) truncateSync(`${tree.root}/proj/grown/a.txt`, 50_000_000);
        return Promise.resolve();
      },
    };
    await expect(copyTreeBounded(`${tree.root}/proj/grown`, `${tree.root}/kept/grown`, { entries: 100, bytes: 1000 }, growing)).rejects.toThrow(/changed while it was being kept/u);
    expect(existsSync(`${tree.root}/kept/grown`)).toBe(false);
  });

  it('moves aside and puts back for undo only inside the folders decided, never where a link leads', () => {
    // Red team, session 33: an undo removed what it found through a parent swapped for a link.
    expect(() => { moveTree(`${tree.root}/proj/swapped/secretdir/token.txt`, `${tree.root}/kept/token.txt`); }).toThrow(/resolves to|not a plain directory/u);
    expect(existsSync(`${tree.root}/outside/secretdir/token.txt`)).toBe(true);
    expect(() => { restoreKept(`${tree.root}/proj/swapped/secretdir/planted`, { link: '/etc/passwd' }); }).toThrow(/resolves to|not a plain directory/u);
    expect(existsSync(`${tree.root}/outside/secretdir/planted`)).toBe(false);
    restoreKept(`${tree.root}/proj/d/back`, { link: 'f.txt' });
    expect(readlinkSync(`${tree.root}/proj/d/back`)).toBe('f.txt');
  });

  it('gives an edit or a card nothing from a file reached through a link', () => {
    expect(currentText(`${tree.root}/proj/d/f.txt`)).toMatchObject({ kind: 'text', text: 'mine\n' });
    expect(currentText(`${tree.root}/proj/swapped/secretdir/token.txt`)).toMatchObject({ kind: 'unavailable' });
  });
});

describe('moveTree across file systems', () => {
  let tree: TempTree;
  let disk = '';
  beforeAll(() => {
    tree = tempTree('oracle-files-xdev-');
    disk = `${tree.root}/disk`;
    mkdirSync(disk);
    if (cannotMountTmpfs() === undefined) mountTmpfs(disk, '128k');
  });
  afterAll(() => {
    unmount(disk);
    tree.dispose();
  });

  it('moves a file and a folder whole, refuses to replace what is at the destination, and leaves nothing half-made when the copy fails', (context) => {
    if (skipping('moves across file systems', cannotMountTmpfs())) return context.skip();
    writeFileSync(`${tree.root}/a.txt`, 'a\n');
    mkdirSync(`${tree.root}/d/e`, { recursive: true });
    writeFileSync(`${tree.root}/d/e/f.txt`, 'f\n');
    expect(moveTree(`${tree.root}/a.txt`, `${disk}/a.txt`)).toEqual({});
    expect(moveTree(`${tree.root}/d`, `${disk}/d`)).toEqual({});
    expect(readFileSync(`${disk}/a.txt`, 'utf8')).toBe('a\n');
    expect(readFileSync(`${disk}/d/e/f.txt`, 'utf8')).toBe('f\n');
    expect(existsSync(`${tree.root}/a.txt`) || existsSync(`${tree.root}/d`)).toBe(false);
    // Something at the destination is never replaced.
    writeFileSync(`${tree.root}/b.txt`, 'b\n');
    writeFileSync(`${disk}/b.txt`, 'theirs\n');
    expect(() => moveTree(`${tree.root}/b.txt`, `${disk}/b.txt`)).toThrow(/in the way/u);
    expect(readFileSync(`${disk}/b.txt`, 'utf8')).toBe('theirs\n');
    // Too large for the disk: the copy fails, nothing of it is there, the source is whole.
    writeFileSync(`${tree.root}/big.bin`, Buffer.alloc(256 * 1024, 7));
    expect(() => moveTree(`${tree.root}/big.bin`, `${disk}/big.bin`)).toThrow(/ENOSPC/u);
    expect(readdirSync(disk).sort()).toEqual(['a.txt', 'b.txt', 'd']);
    expect(readFileSync(`${tree.root}/big.bin`)).toEqual(Buffer.alloc(256 * 1024, 7));
  });
});
