import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NPM_TABLES, npmCommand } from '../../server/core/decide/npm-commands.js';

/**
 * ORACLE's copy of npm's command table and option kinds (server/core/decide/npm-commands.ts),
 * checked against the npm installed here: the same commands and aliases, the same answer as npm's
 * own `deref` for every prefix of every name in every letter case, and no option listed as taking
 * a value that npm reads as a switch (which would hide the command after it from the deny list).
 */
const root = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
const load = createRequire(join(root, 'npm', 'package.json'));
const cmdList = load('./lib/utils/cmd-list.js') as { commands: string[]; aliases: Record<string, string>; deref: (c: string) => string | undefined };
const config = load('@npmcli/config/lib/definitions/index.js') as { definitions: Record<string, { type: unknown }>; shorthands: Record<string, string[]> };

describe('npm’s tables, against the installed npm', () => {
  it('has the same commands and aliases', () => {
    expect([...NPM_TABLES.commands].sort()).toEqual([...cmdList.commands].sort());
    expect({ ...NPM_TABLES.aliases }).toEqual(cmdList.aliases);
  });

  it('resolves every prefix of every command and alias as npm does', () => {
    const names = [...cmdList.commands, ...Object.keys(cmdList.aliases)];
    const words = new Set(names.flatMap((name) => Array.from({ length: name.length }, (_, i) => name.slice(0, i + 1))));
    for (const name of names) words.add(name.charAt(0).toUpperCase() + name.slice(1));
    words.add('installTest');
    for (const word of words) {
      const npm = cmdList.deref(word);
      // Where npm knows no command, ORACLE leaves the word as written (no rule names it).
      expect(npmCommand(word), word).toBe(npm ?? word);
    }
  });

  it('lists as taking a value only options npm gives the next word to, and as switches only Boolean ones', () => {
    const kinds = (name: string): { bool: boolean; value: boolean } | undefined => {
      const expanded = config.shorthands[name];
      if (expanded !== undefined && expanded.length > 1) return { bool: true, value: false }; // `-s` is `--loglevel silent`: whole
      const key = (expanded?.[0] ?? `--${name}`).replace(/^--(?:no-)?/u, '');
      const type = config.definitions[key]?.type;
      if (type === undefined) return undefined;
      const types = ([] as unknown[]).concat(type);
      const bool = types.includes(Boolean);
      // nopt: a Boolean type takes the next word only when it also lists String (or the word itself).
      return { bool, value: !bool || types.includes(String) };
    };
    for (const name of NPM_TABLES.valued) expect(kinds(name), name).toMatchObject({ value: true });
    for (const name of NPM_TABLES.switches) expect(kinds(name), name).toEqual({ bool: true, value: false });
  });
});
