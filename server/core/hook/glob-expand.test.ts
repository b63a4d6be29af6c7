import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeReadDir } from '../../adapters/glob-reader.js';
import { dirTree } from '../../../tests/fixtures/dir-tree.js';
import { expandGlob, MAX_GLOB_VISITS, type Expansion, type ReadDir } from './glob-expand.js';

/**
 * What a glob can expand to. The expected sets were checked against bash 5.2 (with and without
 * dotglob, nocaseglob, globstar, globskipdots) and zsh 5.9 (with and without GLOB_DOTS,
 * NO_CASE_GLOB, EXTENDED_GLOB, GLOB_STAR_SHORT), in the C and a UTF-8 locale: every path any of
 * them printed is a match here, and every match marked sure was printed by all of them.
 */

const P = dirTree(['a.ts', 'B.TS', 'ab.ts', 'é.ts', 'x[ab].ts', '.env', '.env.local', 'README.md', 'HEADER.md', 'src/a.ts', 'src/.h.ts', 'src/deep/b.ts', 'src/deep/er/c.ts', 'Docs/y.md', '-rf', 'a*b']);

function matches(e: Expansion): Record<string, string> {
  if (!e.ok) throw new Error(e.reason);
  return Object.fromEntries(e.matches.map((m) => [m.path, m.hidden ? 'hidden' : m.sure ? 'sure' : 'maybe']));
}

