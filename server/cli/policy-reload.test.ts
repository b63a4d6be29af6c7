import { describe, expect, it } from 'vitest';
import { reloadErrorLine } from './policy-reload.js';

describe('reloadErrorLine', () => {
  it('points at an error as oracle policy check does: file, line, column, and the key', () => {
    const e = { line: 4, column: 44, path: 'scopes.work.roots[0].exlude', message: 'unknown key `exlude`' };
    expect(reloadErrorLine('/h/config/policy.yaml', e)).toBe('/h/config/policy.yaml:4:44: unknown key `exlude` (scopes.work.roots[0].exlude)');
    // An unreadable file has no line; an older gate's answer may lack column and path.
    expect(reloadErrorLine('/h/p.yaml', { line: 0, column: 0, path: '', message: 'cannot read it' })).toBe('/h/p.yaml: cannot read it');
    expect(reloadErrorLine('/h/p.yaml', { line: 2, message: 'bad' })).toBe('/h/p.yaml:2: bad');
  });
});
