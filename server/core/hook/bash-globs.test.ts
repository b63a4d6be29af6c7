import { beforeAll, describe, expect, it } from 'vitest';
import { dirTree } from '../../../tests/fixtures/dir-tree.js';
import { loadBashParser } from '../../adapters/bash-parser.js';
import type { ParseBashSync } from './bash-ast.js';
import { bashVerdict, type BashVerdict } from './bash-actions.js';
import type { ReadDir } from './glob-expand.js';

/**
 * Glob arguments in a Bash command (SPEC §11): judged as every path they can match where the
 * command reads its operands alike; a person's call anywhere else, and wherever a shell option
 * the hook cannot see (dotglob, nullglob, zsh's EXTENDED_GLOB and EQUALS) could make them reach
 * something else.
 */
const PROJECT = dirTree(['README.md', 'HEADER.md', 'CHANGELOG.md', '.env', '.gitignore', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'docs/x.md', 'logs/.keep', 'opts/-rf', 'opts/a.txt']);
let parse: ParseBashSync;
beforeAll(async () => {
  parse = await loadBashParser();
});

function verdict(command: string, readDir: ReadDir | null = PROJECT, cwd = '/p'): BashVerdict {
  const tree = parse(command);
  if ('error' in tree) throw new Error(tree.error);
  return bashVerdict(tree, { cwd, home: '/home/u', parse, ...(readDir === null ? {} : { readDir }) });
}

const paths = (v: BashVerdict): string[] => (v.kind === 'actions' ? v.actions.map((a) => `${a.tool} ${typeof a.args['path'] === 'string' ? a.args['path'] : JSON.stringify(a.args['args'])}`) : [`${v.kind}: ${v.reason}`]);

