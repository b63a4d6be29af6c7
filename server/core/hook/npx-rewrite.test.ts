import { describe, expect, it } from 'vitest';
import { parseBash } from '../../adapters/bash-parser.js';
import { npxWithoutDownload } from './npx-rewrite.js';

async function rewrite(command: string): Promise<string | undefined> {
  const tree = await parseBash(command);
  if ('error' in tree) throw new Error(tree.error);
  return npxWithoutDownload(tree);
}

describe('npxWithoutDownload', () => {
  it.each([
    ['npx tsc --noEmit', 'npx --yes=false tsc --noEmit'],
    ['npx vitest run src/a.test.ts', 'npx --yes=false vitest run src/a.test.ts'],
    ['cd web && npx vitest run | head -40', 'cd web && npx --yes=false vitest run | head -40'],
    ['NODE_ENV=test npx vitest', 'NODE_ENV=test npx --yes=false vitest'],
    ['npx tsc --noEmit && npx eslint src', 'npx --yes=false tsc --noEmit && npx --yes=false eslint src'],
    ['npx  tsc\t-p .', 'npx --yes=false  tsc\t-p .'],
    // Offsets are string indices: text before the name that is not ASCII keeps them right.
    ['echo "é✓" && npx tsc', 'echo "é✓" && npx --yes=false tsc'],
    ['if npx tsc; then echo ok; fi', 'if npx --yes=false tsc; then echo ok; fi'],
  ])('%s → %s', async (command, expected) => {
    expect(await rewrite(command)).toBe(expected);
  });

  it.each([
    // An option of npx's own comes first: written on purpose, judged as written.
    'npx -y cowsay hi',
    'npx --yes=false tsc',
    'npx --no tsc --noEmit',
    'npx -p typescript tsc',
    // Bare npx, and npx reached any other way than as a command's literal name.
    'npx',
    'timeout 60 npx tsc',
    'bash -c "npx tsc"',
    '"npx" tsc',
    'n\\px tsc',
    '$NPX tsc',
    './npx tsc',
    'npm exec tsc',
    'echo npx tsc',
  ])('leaves `%s` as written', async (command) => {
    expect(await rewrite(command)).toBeUndefined();
  });

  it('the rewritten command parses to the same shape with the option added', async () => {
    const out = await rewrite('npx tsc --noEmit 2>&1 | tail -5');
    expect(out).toBe('npx --yes=false tsc --noEmit 2>&1 | tail -5');
    const again = await parseBash(out ?? '');
    expect('error' in again).toBe(false);
    // Idempotent: the rewritten command offers nothing more.
    if (!('error' in again)) expect(npxWithoutDownload(again)).toBeUndefined();
  });
});
