import { describe, expect, it } from 'vitest';
import { gitRead } from './git-read-only.js';

describe('gitRead', () => {
  it.each([
    ['status', 'names'],
    ['status --short -- src', 'names'],
    ['log --oneline -20', 'names'],
    ['log --stat --format=%s main..HEAD', 'names'],
    ['branch', 'names'],
    ['branch -a -vv', 'names'],
    ['tag --list', 'names'],
    ['stash list', 'names'],
    ['reflog', 'names'],
    ['worktree list', 'names'],
    ['rev-parse --show-toplevel', 'names'],
    ['ls-files', 'names'],
  ])('`git %s` only reads: %s', (args, kind) => {
    expect(gitRead(args.split(' '))).toBe(kind);
  });

  it.each([
    'status -v',
    'status -vv',
    'status --verbose',
    'log --binary',
    'log --remerge-diff',
    'log --diff-merges=cc',
    'log --dd',
    'log --check',
    'log -m -p',
    'reflog show --binary',
    'diff --submodule=diff',
    'diff --textconv',
    'log -p',
    'log --patch',
    'log -Sneedle',
    'log -G x',
    'log -L 1,5:a.ts',
    'log -np',
    'log --word-diff',
    'diff',
    'diff --cached --stat',
    'diff HEAD~1',
    'diff main -- src',
    'diff -S needle',
    'diff --no-index a b',
    'show',
    'show HEAD',
    'blame a.ts',
    'cat-file -p HEAD',
    'grep needle',
    'branch topic',
    'branch -D topic',
    'branch --contains abc',
    'tag v1',
    'stash',
    'stash show -p',
    'reflog expire --all',
    'commit -m x',
    'add .',
    'worktree add ../x',
  ])('`git %s` is no names-only read (it prints file text, judged by git-prints.ts, or changes something)', (args) => {
    expect(gitRead(args.split(' '))).toBeUndefined();
  });
});