describe('expandGlob: a superset of every shell reading', () => {
  it('`*` and `?` match names; a leading dot only under dotglob; another case only under nocaseglob', () => {
    expect(matches(expandGlob('*.ts', '/p', P))).toEqual({ 'B.TS': 'maybe', 'a.ts': 'sure', 'ab.ts': 'sure', 'x[ab].ts': 'sure', 'é.ts': 'sure' });
    expect(matches(expandGlob('*.md', '/p', P))).toEqual({ 'HEADER.md': 'sure', 'README.md': 'sure' });
    // `?` is one byte in the C locale: é (two bytes) is matched by `??` there and by `?` elsewhere.
    expect(matches(expandGlob('?.ts', '/p', P))).toEqual({ 'a.ts': 'sure', 'B.TS': 'maybe', 'é.ts': 'maybe' });
    expect(matches(expandGlob('??.ts', '/p', P))).toMatchObject({ 'ab.ts': 'sure', 'é.ts': 'maybe', 'a.ts': 'maybe' });
    expect(matches(expandGlob('.e*', '/p', P))).toEqual({ '.env': 'sure', '.env.local': 'sure' });
    expect(matches(expandGlob('*', '/p', P))).toMatchObject({ '.env': 'hidden', 'a.ts': 'sure', '-rf': 'sure' });
  });

  it('`.` and `..` are candidates only for a pattern that starts with a dot (bash before globskipdots)', () => {
    expect(matches(expandGlob('.*', '/p', P))).toMatchObject({ '.': 'hidden', '..': 'hidden', '.env': 'sure' });
    expect(Object.keys(matches(expandGlob('*', '/p', P)))).not.toContain('..');
  });

  it('a bracket expression matches any one character and is never sure; an escaped character is itself', () => {
    expect(matches(expandGlob('[ab].ts', '/p', P))).toMatchObject({ 'a.ts': 'maybe', 'é.ts': 'maybe' });
    expect(matches(expandGlob('a\\*b', '/p', P))).toEqual({ 'a*b': 'sure' });
    expect(matches(expandGlob('x\\[ab\\].ts', '/p', P))).toEqual({ 'x[ab].ts': 'sure' });
  });

  it('refuses brackets bash and zsh close in different places', () => {
    // zsh closes `[!]` and `[^]` at once (`.[!]nv` reads .env); bash takes that `]` as a member.
    for (const pattern of ['.[!]nv', '.[^]nv', '[!]]*']) expect(expandGlob(pattern, '/p', P)).toMatchObject({ ok: false, reason: expect.stringContaining('zsh closes') as unknown });
    // zsh's bracket may hold a `/` (`.en[v/]` reads .env); bash leaves that `[` as written.
    expect(expandGlob('.en[v/]', '/p', P)).toMatchObject({ ok: false, reason: expect.stringContaining('hold a `/`') as unknown });
    expect(expandGlob('d[/x]', '/p', P)).toMatchObject({ ok: false });
    // A `[` that no `]` follows is a name's character in both; an escaped one too.
    expect(matches(expandGlob('a[*', '/p', dirTree(['a[b'])))).toEqual({ 'a[b': 'sure' });
    expect(expandGlob('\\[!]x*', '/p', P)).toMatchObject({ ok: true });
  });

  it('keeps a pattern\'s final `/`, as the shell passes it (`link/` is the folder it leads to)', () => {
    expect(matches(expandGlob('*/', '/p', dirTree(['src/a.ts', 'x.md'])))).toEqual({ 'src/': 'sure' });
  });

  it('folders on the way: literal ones as written (or in another case), wildcard ones only folders', () => {
    expect(matches(expandGlob('src/*.ts', '/p', P))).toEqual({ 'src/a.ts': 'sure', 'src/.h.ts': 'hidden' });
    expect(matches(expandGlob('*/*.md', '/p', P))).toEqual({ 'Docs/y.md': 'sure' });
    expect(matches(expandGlob('docs/*.md', '/p', P))).toEqual({ 'Docs/y.md': 'maybe' });
    expect(matches(expandGlob('/p/src/deep/*.ts', '/elsewhere', P))).toEqual({ '/p/src/deep/b.ts': 'sure' });
    expect(matches(expandGlob('../p/src/*.ts', '/p/src', dirTree([])))).toEqual({});
  });

  it('`**` descends any number of folders; only one level is every reading (`*` without globstar)', () => {
    expect(matches(expandGlob('src/**/*.ts', '/p', P))).toEqual({ 'src/a.ts': 'maybe', 'src/.h.ts': 'hidden', 'src/deep/b.ts': 'sure', 'src/deep/er/c.ts': 'maybe' });
    expect(matches(expandGlob('src/**', '/p', P))).toMatchObject({ 'src/a.ts': 'sure', 'src/deep': 'sure', 'src/deep/b.ts': 'maybe' });
  });

  it('refuses what some shell would follow through links, and what is too large to list', () => {
    const linked = dirTree(['src/a.ts', 'src/up -> /p']);
    expect(expandGlob('src/**/*.ts', '/p', linked)).toMatchObject({ ok: false, reason: expect.stringContaining('src/up') as unknown });
    // `*/x` walks into a link to a folder, as every shell does (this tree does not list the
    // link's folder, so the literal name is kept as written).
    expect(matches(expandGlob('src/*/a.ts', '/p', linked))).toEqual({ 'src/up/a.ts': 'sure' });
    expect(expandGlob('***/x', '/p', P)).toMatchObject({ ok: false });
    expect(expandGlob('**.ts', '/p', P)).toMatchObject({ ok: false });
    const big = dirTree(Array.from({ length: MAX_GLOB_VISITS + 1 }, (_, i) => `d/f${String(i)}`));
    expect(expandGlob('d/*', '/p', big)).toMatchObject({ ok: false, reason: expect.stringContaining('more than') as unknown });
    // A literal name is looked for in a listing too: the same budget.
    expect(expandGlob('d/f1/*', '/p', big)).toMatchObject({ ok: false, reason: expect.stringContaining('more than') as unknown });
  });

  it("zsh's EXTENDED_GLOB: `x#` may drop the x, `^x` matches anything after its literal start; never sure", () => {
    expect(matches(expandGlob('.e#nv', '/p', P))).toMatchObject({ '.env': 'maybe' });
    expect(matches(expandGlob('HEAD^', '/p', P))).toEqual({ 'HEADER.md': 'maybe' });
    expect(matches(expandGlob('s#rc/*.ts', '/p', P))).toMatchObject({ 'src/a.ts': 'maybe' });
    expect(matches(expandGlob('src/^a.ts', '/p', P))).toMatchObject({ 'src/deep': 'maybe', 'src/.h.ts': 'hidden' });
  });

  it('a name beyond ASCII may stand for any letter; a pattern with one, or a folder with a name that is not UTF-8, is not judged', () => {
    const turkish = dirTree(['İd_rsa', 'id.pub', 'Src/a.ts', 'ſrc/b.ts']);
    // glibc folds İ to i: `i*` under nocaseglob reaches İd_rsa, which Unicode's simple folding does not
    expect(matches(expandGlob('i*', '/p', turkish))).toEqual({ 'id.pub': 'sure', 'İd_rsa': 'maybe', 'ſrc': 'maybe' });
    expect(matches(expandGlob('*d_rsa', '/p', turkish))).toEqual({ 'İd_rsa': 'sure' });
    // but not for a dot or a digit
    expect(matches(expandGlob('?.pub', '/p', dirTree(['é.pub', 'éé.pub', 'x.pub'])))).toEqual({ 'x.pub': 'sure', 'é.pub': 'maybe' });
    expect(matches(expandGlob('x*', '/p', dirTree(['é.pub', '.é', '1é'])))).toEqual({ 'é.pub': 'maybe' });
    // a literal folder name: another case, and any name of the same length beyond ASCII
    expect(matches(expandGlob('src/*.ts', '/p', turkish))).toEqual({ 'Src/a.ts': 'maybe', 'ſrc/b.ts': 'maybe' });
    expect(expandGlob('İ*', '/p', turkish)).toMatchObject({ ok: false, reason: expect.stringContaining('beyond ASCII') as unknown });
    const odd: ReadDir = () => ({ unjudged: 'a name that is not UTF-8' });
    expect(expandGlob('*.ts', '/p', odd)).toEqual({ ok: false, reason: 'a name that is not UTF-8' });
    expect(expandGlob('src/*.ts', '/p', odd)).toEqual({ ok: false, reason: 'a name that is not UTF-8' });
    expect(expandGlob('**/x', '/p', odd)).toEqual({ ok: false, reason: 'a name that is not UTF-8' });
  });

  it('a folder that cannot be listed gives a wildcard nothing, and a literal name as written', () => {
    const closed: ReadDir = (path) => (path === '/p' ? undefined : [{ name: 'x.ts', dir: false, link: false }]);
    expect(matches(expandGlob('*.ts', '/p', closed))).toEqual({});
    expect(matches(expandGlob('src/*.ts', '/p', closed))).toEqual({ 'src/x.ts': 'sure' });
  });
});

