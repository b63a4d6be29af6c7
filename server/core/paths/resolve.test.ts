import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../../tests/fixtures/memory-fs.js';
import { testContext } from '../../../tests/fixtures/context.js';
import { canonicalize, reresolve } from './canonicalize.js';
import { LINUX, WINDOWS } from './flavor.js';
import { lexPath } from './lex.js';
import { resolveReal } from './resolve.js';

describe('lexPath', () => {
  it('makes paths absolute against the working directory and collapses dot segments', () => {
    expect(lexPath('a/./b/../c', { flavor: LINUX, cwd: '/w' })).toEqual({ ok: true, value: '/w/a/c' });
    expect(lexPath('/../../x', { flavor: LINUX })).toEqual({ ok: true, value: '/x' });
    expect(lexPath('c:\\Users\\u\\..\\v', { flavor: WINDOWS })).toEqual({ ok: true, value: 'C:/Users/v' });
    expect(lexPath('src\\a.ts', { flavor: WINDOWS, cwd: 'C:/p' })).toEqual({ ok: true, value: 'C:/p/src/a.ts' });
  });

  it('expands 8.3 names only through the host and refuses them otherwise', () => {
    const expand = (p: string) => (p === 'C:/PROGRA~1/x' ? 'C:/Program Files/x' : null);
    expect(lexPath('C:\\PROGRA~1\\x', { flavor: WINDOWS, expandShortName: expand })).toEqual({ ok: true, value: 'C:/Program Files/x' });
    expect(lexPath('C:\\PROGRA~2\\x', { flavor: WINDOWS, expandShortName: expand })).toMatchObject({ ok: false, code: 'PATH_SHORT_NAME' });
    expect(lexPath('/home/u/backup~1', { flavor: LINUX })).toEqual({ ok: true, value: '/home/u/backup~1' });
  });
});

describe('resolveReal', () => {
  it('resolves a dangling link to where it points, never to the link', () => {
    const reader = memoryReader({ '/p/link': { symlink: '/elsewhere/new/file' }, '/elsewhere/x': 'file' });
    expect(resolveReal('/p/link', reader, LINUX)).toEqual({ ok: true, value: '/elsewhere/new/file' });
  });

  it('applies `..` in a link target after the links before it', () => {
    const reader = memoryReader({ '/a/b/c': 'file', '/p/l1': { symlink: '/a/b' }, '/p/l2': { symlink: 'l1/../b/c' } });
    expect(resolveReal('/p/l2', reader, LINUX)).toEqual({ ok: true, value: '/a/b/c' });
  });

  it('denies loops and I/O errors, and refuses walking `..` out of a missing directory', () => {
    expect(resolveReal('/p/x', memoryReader({ '/p/x': { symlink: '/p/y' }, '/p/y': { symlink: '/p/x' } }), LINUX)).toMatchObject({ code: 'PATH_UNRESOLVABLE' });
    expect(resolveReal('/p/x/y', memoryReader({ '/p/x': { error: 'EACCES' } }), LINUX)).toMatchObject({ code: 'PATH_UNRESOLVABLE' });
    expect(resolveReal('/p/l', memoryReader({ '/p/l': { symlink: 'missing/../../etc' } }), LINUX)).toMatchObject({ code: 'PATH_UNRESOLVABLE' });
  });

  it('follows a chain of 40 links and refuses the 41st', () => {
    const nodes: Record<string, { symlink: string } | 'file'> = { '/end': 'file' };
    for (let i = 0; i < 41; i++) nodes[`/l${i}`] = { symlink: i === 40 ? '/end' : `/l${i + 1}` };
    const reader = memoryReader(nodes);
    expect(resolveReal('/l1', reader, LINUX)).toEqual({ ok: true, value: '/end' });
    expect(resolveReal('/l0', reader, LINUX)).toMatchObject({ code: 'PATH_UNRESOLVABLE' });
  });
});

describe('canonicalize: `..` the way the kernel walks it', () => {
  const policy = 'scopes:\n  p: { roots: [{ path: /p, mode: rw }, { path: /r, mode: ro }] }\n';
  const tree = { '/p/a.txt': 'file', '/p/src/m.ts': 'file', '/p/out': { symlink: '/elsewhere/dir' }, '/elsewhere/dir/x': 'file', '/elsewhere/secret.txt': 'file', '/p/toroot': { symlink: '/r' }, '/r/f': 'file' } as const;
  const gate = testContext(policy, { reader: memoryReader(tree) }).gate;
  const judge = (raw: string) => canonicalize(raw, gate, { cwd: '/p', access: 'read' });

  it('refuses `link/..`, which the kernel reads beside the link target and step 7 beside the link', () => {
    // Lexically /p/secret.txt (in scope); the system reads /elsewhere/secret.txt.
    const outside = judge('out/../secret.txt');
    expect(outside).toMatchObject({ ok: false, code: 'PATH_UNRESOLVABLE' });
    expect(outside.ok ? '' : outside.reason).toContain('the system reads it as `/elsewhere/secret.txt`');
    expect(judge('/p/out/../dir/../secret.txt')).toMatchObject({ ok: false, code: 'PATH_UNRESOLVABLE' });
    // A link to a scope root: its `..` is the root's parent, outside every scope.
    expect(judge('toroot/../p/a.txt')).toMatchObject({ ok: false, code: 'PATH_UNRESOLVABLE' });
  });

  it('refuses `..` out of a folder that does not exist yet (an earlier command may make it a link)', () => {
    const missing = judge('new/../a.txt');
    expect(missing).toMatchObject({ ok: false, code: 'PATH_UNRESOLVABLE' });
    expect(missing.ok ? '' : missing.reason).toContain('cannot be known');
  });

  it('keeps `..` through plain folders, and the working directory, as before', () => {
    expect(judge('src/../a.txt')).toMatchObject({ ok: true, value: { real: '/p/a.txt' } });
    expect(judge('../p/src/m.ts')).toMatchObject({ ok: true, value: { real: '/p/src/m.ts' } });
    expect(judge('out/x')).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_SCOPE' });
  });

  it('leaves Windows to step 7: its API collapses `..` before it looks at the disk', () => {
    const win = testContext('scopes:\n  p: { roots: [{ path: "C:/p", mode: rw }] }\n', { reader: memoryReader({}), flavor: WINDOWS, oracleHome: 'C:/oracle-home' }).gate;
    expect(canonicalize('C:\\p\\new\\..\\a.txt', win, { cwd: undefined, access: 'read' })).toMatchObject({ ok: true, value: { real: 'C:/p/a.txt' } });
  });
});

describe('reresolve (step 12)', () => {
  it('aborts when a path was swapped for a link after the decision', () => {
    const tree: Record<string, 'file' | { symlink: string }> = { '/p/a.txt': 'file', '/secret': 'file' };
    const reader = { entry: (path: string) => memoryReader(tree).entry(path) };
    const ctx = testContext('scopes:\n  p: { roots: [{ path: /p, mode: rw }] }\n', { reader });
    const decided = canonicalize('/p/a.txt', ctx.gate, { cwd: undefined, access: 'write' });
    if (!decided.ok) throw new Error(decided.reason);
    expect(reresolve(decided.value, ctx.gate).ok).toBe(true);
    tree['/p/a.txt'] = { symlink: '/secret' };
    expect(reresolve(decided.value, ctx.gate)).toMatchObject({ ok: false, code: 'PATH_UNRESOLVABLE' });
  });
});
