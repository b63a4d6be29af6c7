import { describe, expect, it } from 'vitest';
import { exclusionAdvice, searcherSkips, type EntryKind, type TreeSearch } from './tree-search.js';
import { claudeGrepSearch, grepSearch, rgSearch } from './tree-search-argv.js';

const NO_CONFIG = { name: '--no-config' };
const at = (relative: string, kind: EntryKind = 'file') => ({ relative, name: relative.split('/').pop() ?? relative, kind });
const skips = (search: TreeSearch, relative: string, kind: EntryKind = 'file'): boolean => searcherSkips(search, at(relative, kind));

describe('what a tree search skips by itself, read so that doubt counts as reached', () => {
  it('grep -r skips only what its excludes name, by base name, and nothing hidden', () => {
    const plain = grepSearch([{ name: '-r' }]);
    expect(plain && skips(plain, '.env')).toBe(false);
    expect(plain && skips(plain, '.git', 'dir')).toBe(false);
    const excluding = grepSearch([{ name: '-r' }, { name: '--exclude', value: '.env' }, { name: '--exclude-dir', value: '.git' }]);
    expect(excluding && skips(excluding, 'config/.env')).toBe(true);
    expect(excluding && skips(excluding, '.git', 'dir')).toBe(true);
    // --exclude names files only, --exclude-dir folders only
    expect(excluding && skips(excluding, '.env', 'dir')).toBe(false);
    expect(excluding && skips(excluding, 'a/.git')).toBe(false);
  });
  it('grep reads globs as fnmatch does: no braces, so `*.{env,pem}` excludes neither', () => {
    const braces = grepSearch([{ name: '-r' }, { name: '--exclude', value: '*.{env,pem}' }]);
    expect(braces && skips(braces, 'x.env')).toBe(false);
    expect(braces && skips(braces, 'x.pem')).toBe(false);
  });
  it('grep --include first: a file no option names is not searched; both named counts as searched', () => {
    const only = grepSearch([{ name: '-r' }, { name: '--include', value: '*.ts' }]);
    expect(only && skips(only, '.env')).toBe(true);
    expect(only && skips(only, 'a.ts')).toBe(false);
    const excludeFirst = grepSearch([{ name: '-r' }, { name: '--exclude', value: '*.md' }, { name: '--include', value: '*.ts' }]);
    expect(excludeFirst && skips(excludeFirst, '.env')).toBe(false);
    const both = grepSearch([{ name: '-r' }, { name: '--include', value: '*' }, { name: '--exclude', value: '.env' }]);
    expect(both && skips(both, '.env')).toBe(false);
  });
  it('grep takes an abbreviated include as one: the last option naming a file wins, so it takes back an excluded one', () => {
    const taken = grepSearch([{ name: '-r' }, { name: '--exclude', value: '.env' }, { name: '--inc', value: '*' }]);
    expect(taken && skips(taken, '.env')).toBe(false);
    const spelled = grepSearch([{ name: '-r' }, { name: '--exclude', value: '.env' }, { name: '--includ', value: '.env' }]);
    expect(spelled && skips(spelled, '.env')).toBe(false);
  });
  it('rg --glob-case-insensitive reads every glob without case; the last of it and --no-glob-case-insensitive counts', () => {
    const upper = rgSearch([NO_CONFIG, { name: '--glob-case-insensitive' }, { name: '-g', value: '.ENV' }]);
    expect(skips(upper, '.env')).toBe(false);
    expect(skips(upper, 'a.ts')).toBe(true);
    // Excluded without case only when that is the last word; an include is read without case if any word asks.
    const excluded = rgSearch([NO_CONFIG, { name: '--hidden' }, { name: '--glob-case-insensitive' }, { name: '-g', value: '!.ENV' }]);
    expect(skips(excluded, '.env')).toBe(true);
    const undone = rgSearch([NO_CONFIG, { name: '--hidden' }, { name: '--glob-case-insensitive' }, { name: '--no-glob-case-insensitive' }, { name: '-g', value: '!.ENV' }]);
    expect(skips(undone, '.env')).toBe(false);
    const retaken = rgSearch([NO_CONFIG, { name: '--hidden' }, { name: '-g', value: '!.env' }, { name: '-g', value: '.ENV' }, { name: '--no-glob-case-insensitive' }, { name: '--glob-case-insensitive' }]);
    expect(skips(retaken, '.env')).toBe(false);
    // `--glob` is -g, not an abbreviation of --glob-case-insensitive.
    expect(skips(rgSearch([NO_CONFIG, { name: '--hidden' }, { name: '--glob', value: '!.ENV' }]), '.env')).toBe(false);
  });
  it('grep without recursion is no tree search; abbreviated excludes hide nothing', () => {
    expect(grepSearch([{ name: '-n' }])).toBeUndefined();
    expect(grepSearch([{ name: '-d', value: 'read' }])).toBeUndefined();
    const abbreviated = grepSearch([{ name: '--recur' }, { name: '--exclude-d', value: '.git' }]);
    expect(abbreviated && skips(abbreviated, '.git', 'dir')).toBe(false);
  });
  it('rg’s own skip of dot-names is not counted on (an ignore file can take one back); its `-g !.*` is', () => {
    const rg = rgSearch([NO_CONFIG]);
    expect(skips(rg, '.env')).toBe(false);
    expect(skips(rg, 'key.pem')).toBe(false);
    const noDots = rgSearch([{ name: '-g', value: '!.*' }, NO_CONFIG]);
    expect(skips(noDots, '.env')).toBe(true);
    expect(skips(noDots, '.git', 'dir')).toBe(true);
    expect(skips(noDots, 'a.ts')).toBe(false);
    // without --no-config too: a config file's options come before the command line's globs
    expect(skips(rgSearch([{ name: '-g', value: '!.*' }]), '.env')).toBe(true);
    const included = rgSearch([NO_CONFIG, { name: '-g', value: '.env*' }]);
    expect(skips(included, '.env')).toBe(false);
    expect(skips(included, 'a.ts')).toBe(true);
    expect(skips(included, 'src', 'dir')).toBe(false);
  });
  it('rg globs are gitignore-style: a trailing `/` names folders, a leading `**/` any depth, one level of braces expands', () => {
    const rg = rgSearch([{ name: '--hidden' }, { name: '-g', value: '!**/.env' }, { name: '-g', value: '!secrets/' }, { name: '-g', value: '!*.{pem,key}' }]);
    expect(skips(rg, 'config/.env')).toBe(true);
    expect(skips(rg, 'secrets', 'dir')).toBe(true);
    expect(skips(rg, 'secrets')).toBe(false);
    expect(skips(rg, 'a/b/x.key')).toBe(true);
    expect(skips(rg, 'a/b/x.txt')).toBe(false);
  });
  it('a glob read otherwise by some searcher excludes nothing and, as an include, takes in everything', () => {
    // rg anchors a `/` glob to its working directory, which need not be where the search starts
    const anchored = rgSearch([{ name: '--hidden' }, { name: '-g', value: '!config/.env' }, { name: '-g', value: '!/.env' }]);
    expect(skips(anchored, 'config/.env')).toBe(false);
    expect(skips(anchored, '.env')).toBe(false);
    for (const glob of ['!x', './.env', '**/.env', '(x|.env)', '[.]env', '.env ', '\\.env', '.e[[:alpha:]]v']) {
      const grep = grepSearch([{ name: '-r' }, { name: '--exclude', value: glob }]);
      expect([glob, grep && skips(grep, '.env')]).toEqual([glob, false]);
    }
    for (const glob of ['!!x', '#.env', '!.env ', '![.]env', '!{.env}', '!.e**']) {
      expect([glob, skips(rgSearch([{ name: '-u' }, { name: '-u' }, { name: '--no-config' }, { name: '-g', value: glob }]), '.env')]).toEqual([glob, false]);
    }
    // `#x` is a comment to rg: as an include it must not make ORACLE think .env is left out
    expect(skips(rgSearch([{ name: '--no-config' }, { name: '-g', value: '#x' }]), '.env')).toBe(false);
    const grepIncludes = grepSearch([{ name: '-r' }, { name: '--include', value: 'src/*.ts' }]);
    expect(grepIncludes && skips(grepIncludes, '.env')).toBe(false);
  });
  it('`?` is one character or one byte by locale: sure only for ASCII names', () => {
    const grep = grepSearch([{ name: '-r' }, { name: '--exclude', value: '?.env' }]);
    expect(grep && skips(grep, 'a.env')).toBe(true);
    expect(grep && skips(grep, 'é.env')).toBe(false);
  });
  it("Claude Code's Grep: hidden names searched, version-control folders left out, its glob split as the CLI splits it", () => {
    const grep = claudeGrepSearch(undefined);
    expect(skips(grep, '.env')).toBe(false);
    expect(skips(grep, '.git', 'dir')).toBe(true);
    expect(grep.honoursIgnores).toBe(true);
    const negated = claudeGrepSearch('!.env !*.pem');
    expect(skips(negated, '.env')).toBe(true);
    expect(skips(negated, 'k.pem')).toBe(true);
    expect(skips(negated, 'a.ts')).toBe(false);
    const listed = claudeGrepSearch('*.ts,*.tsx');
    expect(skips(listed, '.env')).toBe(true);
    expect(skips(listed, 'a.tsx')).toBe(false);
    expect(claudeGrepSearch('*.{ts,tsx}').filters).toHaveLength(1);
  });
});

