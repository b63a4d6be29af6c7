import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../../tests/fixtures/temp-tree.js';
import { UndoFiles } from './undo-files.js';

describe('dropping what a keep left', () => {
  const tree = tempTree('oracle-undo-files-');
  afterAll(() => {
    tree.dispose();
  });

  it('removes the copies of a keep whose record was never saved, and nothing of another id', () => {
    const store = UndoFiles.open(tree.dir('undo'));
    const id = store.newId();
    const other = store.newId();
    const kept = store.keptPath(id, 0);
    mkdirSync(dirname(kept), { recursive: true });
    writeFileSync(kept, 'half a copy');
    writeFileSync(store.keptPath(other, 0), 'another keep');
    writeFileSync(`${store.dir}/.hidden`, 'not ours');
    store.drop(id);
    expect(existsSync(kept)).toBe(false);
    store.drop('');
    store.drop('../x');
    expect(readdirSync(store.dir).sort()).toEqual(['.hidden', `${other}.0.keep`].sort());
  });
});
