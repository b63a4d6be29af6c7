import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../tests/fixtures/temp-tree.js';
import { foreignBelow } from './foreign-below.js';

describe('foreignBelow: the dependency folder a recursive search of a folder reaches', () => {
  const tree = tempTree('oracle-foreign-below-');
  afterAll(() => {
    tree.dispose();
  });

  it('finds one at any depth, and none in a tree of the project’s own files', () => {
    tree.file('app/src/a.ts');
    tree.file('app/.git/objects/x');
    expect(foreignBelow(`${tree.root}/app`)).toBeUndefined();
    tree.file('app/packages/web/node_modules/dep/index.js');
    expect(foreignBelow(`${tree.root}/app`)).toBe(`${tree.root}/app/packages/web/node_modules`);
  });
  it('names the first one it meets, whatever else the tree holds', () => {
    tree.file('big/node_modules/dep/index.js');
    for (let i = 0; i < 50; i++) tree.file(`big/src/${String(i)}/a.ts`);
    expect(foreignBelow(`${tree.root}/big`)).toBe(`${tree.root}/big/node_modules`);
  });
});
