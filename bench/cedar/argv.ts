import type { Context } from '@cedar-policy/cedar-wasm/nodejs';
import { candidates } from '../../server/core/decide/exec-args.js';
import type { CompiledPolicy } from '../../server/core/policy/compile.js';
import { hasConfusable } from '../../server/core/paths/characters.js';
import { canonicalPath, type CanonicalPath } from './canonical.js';

/**
 * An argv as Cedar can see it (no lists, no string functions but `like`): each position, the
 * count, the tokens as a set, long-option names before `=`, and the letters of short-flag
 * bundles. This is tokenising, not deciding: every rule over these lives in programs.ts.
 */
export function argvContext(argv: readonly string[]): Context {
  const context: Context = { argc: argv.length, args: [...new Set(argv)] };
  argv.forEach((token, i) => {
    context[`a${String(i)}`] = token;
  });
  const options = new Set<string>();
  const letters = new Set<string>();
  for (const token of argv) {
    if (token.startsWith('--') && token !== '--') options.add(token.split('=')[0] ?? token);
    else if (/^-[^-]/u.test(token)) for (const c of token.slice(1)) letters.add(c);
  }
  context['options'] = [...options];
  context['letters'] = [...letters];
  return context;
}

/**
 * What an exec argument could name as a path (ORACLE's candidates()), canonicalised like any
 * path; each becomes its own Cedar request. `refused` when ORACLE refuses the argument before
 * policy: `~` (the program may expand it), or characters an approval card cannot show.
 */
export function argvPaths(argv: readonly string[], gate: CompiledPolicy, cwd: string | undefined): { paths: CanonicalPath[]; refused: boolean } {
  const paths: CanonicalPath[] = [];
  for (const token of argv) {
    if (token.includes('\u0000') || hasConfusable(token) || token.includes('\u001b') || token.includes('\r')) return { paths, refused: true };
    for (const value of candidates(token)) {
      if (value.startsWith('~')) return { paths, refused: true };
      // A value that does not canonicalise is not a path ORACLE can deny on (it may ask a person).
      const canonical = canonicalPath(value, gate, cwd);
      if (canonical !== undefined) paths.push(canonical);
    }
  }
  return { paths, refused: false };
}
