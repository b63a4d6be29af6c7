import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBashParser, parseBash } from '../../server/adapters/bash-parser.js';
import { bashVerdict } from '../../server/core/hook/bash-actions.js';
import type { ParseBashSync } from '../../server/core/hook/bash-ast.js';
import { searcherSkips, type TreeSearch } from '../../server/core/hook/tree-search.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * ORACLE's reading of a searcher's options against the searcher itself: real GNU grep, ripgrep
 * and GNU diff run on a tree of awkward names, and every file a searcher printed must be one
 * ORACLE counted as reached. A file ORACLE takes as skipped that the tool read is a way past
 * deny_always (review counterexamples: `--exclude='!x'`, `./.env`, `**` before `/.env`, `[.]env`, `#x`,
 * a trailing space, rg's `/` anchored to its working directory). Each case also says what ORACLE
 * must skip, so the property cannot hold by ORACLE skipping nothing.
 */
const NAMES = ['.env', 'a/.env', 'a/.env.local', 'a/b/x.ts', 'x.ts', 'key.pem', 'a/K.PEM', 'my key.pem', 'é.env', '#x', '!x', '[x]', 'x,y', '{a,b}', 'a/.env ', 'sub/.git/config', '.git/config', 'a/c.tsx', 'x.{ts,tsx}'];

type Case = readonly [argv: readonly string[], cwd: string, mustSkip: readonly string[]];

const CASES: readonly Case[] = [
  [['grep', '-rl', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=.env', '--exclude-dir=.git', 'SECRET', '.'], '', ['.env', 'a/.env', '.git/config', 'sub/.git/config']],
  [['grep', '-rl', '--exclude=!x', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=./.env', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=**/.env', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=(x|.env)', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=[.]env', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=[[:punct:]]env', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=.env ', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=*.{env,pem}', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=?.env', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--exclude=*.pem', '--exclude=.e*', 'SECRET', '.'], '', ['key.pem', 'my key.pem', '.env', 'a/.env', 'a/.env.local', 'a/.env ']],
  [['grep', '-rl', '--include=*.ts', 'SECRET', '.'], '', ['.env', 'key.pem', 'a/.env']],
  [['grep', '-rl', '--include=*.{ts,tsx}', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--include=a/*', '--include=*.ts', 'SECRET', '.'], '', []],
  [['grep', '-rl', '--include=*.ts', '--exclude=.env', 'SECRET', '.'], '', ['.env', 'key.pem']],
  [['grep', '-rl', '--exclude-dir=a/b', 'SECRET', '.'], '', []],
  [['egrep', '-d', 'recurse', '-l', 'SECRET', '.'], '', []],
  [['grep', '--directories=recurse', '-l', 'SECRET', '.'], '', []],
  [['rg', '--no-config', '-uu', '-l', 'SECRET'], '', []],
  // rg's own skip of dot-names is not counted on (an ignore file can take one back); the `-g !.*` the hook adds is
  [['rg', '--no-config', '-l', 'SECRET'], '', []],
  [['rg', '-g', '!.*', '--no-config', '-l', 'SECRET'], '', ['.env', 'a/.env', '.git/config']],
  [['rg', '--no-config', '-uu', '-l', '--glob=!.env', '-g', '!.git/', 'SECRET'], '', ['.env', 'a/.env', '.git/config']],
  [['rg', '--no-config', '-uu', '-l', '-g', '!**/.env', 'SECRET'], '', ['.env', 'a/.env']],
  [['rg', '--no-config', '-uu', '-l', '-g', '!!x', 'SECRET'], '', []],
  [['rg', '--no-config', '-uu', '-l', '-g', '#x', 'SECRET'], '', []],
  [['rg', '--no-config', '-uu', '-l', '-g', '!.env ', 'SECRET'], '', []],
  [['rg', '--no-config', '-uu', '-l', '-g', '![.]env', 'SECRET'], '', []],
  [['rg', '--no-config', '-uu', '-l', '-g', '!/.env', 'SECRET', 'a'], '', []],
  [['rg', '--no-config', '-uu', '-l', '-g', '!a/.env', 'SECRET', 'a'], '', []],
  [['rg', '--no-config', '-uu', '-l', '-g', '!*.{env,pem}', 'SECRET'], '', ['.env', 'key.pem', 'é.env']],
  [['rg', '--no-config', '-uu', '-l', '-g', '*.{ts,tsx}', 'SECRET'], '', ['.env', 'key.pem', 'a/.env']],
  [['rg', '--no-config', '-uu', '-l', '--iglob', '!*.pem', 'SECRET'], '', ['key.pem', 'a/K.PEM', 'my key.pem']],
  [['rg', '--no-config', '-uu', '-l', '-g', 'a/', '-g', '*.ts', 'SECRET'], '', []],
  [['rg', '--no-config', '-l', '-g', '*.ts', 'SECRET'], '', ['.env']],
  [['diff', '-rq', '--no-dereference', '-x', '.e*', '-x', '.git', '.', '../copy'], 'tree', ['.env', 'a/.env', '.git/config']],
  [['diff', '-rq', '--no-dereference', '-x', '!x', '-x', './.env', '.', '../copy'], 'tree', []],
];

describe('what ORACLE takes a searcher to skip, the searcher skips', () => {
  let tree: TempTree;
  let parse: ParseBashSync;
  let root = '';
  beforeAll(async () => {
    parse = await loadBashParser();
    tree = tempTree('oracle-search-conformance-');
    root = tree.dir('tree');
    for (const name of NAMES) {
      tree.file(`tree/${name}`, 'SECRET\n');
      tree.file(`copy/${name}`, 'other\n');
    }
    expect(spawnSync('rg', ['--version']).status, 'ripgrep must be installed (apt-get install ripgrep; .ci/run does)').toBe(0);
  });
  afterAll(() => {
    tree.dispose();
  });

  it.each(CASES)('%j', async (argv, cwd, mustSkip) => {
    const dir = cwd === '' ? root : join(root, '..', cwd);
    const search = await plannedSearch(parse, argv, dir);
    const start = join(dir, search.path);
    const reached = oracleReached(search.search, start).map((p) => relative(root, p));
    const printed = realPrinted(argv, dir).map((p) => relative(root, join(dir, p)));
    expect(printed.length, 'the searcher read something').toBeGreaterThan(0);
    expect(printed.filter((p) => !reached.includes(p)), 'files the searcher read that ORACLE took as skipped').toEqual([]);
    expect(mustSkip.filter((p) => reached.includes(p)), 'files ORACLE must know are skipped').toEqual([]);
  });
});

async function plannedSearch(parse: ParseBashSync, argv: readonly string[], cwd: string): Promise<{ path: string; search: TreeSearch }> {
  const command = argv.map((a) => `'${a.replace(/'/gu, `'\\''`)}'`).join(' ');
  const tree = await parseBash(command);
  if ('error' in tree) throw new Error(tree.error);
  const verdict = bashVerdict(tree, { cwd, parse });
  if (verdict.kind !== 'actions') throw new Error(`${command}: ${verdict.reason}`);
  const [action] = verdict.actions;
  if (action?.search === undefined) throw new Error(`${command}: no tree search planned`);
  return { path: relative(cwd, String(action.args['path'])), search: action.search };
}

/** The files below `start` ORACLE counts as searched: every entry its model does not skip. */
function oracleReached(search: TreeSearch, start: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(start, { withFileTypes: true })) {
    const kind = entry.isDirectory() ? 'dir' : 'file';
    if (searcherSkips(search, { name: entry.name, kind })) continue;
    const path = join(start, entry.name);
    if (kind === 'dir') found.push(...oracleReached(search, path));
    else found.push(path);
  }
  return found;
}

/** The files the real searcher read: `-l` names them; diff names each pair it compared. */
function realPrinted(argv: readonly string[], cwd: string): string[] {
  const [program = '', ...args] = argv;
  const result = spawnSync(program, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
  if (result.status !== 0 && result.status !== 1) throw new Error(`${argv.join(' ')}: ${result.stderr}`);
  const lines = result.stdout.split('\n').filter((l) => l !== '');
  if (program !== 'diff') return lines;
  return lines.flatMap((l) => /^Files (.*) and \.\.\/copy\/.* differ$/u.exec(l)?.slice(1) ?? []);
}
