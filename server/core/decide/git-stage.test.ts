import { describe, expect, it } from 'vitest';
import type { Pin } from './context.js';
import { stagingQuery } from './git-stage.js';

const pins = new Map<string, Pin>([['git', { ok: true, path: '/usr/bin/git' }], ['npm', { ok: true, path: '/usr/bin/npm' }]]);
const query = (...argv: string[]) => stagingQuery('git', argv, pins);

describe('stagingQuery: which untracked files a git argv can start tracking', () => {
  it('reads add the way git does: pathspecs, -A for the whole tree, -f for ignored files too', () => {
    expect(query('add', 'src/a.ts')).toEqual({ pathspecs: ['src/a.ts'], ignored: false });
    expect(query('add', '-A')).toEqual({ pathspecs: [':/'], ignored: false });
    expect(query('add', '--al')).toEqual({ pathspecs: [':/'], ignored: false }); // an abbreviation git accepts
    expect(query('add', '-vAf')).toEqual({ pathspecs: [':/'], ignored: true });
    expect(query('add', '--', '-A')).toEqual({ pathspecs: ['-A'], ignored: false }); // after --, a file named -A
    expect(query('add', '--pathspec-from-file=x')).toEqual({ unclear: expect.any(String) as string });
  });

  it('knows what takes no untracked file', () => {
    expect(query('add')).toBeUndefined();
    expect(query('add', '-u')).toBeUndefined();
    expect(query('add', '-n', '.')).toBeUndefined();
    expect(query('stash')).toBeUndefined();
    expect(query('stash', 'pop')).toBeUndefined();
    expect(query('commit', '-a', '-m', 'x')).toBeUndefined();
    expect(stagingQuery('npm', ['add', '-A'], pins)).toBeUndefined();
  });

  it('reads stash -u and -a, with push pathspecs', () => {
    expect(query('stash', '-u')).toEqual({ pathspecs: [':/'], ignored: false });
    expect(query('stash', 'push', '--include-untracked', '--', 'src')).toEqual({ pathspecs: ['src'], ignored: false });
    expect(query('stash', 'save', '-a', 'message')).toEqual({ pathspecs: [':/'], ignored: true });
  });
});
