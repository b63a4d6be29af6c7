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

  it('reads [core] hooksPath in any case, quoted, inline or with CRLF line ends, relative to the work tree', () => {
    expect(configuredHooksPath(join(app), reader, home)).toBeUndefined();
    config('[core]\n\tbare = false\n\thooksPath = .githooks ; comment\n');
    expect(configuredHooksPath(app, reader, home)).toEqual({ dirs: [join(app, '.githooks')] });
    config('[core] HOOKSPATH = "tools/my hooks"\n[user]\n\thooksPath = nope\n');
    expect(configuredHooksPath(tree.dir('app/src'), reader, home)).toEqual({ dirs: [join(app, 'tools/my hooks')] });
    // git reads CRLF configs (review, session 37: `.` stopped at the `\r`)
    config('[core]\r\n\thooksPath = tools/hooks\r\n');
    expect(configuredHooksPath(app, reader, home)).toEqual({ dirs: [join(app, 'tools/hooks')] });
  });

  it('counts every value any config sets, its includes too, since which one git takes may depend on a condition', () => {
    writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = /srv/hooks\n[includeIf "gitdir:~/work/"]\n\tpath = ~/work.config\n');
    writeFileSync(join(home, 'work.config'), '[core]\n\thooksPath = ~/hooks\n');
    config('[core]\n\thooksPath = local\n[include]\n\tpath = missing.config\n');
    expect(configuredHooksPath(app, reader, home)).toEqual({ dirs: ['/srv/hooks', join(home, 'hooks'), join(app, 'local')] });
  });

  it('is unsure of a value git may read otherwise than plainly, and of a config it cannot read', () => {
    for (const text of ['[core]\n\thooksPath = ".githooks" 2\n', '[core]\n\thooksPath = a\\\nb\n', '[core]\n\thooksPath = a\\tb\n']) {
      config(text);
      expect(configuredHooksPath(app, reader, home), text).toMatchObject({ unsure: expect.stringContaining('does not read') as unknown });
    }
  });

  it('follows a worktree’s `.git` file to its repository’s shared config, and a `.git` that is a link to a folder', () => {
    const main = tree.dir('main');
    tree.file('main/.git/HEAD', 'ref: refs/heads/main\n');
    tree.dir('main/.git/objects');
    writeFileSync(join(main, '.git', 'config'), '[core]\n\thooksPath = hooks\n');
    tree.file('main/.git/worktrees/wt/commondir', '../..\n');
    const wt = tree.dir('wt');
    writeFileSync(join(wt, '.git'), `gitdir: ${join(main, '.git/worktrees/wt')}\n`);
    expect(configuredHooksPath(wt, reader, home)).toEqual({ dirs: [join(wt, 'hooks')] });
    const linked = tree.dir('linked');
    tree.link('linked/.git', join(main, '.git'));
    expect(configuredHooksPath(linked, reader, home)).toEqual({ dirs: [join(linked, 'hooks')] });
  });
});
