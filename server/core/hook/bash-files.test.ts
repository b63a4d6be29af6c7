import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashParser, parseBash } from '../../adapters/bash-parser.js';
import type { ParseBashSync } from './bash-ast.js';
import { bashVerdict, type BashVerdict } from './bash-actions.js';
import { unsafeSedCommand } from './sed-script.js';

let parse: ParseBashSync;
beforeAll(async () => {
  parse = await loadBashParser();
});

async function verdict(command: string): Promise<BashVerdict> {
  const tree = await parseBash(command);
  if ('error' in tree) throw new Error(tree.error);
  return bashVerdict(tree, { cwd: '/p', parse });
}

// [command, the fs actions the gate must judge]
const ACTIONS: [string, unknown[]][] = [
  ['mkdir -p src/utils', [{ tool: 'fs.mkdir', args: { path: '/p/src/utils' } }]],
  ['mkdir -m 755 a b', [{ tool: 'fs.mkdir', args: { path: '/p/a' } }, { tool: 'fs.mkdir', args: { path: '/p/b' } }]],
  ['touch -r ref new', [{ tool: 'fs.read', args: { path: '/p/ref' } }, { tool: 'fs.touch', args: { path: '/p/new' } }]],
  ['rm -rf build x.o', [{ tool: 'fs.delete', args: { path: '/p/build' } }, { tool: 'fs.delete', args: { path: '/p/x.o' } }]],
  ['rm -- -weird', [{ tool: 'fs.delete', args: { path: '/p/-weird' } }]],
  ['rmdir empty', [{ tool: 'fs.delete', args: { path: '/p/empty' } }]],
  ['cp a b', [{ tool: 'fs.copy', args: { to: '/p/b', from: '/p/a' } }]],
  ['cp -r a b dir', [{ tool: 'fs.copy', args: { to: '/p/dir/a', from: '/p/a' } }, { tool: 'fs.copy', args: { to: '/p/dir/b', from: '/p/b' } }]],
  ['cp a dir/', [{ tool: 'fs.copy', args: { to: '/p/dir/a', from: '/p/a' } }]],
  ['cp -t dir src/a', [{ tool: 'fs.copy', args: { to: '/p/dir/a', from: '/p/src/a' } }]],
  ['cp --preserve=mode a b', [{ tool: 'fs.copy', args: { to: '/p/b', from: '/p/a' } }]],
  ['mv -f old new', [{ tool: 'fs.move', args: { to: '/p/new', from: '/p/old' } }]],
  ['ln -s ../x sub/link', [{ tool: 'fs.link', args: { path: '/p/sub/link', target: '/p/sub/../x' } }]],
  ['ln -s /abs/t', [{ tool: 'fs.link', args: { path: '/p/./t', target: '/abs/t' } }]],
  ["sed -i 's/a/b/' f", [{ tool: 'fs.edit', args: { path: '/p/f', program: 'sed', args: ['-i', 's/a/b/', 'f'] } }]],
  [
    "sed -i.bak -e 's/a/b/' f",
    [
      { tool: 'fs.copy', args: { to: '/p/f.bak', from: '/p/f' } },
      { tool: 'fs.edit', args: { path: '/p/f', program: 'sed', args: ['-i.bak', '-e', 's/a/b/', 'f'] } },
    ],
  ],
  ["sed -n '1,5p' f g", [{ tool: 'fs.read', args: { path: '/p/f' } }, { tool: 'fs.read', args: { path: '/p/g' } }]],
  ["awk '{print $1}' src/a.ts", [{ tool: 'fs.read', args: { path: '/p/src/a.ts' } }]],
  ["awk -F: -v n=2 '$2 > n {print $1}' a b", [{ tool: 'fs.read', args: { path: '/p/a' } }, { tool: 'fs.read', args: { path: '/p/b' } }]],
  ["awk --field-separator=, --assign x=1 -- '{print}' x=2 f -", [{ tool: 'fs.read', args: { path: '/p/f' } }]],
  // options end at the program: these are the files `-F` and `.env`
  ["awk '{print}' -F .env", [{ tool: 'fs.read', args: { path: '/p/-F' } }, { tool: 'fs.read', args: { path: '/p/.env' } }]],
  ["awk 'NR==FNR{a[$1];next} $1 in a' /dev/stdin f", [{ tool: 'fs.read', args: { path: '/p/f' } }]],
  ["gawk 'END {print NR}'", []],
  ['od -An -t x1 -w16 f', [{ tool: 'fs.read', args: { path: '/p/f' } }]],
  // -w takes a value only when attached: the next word is a file
  ['od -w f g', [{ tool: 'fs.read', args: { path: '/p/f' } }, { tool: 'fs.read', args: { path: '/p/g' } }]],
  ['hexdump -C -n 64 f', [{ tool: 'fs.read', args: { path: '/p/f' } }]],
  ['hd -L f', [{ tool: 'fs.read', args: { path: '/p/f' } }]],
  ['uniq in out', [{ tool: 'fs.read', args: { path: '/p/in' } }, { tool: 'fs.write', args: { path: '/p/out', content: '' } }]],
  ['sort -k 2 -t , data.csv', [{ tool: 'fs.read', args: { path: '/p/data.csv' } }]],
  ['git -C sub status', [{ tool: 'exec.run', args: { program: 'git', args: ['status'], cwd: '/p/sub' } }]],
  ['git --no-pager log -3', [{ tool: 'exec.run', args: { program: 'git', args: ['log', '-3'], cwd: '/p' } }]],
  ['git --version && which node && printenv HOME', []],
  // git mv is the git command, then the moves it makes (after it: same-line.ts reads the order)
  ['git mv old.ts new.ts', [{ tool: 'exec.run', args: { program: 'git', args: ['mv', 'old.ts', 'new.ts'], cwd: '/p' } }, { tool: 'fs.move', args: { to: '/p/new.ts', from: '/p/old.ts' } }]],
  [
    'git -C sub mv -v a b dir',
    [
      { tool: 'exec.run', args: { program: 'git', args: ['mv', '-v', 'a', 'b', 'dir'], cwd: '/p/sub' } },
      { tool: 'fs.move', args: { to: '/p/sub/dir/a', from: '/p/sub/a' } },
      { tool: 'fs.move', args: { to: '/p/sub/dir/b', from: '/p/sub/b' } },
    ],
  ],
];

