import { describe, expect, it } from 'vitest';
import { parseBash } from '../../adapters/bash-parser.js';
import { MAX_LEFT_OUT, searchWithout } from './search-rewrite.js';

const DOTS = [
  { name: '.env', kind: 'file' as const },
  { name: '.git', kind: 'dir' as const },
];

async function rewrite(command: string, hidden = DOTS): Promise<string | undefined> {
  const tree = await parseBash(command);
  if ('error' in tree) throw new Error(tree.error);
  return searchWithout(tree, hidden);
}

describe('searchWithout', () => {
  it.each([
    ['grep -rn x .', 'grep --exclude=.env --exclude-dir=.git -rn x .'],
    ['egrep -r "a|b"', 'egrep --exclude=.env --exclude-dir=.git -r "a|b"'],
    ['rg -n x', "rg -g '!.env' -g '!.git' -n x"],
    ['cd src && grep -r x . | head -5', 'cd src && grep --exclude=.env --exclude-dir=.git -r x . | head -5'],
    ['grep -r x . && rg y', "grep --exclude=.env --exclude-dir=.git -r x . && rg -g '!.env' -g '!.git' y"],
  ])('leaves what no agent may read out of `%s`', async (command, expected) => {
    expect(await rewrite(command)).toBe(expected);
  });

  it.each([['"grep" -r x .'], ['command grep -r x .'], ['/usr/bin/grep -r x .'], ['find . -name x'], ['g=grep; $g -r x .']])('leaves `%s` as written (no searcher named plainly)', async (command) => {
    expect(await rewrite(command)).toBeUndefined();
  });

  it('offers nothing for a name a glob cannot say plainly, or past MAX_LEFT_OUT names', async () => {
    expect(await rewrite('grep -r x .', [{ name: "it's.pem", kind: 'file' }])).toBeUndefined();
    expect(await rewrite('grep -r x .', [{ name: 'ключ', kind: 'file' }])).toBeUndefined();
    expect(await rewrite('grep -r x .', [{ name: 'id_rsa.pem', kind: 'file' }])).toBe('grep --exclude=id_rsa.pem -r x .');
    const many = Array.from({ length: MAX_LEFT_OUT + 1 }, (_, i) => ({ name: `k${String(i)}.pem`, kind: 'file' as const }));
    expect(await rewrite('grep -r x .', many)).toBeUndefined();
    expect(await rewrite('grep -r x .', [])).toBeUndefined();
  });
});
