import { isUnderComparable } from '../paths/canonical.js';
import type { OracleAction } from './bash-context.js';
import { basename, dirname } from './bash-files.js';

/**
 * Every part of a Bash line is judged before the line runs, against the folders as they are then.
 * A part that comes after a change the same line makes can mean something else by the time it
 * runs (red team, session 31):
 * - git finds its repository when it starts: `mkdir -p evil/objects && echo … > evil/HEAD &&
 *   printf … > evil/config && git -C evil status` ran the planted config's fsmonitor, though a
 *   bare repository already there is a person's call (decide/git-discovery.ts);
 * - a moved, copied or new link keeps its target's text: `mv d1/d2/up L && echo x >> L/.bashrc`
 *   wrote through a relative link that pointed two folders further up once moved.
 * Such a line is Claude Code's own question ("run it on its own"); each part alone is judged
 * against what the earlier one left. Pure.
 */

/** What a bare repository is made of (git-discovery.ts reads HEAD with objects or commondir). */
const REPOSITORY_NAMES = new Set(['HEAD', 'objects', 'refs', 'config', 'commondir', 'packed-refs']);
const CREATES = new Set(['fs.write', 'fs.touch', 'fs.mkdir', 'fs.edit']);
const RELOCATES = new Set(['fs.move', 'fs.copy', 'fs.link']);

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Every folder the kernel passes through to reach an absolute path, and the path itself, as it
 * reads the path one name at a time (`.` stays, `..` goes back up): `/app/./src/../.bashrc`
 * passes through `/app/src`, which a comparison of strings would miss (red team, session 31).
 */
function traversed(path: string): string[] {
  const stack: string[] = [];
  const states: string[] = [];
  for (const name of path.split('/')) {
    if (name === '' || name === '.') continue;
    if (name === '..') stack.pop();
    else stack.push(name);
    states.push(`/${stack.join('/')}`);
  }
  return states;
}

/** The path as the kernel ends up naming it (lexically). */
const settled = (path: string): string => traversed(path).at(-1) ?? '/';
/** Strictly below: both are settled (lexical, no trailing `/`). */
const under = (path: string, folder: string): boolean => path !== folder && isUnderComparable(path, folder);

function destination(action: OracleAction): string | undefined {
  return action.tool === 'fs.link' ? text(action.args['path']) : text(action.args['to']);
}

/** Every path an action names: what it reads, writes, moves, links to, and where a program runs. */
function pathsOf(action: OracleAction): string[] {
  return ['path', 'from', 'to', 'target', 'cwd'].flatMap((key) => text(action.args[key]) ?? []);
}

/** Why the line must run in parts, or undefined when every part means the same before and after. */
export function judgedTooEarly(actions: readonly OracleAction[]): string | undefined {
  for (const [g, run] of actions.entries()) {
    const cwd = text(run.args['cwd']);
    if (run.tool !== 'exec.run' || run.args['program'] !== 'git' || cwd === undefined) continue;
    // git looks for its repository in its folder and each one above: what is made there counts.
    const at = settled(cwd);
    const above = (folder: string): boolean => isUnderComparable(at, folder);
    const planting = actions.slice(0, g).find((a) => {
      const raw = RELOCATES.has(a.tool) ? destination(a) : CREATES.has(a.tool) ? text(a.args['path']) : undefined;
      if (raw === undefined) return false;
      const made = settled(raw);
      const named = REPOSITORY_NAMES.has(basename(made)) && above(dirname(made));
      return named || (RELOCATES.has(a.tool) && above(made));
    });
    if (planting !== undefined) {
      return `git finds its repository when it starts, after \`${planting.tool}\` of \`${destination(planting) ?? text(planting.args['path']) ?? ''}\` earlier in this line may have made one where it looks: run git on its own`;
    }
  }
  for (const [i, change] of actions.entries()) {
    if (!RELOCATES.has(change.tool)) continue;
    const written = destination(change);
    if (written === undefined) continue;
    const landing = settled(written);
    // A copied file is a plain file (`cp a b && cat b`); a moved or new link, and whatever is below
    // a copied folder, may lead elsewhere: judged wherever a later path passes through it.
    const reaches = (path: string): boolean => {
      const states = traversed(path);
      return states.some((state, n) => under(state, landing) || (state === landing && (change.tool !== 'fs.copy' || n < states.length - 1)));
    };
    const later = actions.slice(i + 1).find((a) => pathsOf(a).some(reaches));
    if (later !== undefined) {
      return `\`${later.tool}\` of \`${pathsOf(later).find(reaches) ?? ''}\` is judged before this line runs, but \`${change.tool}\` to \`${landing}\` earlier in it changes what that names: run them one at a time`;
    }
  }
  return undefined;
}