describe('glob arguments', () => {
  it('a reader takes every path its glob can match', () => {
    expect(paths(verdict('cat src/*.ts'))).toEqual(['fs.read /p/src/a.ts', 'fs.read /p/src/b.ts']);
    expect(paths(verdict('wc -l src/*.ts docs/*.md'))).toEqual(['fs.read /p/src/a.ts', 'fs.read /p/src/b.ts', 'fs.read /p/docs/x.md']);
    expect(paths(verdict('head -n 5 *.md'))).toEqual(['fs.read /p/CHANGELOG.md', 'fs.read /p/HEADER.md', 'fs.read /p/README.md']);
    expect(paths(verdict('ls -la */'))).toEqual(['fs.list /p/docs/', 'fs.list /p/logs/', 'fs.list /p/opts/', 'fs.list /p/src/']);
    expect(paths(verdict('grep -n TODO src/*.ts'))).toEqual(['fs.read /p/src/a.ts', 'fs.read /p/src/b.ts']);
    expect(paths(verdict('cd src && cat *.ts'))).toEqual(['fs.read /p/src/a.ts', 'fs.read /p/src/b.ts']);
    // `**`: globstar or not, the superset (only src/deep/c.ts is every reading's, so also as written and dropped).
    expect(paths(verdict('cat src/**/*.ts'))).toEqual(['fs.read /p/src/a.ts', 'fs.read /p/src/b.ts', 'fs.read /p/src/deep/c.ts']);
    // a glob that reaches .env is judged like `cat .env`: the gate refuses that path
    expect(paths(verdict('cat .e*'))).toEqual(['fs.read /p/.env']);
  });

  it('the file tools take a glob where its paths are alike: deleted, touched, copied into a folder', () => {
    expect(paths(verdict('rm -f docs/*.md src/*.ts'))).toEqual(['fs.delete /p/docs/x.md', 'fs.delete /p/src/a.ts', 'fs.delete /p/src/b.ts']);
    expect(paths(verdict('touch src/*.ts'))).toEqual(['fs.touch /p/src/a.ts', 'fs.touch /p/src/b.ts']);
    const copies = (command: string) => {
      const v = verdict(command);
      return v.kind === 'actions' ? v.actions.map((a) => `${String(a.args['from'])} -> ${String(a.args['to'])}`) : [`${v.kind}: ${v.reason}`];
    };
    expect(copies('cp src/*.ts docs/')).toEqual(['/p/src/a.ts -> /p/docs/a.ts', '/p/src/b.ts -> /p/docs/b.ts']);
    expect(copies('mv -t docs src/*.ts')).toEqual(['/p/src/a.ts -> /p/docs/a.ts', '/p/src/b.ts -> /p/docs/b.ts']);
    expect(copies('cp README.md src/*.ts docs')).toEqual(['/p/README.md -> /p/docs/README.md', '/p/src/a.ts -> /p/docs/a.ts', '/p/src/b.ts -> /p/docs/b.ts']);
    // one glob onto a plain name: onto it if the shell passes one file, into it if several
    expect(copies('cp src/*.ts out')).toEqual(['ask: glob `src/*.ts` could match files, and `cp` does not read them all alike']);
    // the destination itself, sed -i (its arguments travel to the gate as written) and chmod
    expect(verdict('cp README.md src/*').kind).toBe('ask');
    expect(verdict('sed -i s/a/b/ src/*.ts').kind).toBe('ask');
    expect(verdict('chmod +x src/*.ts').kind).toBe('ask');
  });

  it('a glob in any other place is a person’s call', () => {
    expect(paths(verdict('grep *.md README.md'))).toEqual(['ask: glob `*.md` could match files, and `grep` does not read them all alike']);
    expect(verdict('diff src/*.ts').kind).toBe('ask');
    expect(verdict('uniq docs/*.md').kind).toBe('ask');
    expect(verdict('git add src/*.ts').kind).toBe('ask');
    expect(verdict('head -n *.md README.md').kind).toBe('ask');
    expect(verdict('find src/* -name x').kind).toBe('ask');
    // a cd that may have failed leaves two folders the glob could be read in
    expect(paths(verdict('cd src; cat *.ts'))).toEqual(['ask: glob `*.ts` could match files in more than one working directory']);
    // an option takes one word, and the shell passes every match: `touch -r src/* x` touches b.ts
    expect(paths(verdict('touch -r src/*.ts README.md'))[0]).toContain('a glob as the value of `touch -r`');
    expect(verdict('touch --reference src/*.ts README.md').kind).toBe('ask');
    expect(verdict('cp -t src/* README.md').kind).toBe('ask');
    // `ln -s dir/*` makes the last match the link, not a link in `./`
    expect(paths(verdict('ln -sf src/*.ts'))[0]).toContain('the shell makes the last match the link');
    // without a folder reader (no known working directory), as before
    expect(paths(verdict('cat src/*.ts', null))).toEqual(['ask: glob `src/*.ts` could match files; `cat src/*.ts` is not fully literal']);
  });

  it('a glob in a line whose other commands change files is a person’s call: the shell matches it when its command runs', () => {
    // `touch ./--files0-from=L` runs before the shell matches `-*`: the folder read here lacks it
    expect(paths(verdict("printf '.env\\0' > L && touch ./--files0-from=L && sort -*"))[0]).toMatch(/^ask: glob `-\*` is matched when its command runs, after other commands of this line may have changed the folders/u);
    expect(paths(verdict('mkdir out; cp src/*.ts out/'))[0]).toMatch(/^ask: glob `src\/\*.ts` is matched when its command runs/u);
    // a loop runs its own command again after it changed the folder
    expect(verdict('while true; do cp src/*.ts docs/; done').kind).toBe('ask');
    // one command alone: the shell matches its globs before it runs (and before its redirections)
    expect(verdict('cp src/*.ts docs/').kind).toBe('actions');
    expect(paths(verdict('cat src/*.ts > all.txt'))).toContain('fs.write /p/all.txt');
    // readers only, however many
    expect(paths(verdict('cat src/*.ts | head -n 3 && wc -l docs/*.md'))).toEqual(['fs.read /p/src/a.ts', 'fs.read /p/src/b.ts', 'fs.read /p/docs/x.md']);
  });

  it("zsh's BRACE_CCL (off by default): a `{x}` word is judged as written and as its letters", () => {
    expect(paths(verdict('cat .{e}nv'))).toEqual(['fs.read /p/.{e}nv', 'fs.read /p/.env']);
    expect(paths(verdict('cat x{ab}y'))).toEqual(['fs.read /p/x{ab}y', 'fs.read /p/xay', 'fs.read /p/xby']);
    // git's own braces stay read-only git either way
    expect(paths(verdict('git log @{u}'))).toEqual(['exec.run ["log","@{u}"]', 'exec.run ["log","@u"]']);
    // `{}` is never expanded; a brace expansion is a person's call as before
    expect(paths(verdict('cat a{}'))).toEqual(['fs.read /p/a{}']);
    expect(verdict('cat {a,b}').kind).toBe('ask');
    // found even without a folder reader
    expect(paths(verdict('cat .{e}nv', null))).toEqual(['fs.read /p/.{e}nv', 'fs.read /p/.env']);
  });

  it('what only some shell options make a glob match is a person’s call', () => {
    // dotglob / GLOB_DOTS: `*` would also take .env, .gitignore
    expect(paths(verdict('cat *'))[0]).toMatch(/^ask: glob `\*` also matches `\.env`, `\.gitignore` where the shell lets a wildcard match a leading dot/u);
    expect(verdict('ls logs/*').kind).toBe('ask');
    // a name a program would read as an option
    expect(paths(verdict('cat *', PROJECT, '/p/opts'))).toEqual(['ask: glob `*` matches `-rf`, which a program would take for an option']);
    expect(paths(verdict('cat opts/*'))).toEqual(['fs.read /p/opts/-rf', 'fs.read /p/opts/a.txt']);
  });

  it('a glob that may match nothing is judged as written (bash) and as dropped (nullglob)', () => {
    expect(paths(verdict('cat *.log'))).toEqual(['fs.read /p/*.log']);
    // dropped, a recursive search searches the working folder
    expect(paths(verdict('grep -r x *.log'))).toEqual(['fs.read /p/*.log', 'fs.read /p/.']);
    expect(paths(verdict('ls *.log'))).toEqual(['fs.list /p/*.log', 'fs.list /p/.']);
    // a bracket is never sure: as written, dropped, and the superset
    expect(paths(verdict('cat src/[ab].ts'))).toEqual(['fs.read /p/src/a.ts', 'fs.read /p/src/b.ts', 'fs.read /p/src/[ab].ts']);
    expect(paths(verdict('git diff HEAD~1'))).toEqual(['exec.run ["diff","HEAD~1"]']);
    const many = 'cat a?.x b?.x c?.x d?.x';
    expect(paths(verdict(many))[0]).toMatch(/^ask: too many readings of one command/u);
  });

  it("zsh: EXTENDED_GLOB's `^` and `#`, the `~` exclusion, EQUALS and numeric globs", () => {
    // `cat .e#nv` reads .env under EXTENDED_GLOB (seen with zsh 5.9): judged as the paths it can match
    expect(paths(verdict('cat .e#nv'))).toContain('fs.read /p/.env');
    // no file starts with HEAD here: as written and as dropped, both read-only git
    const project = dirTree(['src/a.ts']);
    expect(paths(verdict('git show HEAD^', project))).toEqual(['exec.run ["show","HEAD^"]', 'exec.run ["show"]']);
    // with HEADER.md, zsh passes git that name instead
    expect(paths(verdict('git show HEAD^'))).toEqual(['ask: glob `HEAD^` could match files, and `git` does not read them all alike']);
    // `x~y` takes names away from x in zsh; bash matches a name with a `~`: a person's call
    expect(paths(verdict('cat src/*~src/a.ts'))[0]).toMatch(/^ask: glob `src\/\*~src\/a.ts` with a `~`/u);
    // a `~` bash keeps in the word: `src~/../.e*` is the folder `src~`, not `src`
    expect(paths(verdict("mkdir 'src~' && cat src~/../.e*"))[0]).toMatch(/^ask: glob `src~\/..\/.e\*` with a `~`/u);
    expect(paths(verdict('cat =ls'))[0]).toBe('ask: zsh expands `=ls` to the path of a program; `cat =ls` is not fully literal');
    expect(paths(verdict('cat f<1-3>.txt'))[0]).toMatch(/^ask: zsh reads `<1-3>` as a glob matching numbered files/u);
    expect(verdict('echo hi > <1-9>').kind).toBe('ask');
    // quoted, none of it is special
    expect(paths(verdict("cat '.e#nv' \"HEAD^\" '=ls'"))).toEqual(['fs.read /p/.e#nv', 'fs.read /p/HEAD^', 'fs.read /p/=ls']);
  });
});
