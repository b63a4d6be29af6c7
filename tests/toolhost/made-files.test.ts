import { renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MadeFiles } from '../../server/toolhost/made-files.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/** The ledger of what agent sessions made (server/toolhost/made-files.ts), on a real file system. */
describe('MadeFiles', () => {
  let tree: TempTree;
  let made: MadeFiles;
  beforeEach(() => {
    tree = tempTree('oracle-made-');
    made = new MadeFiles();
  });
  afterEach(() => {
    tree.dispose();
  });

  it('believes a path only once the call that was to make it reports done, and only for that session', () => {
    const path = `${tree.root}/new.txt`;
    made.expect('c1', 's1', [path]);
    writeFileSync(path, 'x');
    expect(made.madeHere('s1', path)).toBe(false);
    // Only the session that was told may confirm.
    made.confirm('c1', 's2');
    expect(made.madeHere('s1', path)).toBe(false);
    made.confirm('c1', 's1');
    expect(made.madeHere('s1', path)).toBe(true);
    expect(made.madeHere('s2', path)).toBe(false);
    expect(made.madeHere(undefined, path)).toBe(false);
    // A call that never ran (forgotten) makes nothing.
    const other = `${tree.root}/other.txt`;
    made.expect('c2', 's1', [other]);
    made.forgetCall('c2');
    writeFileSync(other, 'y');
    made.confirm('c2', 's1');
    expect(made.madeHere('s1', other)).toBe(false);
  });

  it('stops believing once the file holds anything else, is replaced by a link, or is gone', () => {
    const path = tree.file('f.txt', 'mine');
    made.add('s', path);
    expect(made.madeHere('s', path)).toBe(true);
    writeFileSync(path, 'a person’s');
    expect(made.madeHere('s', path)).toBe(false);
    writeFileSync(path, 'mine');
    expect(made.madeHere('s', path)).toBe(true);
    renameSync(path, `${path}.bak`);
    symlinkSync(`${path}.bak`, path);
    expect(made.madeHere('s', path)).toBe(false);
    rmSync(path);
    expect(made.madeHere('s', path)).toBe(false);
  });

  it('vouches for no folder and no file larger than 1 MiB', () => {
    const dir = tree.dir('d');
    made.add('s', dir);
    expect(made.madeHere('s', dir)).toBe(false);
    const big = tree.file('big.bin', 'x'.repeat(1024 * 1024 + 1));
    made.add('s', big);
    expect(made.madeHere('s', big)).toBe(false);
    expect(made.madeAny('s')).toBe(false);
  });

  it('keeps its memory bounded: the session heard from least recently is forgotten first', () => {
    const path = tree.file('f.txt', 'mine');
    made.add('first', path);
    for (let i = 0; i < 256; i++) made.add(`s${String(i)}`, path);
    expect(made.madeHere('first', path)).toBe(false);
    expect(made.madeHere('s255', path)).toBe(true);
  });
});