describe('how to leave out what a search must not reach, in the searcher’s words', () => {
  const found = [
    { name: '.env', kind: 'file' as const },
    { name: '.git', kind: 'dir' as const },
    { name: '.env', kind: 'file' as const },
  ];
  it('spells each searcher’s options, once per name', () => {
    expect(exclusionAdvice('grep', found)).toBe('--exclude=.env --exclude-dir=.git');
    expect(exclusionAdvice('rg', found)).toBe("-g '!.env' -g '!.git'");
    expect(exclusionAdvice('diff', found)).toBe('-x .env -x .git');
    expect(exclusionAdvice('Grep', found)).toBe('"glob": "!.env !.git"');
  });
  it('a name a glob cannot spell plainly is advised as a `*` glob that does skip it', () => {
    const odd = [{ name: 'my key [1].pem', kind: 'file' as const }];
    expect(exclusionAdvice('grep', odd)).toBe("--exclude='my*key*1*.pem'");
    const advised = grepSearch([{ name: '-r' }, { name: '--exclude', value: 'my*key*1*.pem' }]);
    expect(advised && skips(advised, 'my key [1].pem')).toBe(true);
  });
  it('the advice, followed, skips what it named', () => {
    const advised = grepSearch([{ name: '-r' }, { name: '--exclude', value: '.env' }, { name: '--exclude-dir', value: '.git' }]);
    expect(advised && [skips(advised, '.env'), skips(advised, '.git', 'dir')]).toEqual([true, true]);
    const rg = rgSearch([{ name: '--hidden' }, { name: '-g', value: '!.env' }, { name: '-g', value: '!.git' }]);
    expect([skips(rg, '.env'), skips(rg, '.git', 'dir')]).toEqual([true, true]);
    expect(skips(claudeGrepSearch('!.env !.git'), '.env')).toBe(true);
  });
});
