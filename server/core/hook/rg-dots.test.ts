import { describe, expect, it } from 'vitest';
import { parseBash } from '../../adapters/bash-parser.js';
import { rgWithoutDots } from './rg-dots.js';

async function pinned(command: string): Promise<string | undefined> {
  const tree = await parseBash(command);
  if ('error' in tree) throw new Error(tree.error);
  return rgWithoutDots(tree);
}

describe('rgWithoutDots', () => {
  it.each([
    ['rg -n KEY', "rg -g '!.*' -n KEY"],
    ['rg --no-config KEY src', "rg -g '!.*' --no-config KEY src"],
    ["rg -g '!*.md' KEY", "rg -g '!.*' -g '!*.md' KEY"],
    ['rg -u KEY', "rg -g '!.*' -u KEY"],
    ['cd src && rg x | head; rg y', "cd src && rg -g '!.*' x | head; rg -g '!.*' y"],
    ['rg -e --hidden x', "rg -g '!.*' -e --hidden x"],
  ])('makes rg’s skip of dot-names certain in `%s`', async (command, expected) => {
    expect(await pinned(command)).toBe(expected);
  });

  it.each([
    'rg --hidden KEY',
    'rg -. KEY',
    'rg -uu KEY',
    'rg -u -u KEY',
    'rg -nuu KEY',
    "rg -g '*.ts' KEY",
    "rg --glob='src/**' KEY",
    "rg -g'.github/**' KEY",
    "rg -g '!.*' KEY",
    'rg -g "$G" KEY',
    'rg --iglob x KEY',
    'grep -r KEY .',
    '"rg" KEY',
    'command rg KEY',
  ])('leaves `%s` as written (it asks for dot-names, or is no plain rg)', async (command) => {
    expect(await pinned(command)).toBeUndefined();
  });
});
