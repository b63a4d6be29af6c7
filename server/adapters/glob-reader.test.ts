import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../tests/fixtures/temp-tree.js';
import { nodeReadDir } from './glob-reader.js';

describe('nodeReadDir: the folder listing behind a glob', () => {
  const tree = tempTree('oracle-glob-reader-');
  afterAll(() => {
    tree.dispose();
  });

  it('lists names with folders and links to folders marked', () => {
    tree.file('list/a.ts');
    tree.dir('list/sub');
    tree.link('list/up', tree.root);
    tree.link('list/f', join(tree.root, 'list/a.ts'));
    const entries = nodeReadDir(join(tree.root, 'list'));
    if (entries === undefined || 'unjudged' in entries) throw new Error('the folder was not listed');
    expect([...entries].sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { name: 'a.ts', dir: false, link: false },
      { name: 'f', dir: false, link: true },
      { name: 'sub', dir: true, link: false },
      { name: 'up', dir: true, link: true },
    ]);
    expect(nodeReadDir(join(tree.root, 'missing'))).toBeUndefined();
  });

  it('a folder holding a name that is not UTF-8 cannot be judged (the string would be mangled to U+FFFD)', () => {
    const folder = tree.dir('odd');
    writeFileSync(Buffer.concat([Buffer.from(`${folder}/.e`), Buffer.from([0xff]), Buffer.from('nv')]), 'x');
    mkdirSync(join(folder, 'ok'));
    symlinkSync('/etc', join(folder, 'e'));
    expect(nodeReadDir(folder)).toEqual({ unjudged: `\`${folder}\` holds a name that is not UTF-8` });
  });
});
