import { spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentText } from '../../server/toolhost/preview.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/** What a write card shows as "before": read like the executor reads, bounded, never through a link or a FIFO. */
describe('the current text for a write card', () => {
  let tree: TempTree | undefined;
  afterEach(() => {
    tree?.dispose();
    tree = undefined;
  });

  it('reads text, says absent for no file, and refuses links, FIFOs, large and binary files', () => {
    tree = tempTree('oracle-preview-');
    const dir = tree.dir('d');
    writeFileSync(join(dir, 'a.txt'), 'hello\n');
    writeFileSync(join(dir, 'secret'), 'TOKEN\n');
    symlinkSync(join(dir, 'secret'), join(dir, 'link'));
    writeFileSync(join(dir, 'big'), 'x'.repeat(100));
    writeFileSync(join(dir, 'bin'), Buffer.from([0xff, 0xfe, 0x00]));
    expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0);
    expect(currentText(join(dir, 'a.txt'))).toEqual({ kind: 'text', text: 'hello\n' });
    expect(currentText(join(dir, 'none'))).toEqual({ kind: 'absent' });
    expect(currentText(join(dir, 'link'))).toEqual({ kind: 'unavailable', reason: 'the path is a link' });
    expect(currentText(join(dir, 'fifo'))).toEqual({ kind: 'unavailable', reason: 'the path is a special file' });
    expect(currentText(dir)).toEqual({ kind: 'unavailable', reason: 'the path is a directory' });
    expect(currentText(join(dir, 'big'), 10)).toMatchObject({ kind: 'unavailable' });
    expect(currentText(join(dir, 'bin'))).toEqual({ kind: 'unavailable', reason: 'the current file is not UTF-8 text' });
  });
});
