import { describe, expect, it } from 'vitest';
import { parseBash } from '../../server/adapters/bash-parser.js';
import { subscriptCode } from '../../server/core/hook/arithmetic.js';
import { expandGlob } from '../../server/core/hook/glob-expand.js';
import { tooCostlyToParse, MAX_OPERATORS } from '../../server/core/hook/shell-cost.js';
import { isSecretKeyName, nameWords } from '../../server/core/redact/key-names.js';
import { parseJsonWithin } from '../../shared/json-depth.js';
import { trimEnd } from '../../shared/trim-end.js';

/**
 * One agent request may not hold the gate's one thread (red team, session 31): each input below
 * took seconds to minutes, or broke the shell parser for every later call, before its fix. Each
 * is answered here, correctly, by code that does bounded work; a regression shows as a timeout.
 */
describe('inputs built to cost the gate', () => {
  it('refuses to parse a command denser than a person writes, and the parser still parses after it', async () => {
    // 20,000 `a|` took 23 s and 2 GB, then aborted the parser for good.
    const dense = await parseBash('a|'.repeat(20_000));
    expect(dense).toMatchObject({ error: expect.stringContaining('shell operator') as unknown });
    expect(await parseBash('('.repeat(100_000))).toMatchObject({ error: expect.stringContaining('operator characters') as unknown });
    expect(await parseBash('ls; '.repeat(24_750))).toMatchObject({ error: expect.stringContaining('operator') as unknown });
    // No operators at all, but 40,000 error-recovered children: read with a cursor, not child(i).
    expect(await parseBash('if a\n'.repeat(20_000))).toMatchObject({ hasError: true });
    const after = await parseBash('ls -la && echo done');
    expect('root' in after && after.root.type).toBe('program');
  });

  it('counts operators outside quotes, comments and quoted here-documents only', () => {
    expect(tooCostlyToParse('echo hi | wc -l')).toBeUndefined();
    expect(tooCostlyToParse(`echo '${'|'.repeat(2000)}'`)).toBeUndefined();
    expect(tooCostlyToParse(`cat > x.ts <<'EOF'\n${'f(a[1]);\n'.repeat(300)}EOF\nls`)).toBeUndefined();
    expect(tooCostlyToParse(`a${'|a'.repeat(MAX_OPERATORS + 1)}`)).toContain('shell operators outside quotes');
    // an unquoted delimiter's body is read by the shell: counted
    expect(tooCostlyToParse(`cat <<EOF\n${'|'.repeat(MAX_OPERATORS + 1)}\nEOF`)).toBeDefined();
    // a here-document never closed is counted too
    expect(tooCostlyToParse(`cat <<'EOF'\n${'|'.repeat(MAX_OPERATORS + 1)}`)).toBeDefined();
  });

  it('matches a glob built to backtrack against ordinary names, as any shell would', () => {
    const names = ['package-lock.json', 'README.md', 'src', 'x', 'a'.repeat(255)];
    const readDir = () => names.map((name) => ({ name, dir: name === 'src', link: false }));
    const costly = expandGlob(`*${'[x]*'.repeat(9)}Z`, '/p', readDir);
    expect(costly).toMatchObject({ ok: true, matches: [] });
    expect(expandGlob(`${'*a'.repeat(12)}b`, '/p', readDir)).toMatchObject({ ok: true, matches: [] });
    expect(expandGlob('*.md', '/p', readDir)).toMatchObject({ ok: true, matches: [{ path: 'README.md' }] });
  });

  it('finds a substitution in a subscript in one pass', () => {
    expect(subscriptCode('['.repeat(100_000))).toBeUndefined();
    expect(subscriptCode('a[$(id)]')).toContain('subscript with a substitution');
    expect(subscriptCode('a[`id`]')).toBeDefined();
    expect(subscriptCode('a[1] $(id)')).toBeUndefined();
  });

  it('splits a key name of 100,000 capitals in one pass, as before', () => {
    expect(nameWords('A'.repeat(100_000))).toHaveLength(1);
    expect(nameWords('HTTPSProxyPassword')).toEqual(['https', 'proxy', 'password']);
    expect(isSecretKeyName('AWSSecretAccessKey')).toBe(true);
  });

  it('trims a trailing run in one pass', () => {
    expect(trimEnd(`x${'/'.repeat(100_000)}`, '/')).toBe('x');
    expect(trimEnd(`${'/'.repeat(100_000)}x`, '/')).toHaveLength(100_001);
    expect(trimEnd('a\n\n', '\n')).toBe('a');
  });

  it('refuses JSON nested deeper than any request before parsing it', () => {
    const deep = `{"todos": ${'['.repeat(4_000_000)}${']'.repeat(4_000_000)}}`;
    expect(parseJsonWithin(deep)).toMatchObject({ ok: false, reason: 'the JSON nests deeper than 64 levels' });
    expect(parseJsonWithin('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\""}')).toMatchObject({ ok: true });
    expect(parseJsonWithin('{"a": [1, {"b": 2}]}')).toEqual({ ok: true, value: { a: [1, { b: 2 }] } });
  });
});
