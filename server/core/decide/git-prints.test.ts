import { describe, expect, it } from 'vitest';
import { gitPrints, peeled, revisionColon } from './git-prints.js';

/** Words that exist as files here (git reads them as paths). */
const FILES = new Set(['src', 'src/a.ts', 'README.md', '.', '../sibling']);
const prints = (line: string) => gitPrints(line.split(' '), (w) => FILES.has(w) || (/[*?[]/u.test(w) && !/[@^~:{}]/u.test(w)));
const RAW_LOG = ['--raw', '-z', '--format=', '--no-relative'];
const RAW = ['--raw', '-z', '--no-relative'];

describe('gitPrints', () => {
  it.each(['status', 'status -s', 'stash list', 'cat-file -t HEAD', 'commit -m patch', 'commit -mpatch', 'add -A', 'blame src/a.ts', 'reflog', 'reflog show --oneline', 'reflog expire --all', 'for-each-ref --format=%(refname)', 'tag -n5'])(
    '`git %s` prints no stored file text',
    (line) => {
      expect(prints(line)).toBeUndefined();
    },
  );

  it.each(['log --oneline -5', 'log --stat main..HEAD', 'show --stat', 'diff --stat', 'diff --name-only main', 'log -p -s', 'show HEAD:src/a.ts', 'show HEAD~1:src main:README.md', 'cat-file -p HEAD:src/a.ts', 'show HEAD@{1}:README.md', 'show HEAD@{2099-01-01:00}:.env', 'show HEAD^{/:|}:.env', 'cat-file -p HEAD@{12:00\\}~2:.env'])(
    '`git %s` prints names or only what its REV:path names (judged as a path, where git splits it): nothing to ask',
    (line) => {
      expect(prints(line)).toEqual({ asks: [], output: 'none', worktreeOnly: false });
    },
  );

  it.each([
    ['show', [['show', '-C', '--diff-merges=separate', ...RAW_LOG, '--end-of-options', '--']]],
    ['show HEAD~1', [['show', '-C', '--diff-merges=separate', ...RAW_LOG, '--end-of-options', 'HEAD~1^{commit}', '--']]],
    // before an explicit --, a word is a revision even where a file has its name
    ['show HEAD~2 -- src', [['show', '-C', '--diff-merges=separate', ...RAW_LOG, '--end-of-options', 'HEAD~2^{commit}', '--', 'src']]],
    // a names format still prints a blob whole: each object must be a commit
    ['show --stat abc123', [['log', '--no-walk', '--format=', '--end-of-options', 'abc123^{commit}', '--']]],
    ['show --check HEAD', [['show', '-C', '--diff-merges=separate', ...RAW_LOG, '--end-of-options', 'HEAD^{commit}', '--']]],
    ['log -p -3 -- src', [['log', '-C', '-3', ...RAW_LOG, '--end-of-options', '--', 'src'], ['log', '-C', '-3', ...RAW_LOG, '--follow', '-M', '--end-of-options', '--', 'src']]],
    ['log -p src/a.ts', [['log', '-C', ...RAW_LOG, '--end-of-options', '--', 'src/a.ts'], ['log', '-C', ...RAW_LOG, '--follow', '-M', '--end-of-options', '--', 'src/a.ts']]],
    ["log -p *.ts", [['log', '-C', ...RAW_LOG, '--end-of-options', '--', '*.ts'], ['log', '-C', ...RAW_LOG, '--follow', '-M', '--end-of-options', '--', '*.ts']]],
    ['log --author x -p main..topic', [['log', '-C', '--author=x', ...RAW_LOG, '--end-of-options', 'main^{commit}..topic^{commit}', '--']]],
    ['log --cc -1', [['log', '-C', '-1', '--diff-merges=separate', ...RAW_LOG, '--end-of-options', '--']]],
    // a pickaxe is left out: which commits it keeps says what a file holds
    ['log -G SECRET --oneline --all', [['log', '-C', '--all', ...RAW_LOG, '--end-of-options', '--']]],
    ['log --check', [['log', '-C', ...RAW_LOG, '--end-of-options', '--']]],
    ['diff', [['diff', '-C', ...RAW, '--']]],
    ['diff main...HEAD', [['diff', '-C', ...RAW, 'main^{commit}...HEAD^{commit}', '--']]],
    ['diff --cached -M', [['diff', '-C', '--cached', '-M', ...RAW, '--']]],
    ['diff -Sx --name-only', [['diff', '-C', ...RAW, '--']]],
    ['grep -in KEY', [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '-e', '', '--']]],
    ['grep -l KEY', [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '-e', '', '--']]],
    ['grep -e KEY HEAD~2 -- src', [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '-e', '', 'HEAD~2^{commit}', '--', 'src']]],
    ['grep -- KEY HEAD~2', [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '-e', '', 'HEAD~2^{commit}', '--']]],
    ['grep -A 3 -- KEY', [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '-e', '', '--']]],
    ['grep KEY src', [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '-e', '', '--', 'src']]],
    ['grep --cached -e a --and ( -e b --or -e c )', [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '--cached', '-e', '', '--']]],
    ['stash show', [['stash', 'show', '--raw', '-z', '-C'], ['stash', 'show', '--only-untracked', '--raw', '-z']]],
    ['stash show -p -u stash@{1}', [['stash', 'show', '--raw', '-z', '-C', 'stash@{1}'], ['stash', 'show', '--only-untracked', '--raw', '-z', 'stash@{1}']]],
    ['cat-file -p HEAD', [['cat-file', '-e', 'HEAD^{tree}']]],
    ['status -v', [['diff', '-C', '--cached', ...RAW]]],
    ['status --verb', [['diff', '-C', '--cached', ...RAW]]],
  ])('`git %s` is asked as %j', (line, asks) => {
    expect(prints(line)).toMatchObject({ asks });
  });

  it('says which queries need only what the index lists, and what a grep of a revision names first', () => {
    expect(prints('diff')).toMatchObject({ worktreeOnly: true });
    expect(prints('grep KEY')).toMatchObject({ worktreeOnly: true });
    for (const line of ['diff --cached', 'diff HEAD', 'grep KEY HEAD', 'show']) expect(prints(line), line).toMatchObject({ worktreeOnly: false });
    expect(prints('grep KEY HEAD')).toMatchObject({ output: 'names', strip: 'HEAD^{commit}:' });
  });

  it.each([
    'log -p --exotic', 'show --remerge-diff', 'diff --submodule=diff', 'log -L 1,5:src/a.ts', 'diff HEAD:src HEAD~1:src', 'grep KEY HEAD:src', 'grep KEY HEAD main',
    'show :/fix the bug', 'show HEAD:.e?v', 'cat-file --batch', 'cat-file blob',
    'archive HEAD', 'format-patch -1', 'reflog -p', 'reflog HEAD -p', 'reflog main --patch', 'add -p', 'add -ip', 'checkout -p', 'commit --patch', 'commit --dry-run -v --amend',
    'stash -p', 'stash list -p', 'show --all', 'show --tags --stat', 'diff -- . ..', 'commit --dry -v', 'commit --long', 'add --patc', 'rebase --show-current-patch', 'show :(top)', 'show :!a.txt', 'log --pat', 'grep --recurse-submodules KEY', 'status -vv', 'diff . ../sibling',
    'for-each-ref --format=%(raw)', 'tag -l --format=%(*raw)', 'log --notes',
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

  it('splits REV:path where git does, at the first colon outside braces', () => {
    expect(revisionColon('HEAD:a')).toBe(4);
    expect(revisionColon('HEAD@{12:00}:a')).toBe(12);
    expect(revisionColon('HEAD^{/:|}:.env')).toBe(10);
    expect(revisionColon('HEAD@{12:00\\}~2:.env')).toBe(15);
    expect(revisionColon('HEAD')).toBe(-1);
  });
});

describe('gitPrints before an explicit --', () => {
  it('reads every word before it as a revision, a file of that name or not', () => {
    expect(gitPrints(['diff', 'HEAD~2', '--', '.'], () => true)).toMatchObject({ asks: [['diff', '-C', '--raw', '-z', '--no-relative', 'HEAD~2^{commit}', '--', '.']] });
    expect(gitPrints(['grep', '-e', 'API', 'HEAD~2', '--', '.'], () => true)).toMatchObject({ asks: [['grep', '-l', '-z', '--full-name', '--recurse-submodules', '-e', '', 'HEAD~2^{commit}', '--', '.']] });
  });
});