// Commands the analysis cannot vouch for: escalated, never planned as plain fs actions.
const ESCALATED = [
  'mkdir -Z x', 'cp -l a b', 'cp -s a b', 'cp -b a b', 'cp --parents a b', 'cp -T a b', 'cp a', 'mv a', 'mv -b a b', 'ln a b',
  "sed -f s.sed f", "sed 'w out' f", "sed 's/a/b/w out' f", "sed '1e id' f", "sed 's/x/id/e' f", "sed 'r /etc/passwd' f", "sed 'R x' f",
  "sed -i.* 's/a/b/' f", 'sed -i', 'sort -o out in', 'sort --compress-program=sh in', 'date -s 2020-01-01', 'hostname evil', 'git -C', 'rm --interactive=never x',
  'git mv a', 'git mv -t dir a', 'git mv --cached a b',
  'awk -f prog.awk f', "awk 'BEGIN{system(\"id\")}'", "awk '{print > \"o\"}' f", "awk -v ENVIRON=1 '{print}' f", "awk '{print}' ARGC=3 f",
  'hexdump -f fmt f', "gawk -e '{print}' f", "gawk --source='{print}' f", "mawk -W exec x", 'awk', 'awk -F', "awk -S '{print}' f", "awk '{print $1 | \"sh\"}'",
];

describe('the file tools as fs actions', () => {
  it.each(ACTIONS)('%s', async (command, expected) => {
    const v = await verdict(command);
    expect(v.kind, JSON.stringify(v)).toBe('actions');
    if (v.kind === 'actions') expect(v.actions).toEqual(expected);
  });

  it.each(ESCALATED)('%s is escalated', async (command) => {
    expect((await verdict(command)).kind).toBe('ask');
  });

  it('denies rm --no-preserve-root', async () => {
    expect((await verdict('rm -rf --no-preserve-root /')).kind).toBe('deny');
  });
});

describe('sed scripts', () => {
  it.each(['s/a/b/g', 's|a|b|', '1,5d', '/^#/d;s/x/y/2', '$a\\\nend', 'y/abc/xyz/', '/start/,/end/{s/a/b/;p}', '2q', ':a;N;$!ba;s/\\n/ /g', 's/\\//x/g'])('%s edits text only', (script) => {
    expect(unsafeSedCommand(script)).toBeUndefined();
  });
  it.each(['w /etc/x', '1w out', 's/a/b/w out', 's/a/b/e', 'e id', '1e id', 'r /etc/passwd', 'R f', 'W f', 'F', 's/a/b', '/a', 'v 4.2'])('%s is refused', (script) => {
    expect(unsafeSedCommand(script)).toBeDefined();
  });
});
