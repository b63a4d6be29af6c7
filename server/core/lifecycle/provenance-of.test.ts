import { describe, expect, it } from 'vitest';
import { provenanceOfResult } from './provenance-of.js';

const run = (program: string, ...args: string[]) => provenanceOfResult('exec.run', { program, args });

describe('what an action brings into the agent’s context', () => {
  it('taints with what the agent reads of other people’s content', () => {
    expect(provenanceOfResult('net.fetch', { url: 'https://x.example/' })).toEqual([{ kind: 'external', source: 'https://x.example/' }]);
    expect(provenanceOfResult('fs.list', { path: '/p/app/node_modules/left-pad' })[0]?.kind).toBe('local_foreign');
    expect(run('cat', 'node_modules/x/README.md')).toEqual([{ kind: 'local_foreign', source: 'node_modules/x/README.md' }]);
    expect(run('grep', '-r', 'TODO', 'vendor/')[0]?.kind).toBe('local_foreign');
    expect(run('tar', 'xzf', 'release.tar.gz')[0]?.kind).toBe('local_foreign');
    expect(run('curl', '-s', 'https://x.example/install.sh')[0]).toEqual({ kind: 'external', source: 'curl -s https://x.example/install.sh' });
    expect(run('git', 'log', 'origin/main')[0]?.kind).toBe('local_foreign');
    expect(run('git', 'show', 'FETCH_HEAD')[0]?.kind).toBe('local_foreign');
    expect(run('git', 'log', '--all', '--oneline')[0]?.kind).toBe('local_foreign');
    // moved or copied out of a dependency folder, the text is read from where no path says whose it is
    expect(provenanceOfResult('fs.move', { from: '/p/app/node_modules/x/README.md', to: '/p/app/notes.md' })).toEqual([{ kind: 'local_foreign', source: '/p/app/node_modules/x/README.md' }]);
    expect(provenanceOfResult('fs.copy', { from: '/p/app/vendor/lib.c', to: '/p/app/src/lib.c' })[0]?.kind).toBe('local_foreign');
  });

  it('leaves the user’s own work alone', () => {
    expect(run('cat', 'src/a.ts')).toEqual([]);
    expect(run('git', 'log', '--oneline', '-5')).toEqual([]);
    expect(run('git', 'diff', 'HEAD~1')).toEqual([]);
    expect(run('git', 'push', 'origin/main')).toEqual([]);
    expect(provenanceOfResult('fs.write', { path: 'node_modules/x', content: '' })).toEqual([]);
    expect(provenanceOfResult('fs.move', { from: '/p/app/src/a.ts', to: '/p/app/src/b.ts' })).toEqual([]);
  });
});
