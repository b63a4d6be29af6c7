import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../tests/fixtures/temp-tree.js';
import { withFileLock } from './file-lock.js';

describe('withFileLock', () => {
  const tree = tempTree('oracle-lock-');
  afterAll(() => {
    tree.dispose();
  });

  it('runs the change under its own lock and leaves nothing behind', () => {
    const dir = tree.dir('own');
    const file = join(dir, 'state.json');
    const seen = withFileLock(file, () => readdirSync(dir).filter((n) => n.endsWith('.lock')));
    expect(seen).toEqual(['state.json.lock']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over a lock whose process is gone, and refuses while a live one holds it', () => {
    const dir = tree.dir('stale');
    const file = join(dir, 'state.json');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(`${file}.lock`, `${gone} x\n`);
    expect(withFileLock(file, () => 'ran')).toBe('ran');
    expect(existsSync(`${file}.lock`)).toBe(false);
    // This process is alive: its lock, fresh, is honoured for the whole wait, then refused clearly.
    writeFileSync(`${file}.lock`, `${String(process.pid)} other\n`);
    expect(() => withFileLock(file, () => 'ran')).toThrow(/is being changed by another process/u);
    expect(readdirSync(dir)).toEqual(['state.json.lock']);
  });
});
