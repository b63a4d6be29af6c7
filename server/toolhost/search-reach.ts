import { dirname, join, relative } from 'node:path';
import { probe } from '../adapters/agent/files.js';
import { walkTreeAsync } from '../adapters/agent/tree-walk.js';
import { effectivelyHonoursIgnores, searcherSkips, type HiddenReach, type SearchReach, type TreeSearch } from '../core/hook/tree-search.js';
import { foreignFolder, foreignPath } from '../core/lifecycle/provenance-of.js';
import type { ScopedPath } from '../core/paths/scope.js';
import type { ToolhostEnv } from './env.js';
import { ignoredByGit } from './executors/git.js';
import { whyUnread } from './sandbox-masks.js';

/** Entries walked before giving up on knowing (the sandbox's mask walk stops at the same count). */
export const MAX_REACH_WALK = 100_000;
/** Hidden entries and dependency folders collected for git to weigh; past it, git is not asked. */
const MAX_CANDIDATES = 200;
/** Ignore files only rg reads, which can take back what .gitignore ignores (`!.env`). */
const RG_IGNORE_FILES: ReadonlySet<string> = new Set(['.ignore', '.rgignore']);

const NOTHING: SearchReach = { hidden: [], foreign: undefined, unknown: undefined };

/**
 * Walks the tree the way the searcher would (no links, what its options skip skipped), without
 * entering what the policy hides or a dependency folder: their own deny_always names are a
 * package's test fixtures, not the user's credentials (as for the sandbox's masks). Then, for a
 * searcher that honours .gitignore, git says which of the hidden entries and dependency folders
 * it ignores, unless an rg-only ignore file could take that back.
 */
export async function searchReach(start: ScopedPath, search: TreeSearch, env: ToolhostEnv): Promise<SearchReach> {
  if (probe(start.real) !== 'dir') return NOTHING;
  const hidden: HiddenReach[] = [];
  const foreign: { path: string; name: string }[] = [];
  let unknown: string | undefined;
  let rgIgnoreFile = search.by === 'rg' || search.by === 'Grep' ? hasRgIgnoreAbove(start) : false;
  const inside = foreignPath(start.real);
  const walked = await walkTreeAsync(
    start.real,
    (entry) => {
      // An ignore file counts whatever it is: a link to one is read as well.
      if (RG_IGNORE_FILES.has(entry.name)) rgIgnoreFile = true;
      if (entry.kind === 'link') {
        if (!search.follows) return 'skip';
        unknown = `it follows links, and \`${entry.path}\` is one`;
        return 'stop';
      }
      if (searcherSkips(search, { name: entry.name, kind: entry.kind })) return 'skip';
      const hides = whyUnread(env.gate, entry.path);
      if (hides !== undefined) {
        hidden.push({ path: entry.path, name: entry.name, kind: entry.kind, ...hides, ...(byName(env.gate.denied(entry.path)?.pattern) ? { anywhere: true } : {}) });
        return 'skip';
      }
      if (entry.kind === 'dir' && !inside && foreignFolder(entry.name)) {
        foreign.push({ path: entry.path, name: entry.name });
        return 'skip';
      }
      return 'descend';
    },
    MAX_REACH_WALK,
  );
  if (unknown === undefined && !walked.complete) unknown = `there are more than ${String(MAX_REACH_WALK)} entries below \`${start.real}\``;
  if (unknown !== undefined) return { hidden, foreign: foreign[0]?.path, unknown };
  const weighed = [...hidden, ...foreign];
  const found = { hidden, foreign: foreign[0]?.path, unknown };
  if (!effectivelyHonoursIgnores(search) || weighed.length === 0) return found;
  // The searcher skips what the repository ignores: git says which of these that is, or why it was not asked.
  const unweighed = (why: string): SearchReach => ({ ...found, ...(hidden.length === 0 ? {} : { unweighed: why }) });
  if (rgIgnoreFile) return unweighed('an .ignore or .rgignore file here can take back what .gitignore ignores, so ORACLE does not count on it');
  if (!env.runs) return unweighed('no ORACLE gate is running to ask git which of them the repository ignores');
  if (weighed.length > MAX_CANDIDATES) return unweighed(`git is not asked about more than ${String(MAX_CANDIDATES)} of them`);
  const asked = (e: { path: string }): string => relative(start.real, e.path);
  const ignored = await ignoredByGit(start, weighed.map(asked), env);
  if (ignored === undefined) return unweighed('git could not say which of them the repository ignores (no repository here?)');
  // git and rg read a few ignore globs differently (`dev.[[:alpha:]]ey`: git ignores it, rg searches
  // it; red team, session 37): for a Bash rg, git's word spares only the dependency folders' taint,
  // and what the policy hides is left out by the rg's own options (search-rewrite.ts) or refused.
  const stillHidden = search.by === 'rg' ? hidden : hidden.filter((e) => !ignored.has(asked(e)));
  return { hidden: stillHidden, foreign: foreign.find((e) => !ignored.has(asked(e)))?.path, unknown };
}

/** An .ignore or .rgignore in the starting folder's parents (rg reads those too). */
function hasRgIgnoreAbove(start: ScopedPath): boolean {
  for (let dir = dirname(start.real); ; dir = dirname(dir)) {
    if ([...RG_IGNORE_FILES].some((name) => probe(join(dir, name)) !== 'missing')) return true;
    if (dirname(dir) === dir) return false;
  }
}

/**
 * Whether a deny_always pattern names entries by their name alone, wherever they are: a name or a
 * glob of one (`.env`, `*.pem`), bare or after a leading `**` folder. A pattern with a folder in it
 * (`.claude/settings.json` below any folder, anything below `.ssh`) does not: another entry of
 * that name may be readable (review, session 36: `settings.json` of src/ had been left out of a
 * search).
 */
function byName(pattern: string | undefined): boolean {
  if (pattern === undefined) return false;
  const name = pattern.startsWith('**/') ? pattern.slice(3) : pattern;
  return name !== '' && !name.includes('/') && name !== '**';
}
