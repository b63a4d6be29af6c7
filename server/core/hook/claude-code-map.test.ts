import { describe, expect, it } from 'vitest';
import { mapToolCall } from './claude-code-map.js';
import { absoluteGlobFolder, claudePaths } from './claude-paths.js';

describe('the folder Claude Code’s Glob searches', () => {
  it('is the literal part of an absolute pattern, up to its last separator', () => {
    expect(absoluteGlobFolder('/etc/**/*.conf')).toBe('/etc');
    expect(absoluteGlobFolder('/home/u/.ssh/id*')).toBe('/home/u/.ssh');
    expect(absoluteGlobFolder('/a/b{c,d}/x')).toBe('/a');
    expect(absoluteGlobFolder('/a/[xy]/z')).toBe('/a');
    expect(absoluteGlobFolder('/a/b/?')).toBe('/a/b');
    expect(absoluteGlobFolder('/*')).toBe('/');
    expect(absoluteGlobFolder('/etc/passwd')).toBe('/etc');
    // Without a wildcard, dirname: a trailing separator is passed over.
    expect(absoluteGlobFolder('/home/u/projects/')).toBe('/home/u');
    expect(absoluteGlobFolder('/')).toBe('/');
    expect(absoluteGlobFolder('C:\\Users\\u\\*.txt')).toBe('C:\\Users\\u');
    expect(absoluteGlobFolder('C:/*')).toBe('C:/');
  });

  it('is none for a relative pattern: ripgrep matches it below `path`', () => {
    expect(absoluteGlobFolder('**/*.ts')).toBeUndefined();
    expect(absoluteGlobFolder('../x/*')).toBeUndefined();
    expect(absoluteGlobFolder('~/.ssh/*')).toBeUndefined();
    // On POSIX a backslash escapes: the pattern stays relative to `path`.
    expect(absoluteGlobFolder('\\etc\\*')).toBeUndefined();
    expect(absoluteGlobFolder(undefined)).toBeUndefined();
  });

  it('is what a Glob call is judged as, beside `path` (which patterns are absolute is the host’s)', () => {
    expect(mapToolCall({ tool_name: 'Glob', tool_input: { pattern: '/etc/*', path: '/p' }, cwd: '/p' })).toEqual({
      kind: 'actions',
      actions: [
        { tool: 'fs.list', args: { path: '/etc' } },
        { tool: 'fs.list', args: { path: '/p' } },
      ],
    });
    // On POSIX Claude Code reads `C:/x/*` as relative: it searches `path`, judged whatever the pattern.
    const drive = mapToolCall({ tool_name: 'Glob', tool_input: { pattern: 'C:/x/*', path: '/etc' }, cwd: '/p' });
    expect(drive.kind === 'actions' ? drive.actions.map((a) => a.args['path']) : []).toContain('/etc');
    expect(mapToolCall({ tool_name: 'Glob', tool_input: { pattern: '/p/src/*.ts' }, cwd: '/p' })).toEqual({ kind: 'actions', actions: [{ tool: 'fs.list', args: { path: '/p/src' } }, { tool: 'fs.list', args: { path: '/p' } }] });
    expect(mapToolCall({ tool_name: 'Glob', tool_input: { pattern: '*.ts', path: '/p/src' }, cwd: '/p' })).toEqual({ kind: 'actions', actions: [{ tool: 'fs.list', args: { path: '/p/src' } }] });
    expect(mapToolCall({ tool_name: 'Glob', tool_input: { pattern: '*.ts' }, cwd: '/p' })).toEqual({ kind: 'actions', actions: [{ tool: 'fs.list', args: { path: '/p' } }] });
  });
});

describe('a path field as Claude Code reads it', () => {
  it('is trimmed, `~` comes from the home, and an empty one is the working folder', () => {
    const paths = claudePaths('/p', '/home/u');
    expect(paths.of(' /etc/passwd')).toBe('/etc/passwd');
    expect(paths.of('/p/.env \t')).toBe('/p/.env');
    expect(paths.of('~')).toBe('/home/u');
    expect(paths.of(' ~/.ssh')).toBe('/home/u/.ssh');
    expect(paths.of('~other/x')).toBe('~other/x');
    expect(paths.of('src')).toBe('src');
    expect(paths.of('  ')).toBe('/p');
    expect(paths.failed).toBeUndefined();
  });

  it('refuses `~` when the home is unknown, rather than judge a folder named ~', () => {
    expect(mapToolCall({ tool_name: 'Grep', tool_input: { pattern: 'x', path: '~/.ssh' }, cwd: '/p' })).toMatchObject({ kind: 'deny' });
    expect(mapToolCall({ tool_name: 'Grep', tool_input: { pattern: 'x', path: '~/.ssh' }, cwd: '/p' }, '/home/u')).toEqual({
      kind: 'actions',
      actions: [expect.objectContaining({ tool: 'fs.read', args: { path: '/home/u/.ssh' } })],
    });
  });
});
