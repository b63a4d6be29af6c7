import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeLinkReader } from '../../server/adapters/link-reader.js';
import { configuredHooksPath } from '../../server/toolhost/git-hooks.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/** core.hooksPath as git reads it from its config files (server/toolhost/git-hooks.ts), on a real tree. */
describe('configuredHooksPath', () => {
  let tree: TempTree;
  let home = '';
  let app = '';
  const reader = nodeLinkReader();
  beforeEach(() => {
    tree = tempTree('oracle-hooks-path-');
    home = tree.dir('home');
    app = tree.dir('app');
    tree.file('app/.git/HEAD', 'ref: refs/heads/main\n');
    tree.dir('app/.git/objects');
  });
  afterEach(() => {
    tree.dispose();
  });
  const config = (text: string): void => {
    writeFileSync(join(app, '.git', 'config'), text);
  };

  it('reads the last setting in [core], in any case, quoted or inline, relative to the work tree', () => {
    expect(configuredHooksPath(join(app), reader, home)).toBeUndefined();
    config('[core]\n\tbare = false\n\thooksPath = .githooks ; comment\n');
    expect(configuredHooksPath(app, reader, home)).toEqual({ dir: join(app, '.githooks') });
    config('[core] HOOKSPATH = "tools/my hooks"\n[user]\n\thooksPath = nope\n');
    expect(configuredHooksPath(tree.dir('app/src'), reader, home)).toEqual({ dir: join(app, 'tools/my hooks') });
    config('[core]\n\thooksPath = a\n\thooksPath = ~/hooks\n');
    expect(configuredHooksPath(app, reader, home)).toEqual({ dir: join(home, 'hooks') });
  });

  it('takes the user’s global setting unless the repository says otherwise, and is unsure of what it cannot read whole', () => {
    writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = /srv/hooks\n');
    config('[core]\n\tbare = false\n');
    expect(configuredHooksPath(app, reader, home)).toEqual({ dir: '/srv/hooks' });
    config('[core]\n\thooksPath = local\n');
    expect(configuredHooksPath(app, reader, home)).toEqual({ dir: join(app, 'local') });
    config('[include]\n\tpath = other.config\n');
    expect(configuredHooksPath(app, reader, home)).toMatchObject({ unsure: expect.stringContaining('includes other config files') as unknown });
  });

  it('follows a worktree’s `.git` file to its repository’s shared config', () => {
    const main = tree.dir('main');
    tree.file('main/.git/HEAD', 'ref: refs/heads/main\n');
    tree.dir('main/.git/objects');
    writeFileSync(join(main, '.git', 'config'), '[core]\n\thooksPath = hooks\n');
    tree.file('main/.git/worktrees/wt/commondir', '../..\n');
    const wt = tree.dir('wt');
    writeFileSync(join(wt, '.git'), `gitdir: ${join(main, '.git/worktrees/wt')}\n`);
    expect(configuredHooksPath(wt, reader, home)).toEqual({ dir: join(wt, 'hooks') });
  });
});