describe('expandGlob against find(1), on a real folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'oracle-glob-'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });
  const NAMES = ['a.ts', 'B.TS', 'é.ts', 'éé.ts', 'x[ab].ts', '.env', '.a.ts', 'a b.ts', 'a*b', 'a?b', 'A-1.md', 'z\\y.ts', 'Ω.md', 'e\u0301.ts', 'İd.ts', '\u212Aey'];
  for (const name of NAMES) writeFileSync(join(root, name), '');
  mkdirSync(join(root, 'dir.ts'));
  const PATTERNS = ['[[:alpha:]]?.ts', '[[.a.]]*', '[]a]*', '*.ts', '?.ts', '??.ts', '???.ts', '[ab].ts', '[!a]*', '[[:upper:]]*', '[^a-z]*', '*[]]*', 'a[*?]b', '*\\\\*', '*.TS', '?.md', '[a-z]-?.md', '*\\ *', 'i*', 'I?.TS', 'k*', '*EY'];

  it.each(PATTERNS)('every name find -iname matches for %s (C and UTF-8 locales) is a match', (pattern) => {
    const e = expandGlob(pattern, root, nodeReadDir);
    if (!e.ok) throw new Error(e.reason);
    const ours = new Set(e.matches.map((m) => m.path));
    // find's -iname is fnmatch(3) with case folded, and its metacharacters match a leading dot:
    // the dotglob and nocaseglob reading. The pattern's escapes are fnmatch's too.
    for (const locale of ['C', 'C.UTF-8']) {
      const found = spawnSync('find', ['.', '-mindepth', '1', '-maxdepth', '1', '-iname', pattern, '-printf', '%P\\0'], { cwd: root, encoding: 'utf8', env: { ...process.env, LC_ALL: locale } });
      expect(found.status, found.stderr).toBe(0);
      const names = found.stdout.split('\0').filter((n) => n !== '');
      expect(names.filter((n) => !ours.has(n)), `${pattern} in ${locale}`).toEqual([]);
    }
  });
});
