import { describe, expect, it } from 'vitest';
import { gitPrints, peeled } from './git-prints.js';

/** Words that exist as files here (git reads them as paths). */
const FILES = new Set(['src', 'src/a.ts', 'README.md']);
const prints = (line: string) => gitPrints(line.split(' '), (w) => FILES.has(w));

describe('gitPrints', () => {
  it.each([
    // names, states, messages: nothing to ask
    'status', 'log --oneline -5', 'log --stat main..HEAD', 'show --stat', 'show -s HEAD', 'show --name-only abc',
    'diff --stat', 'diff --name-only main', 'grep -l KEY', 'grep -c KEY HEAD', 'grep -e -x -l',
    'stash show', 'stash list', 'cat-file -t HEAD', 'commit -m patch', 'commit -mpatch', 'add -A', 'blame src/a.ts',
    'log -p -s', 'reflog', 'reflog show --oneline',
  ])('`git %s` prints no stored file text', (line) => {
    expect(prints(line)).toBeUndefined();
  });

  it.each([
    ['show', ['show', '--raw', '-z', '--format=', '--no-relative', '--no-renames', '--end-of-options', '--']],
    ['show HEAD~1', ['show', '--raw', '-z', '--format=', '--no-relative', '--no-renames', '--end-of-options', 'HEAD~1^{commit}', '--']],
    ['log -p -3 -- src', ['log', '-3', '--raw', '-z', '--format=', '--no-relative', '--no-renames', '--end-of-options', '--', 'src']],
    ['log -p src/a.ts', ['log', '--raw', '-z', '--format=', '--no-relative', '--no-renames', '--end-of-options', '--', 'src/a.ts']],
    ['log --author x -p main..topic', ['log', '--author', 'x', '--raw', '-z', '--format=', '--no-relative', '--no-renames', '--end-of-options', 'main^{commit}..topic^{commit}', '--']],
    ['log --cc -1', ['log', '--cc', '-1', '--raw', '-z', '--format=', '--no-relative', '--no-renames', '--end-of-options', '--']],
    ['diff', ['diff', '--raw', '-z', '--no-relative', '--no-renames', '--']],
    ['diff main...HEAD', ['diff', '--raw', '-z', '--no-relative', '--no-renames', 'main^{commit}...HEAD^{commit}', '--']],
    ['diff --cached -M', ['diff', '--cached', '-M', '--raw', '-z', '--no-relative', '--no-renames', '--']],
    ['grep -in KEY', ['grep', '-l', '-z', '--full-name', '-i', '-e', 'KEY', '--']],
    ['grep -e KEY HEAD~2 -- src', ['grep', '-l', '-z', '--full-name', '-e', 'KEY', 'HEAD~2^{tree}', '--', 'src']],
    ['grep KEY src', ['grep', '-l', '-z', '--full-name', '-e', 'KEY', '--', 'src']],
    ['stash show -p stash@{1}', ['stash', 'show', '--raw', '-z', '--no-renames', 'stash@{1}']],
    ['cat-file -p HEAD', ['cat-file', '-e', 'HEAD^{tree}']],
    // only what REV:path names, judged as a path: nothing to ask
    ['show HEAD:src/a.ts', []],
    ['show HEAD~1:src main:README.md', []],
    ['cat-file -p HEAD:src/a.ts', []],
  ])('`git %s` is asked as %j', (line, ask) => {
    expect(prints(line)).toMatchObject({ ask });
  });

  it('says which queries need only the work tree and the index', () => {
    expect(prints('diff')).toMatchObject({ worktreeOnly: true });
    expect(prints('grep KEY')).toMatchObject({ worktreeOnly: true });
    for (const line of ['diff --cached', 'diff HEAD', 'grep KEY HEAD', 'grep --cached KEY', 'show']) expect(prints(line), line).toMatchObject({ worktreeOnly: false });
  });

  it.each([
    'log -p --exotic', 'show --remerge-diff', 'diff --submodule=diff', 'log -L 1,5:src/a.ts', 'diff HEAD:src HEAD~1:src', 'grep KEY HEAD:src',
    'show :/fix the bug', 'cat-file --batch', 'cat-file blob', 'archive HEAD', 'format-patch -1', 'reflog -p', 'add -p', 'add -ip', 'checkout -p', 'commit --patch',
    'stash -p', 'stash show -p --include-untracked', 'stash list -p', 'log --pat', 'grep --recurse-submodules KEY',
  ])('`git %s` is unclear: a person decides', (line) => {
    expect(prints(line)).toHaveProperty('unclear');
  });

  it('peels every end of a revision to what it must be, suffixes kept', () => {
    expect(peeled('HEAD', 'commit')).toBe('HEAD^{commit}');
    expect(peeled('^main', 'commit')).toBe('^main^{commit}');
    expect(peeled('a..b', 'commit')).toBe('a^{commit}..b^{commit}');
    expect(peeled('a...', 'commit')).toBe('a^{commit}...');
    expect(peeled('HEAD^!', 'commit')).toBe('HEAD^{commit}^!');
    expect(peeled('HEAD^-2', 'tree')).toBe('HEAD^{tree}^-2');
    expect(peeled('HEAD:src', 'tree')).toBeUndefined();
  });
});
