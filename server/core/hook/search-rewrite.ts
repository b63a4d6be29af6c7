import { descendants, type BashTree } from './bash-ast.js';
import { exclusionAdvice, type EntryKind } from './tree-search.js';
import { plainGlob } from './search-glob.js';

/** Past this many names to leave out, the search is refused as written: its advice says how. */
export const MAX_LEFT_OUT = 12;

/** The searchers whose own exclusion options ORACLE spells (tree-search.ts `exclusionAdvice`). */
const SEARCHERS: Readonly<Record<string, 'grep' | 'rg'>> = { grep: 'grep', egrep: 'grep', fgrep: 'grep', rg: 'rg' };

/**
 * A project-wide `grep -r` or `rg` that reaches what no agent may read (every repository has its
 * `.git`; most projects a `.env`) is refused as written, with advice on how to leave those out.
 * An agent searches that way dozens of times an hour (Claude Code's own guidance sends it to grep
 * through Bash), so the hook offers the command with the exclusions already in it: each `grep`,
 * `egrep`, `fgrep` or `rg` that is a command's literal name gets them right after its name, where
 * every grep (GNU, BSD, ugrep) and rg read options. The gate judges the changed command afresh,
 * reach and all, and Claude Code runs it only when that is allowed (the hook's `updatedInput`), so
 * what runs is what was judged. The gate offers only names hidden wherever they are (a deny_always
 * rule on the name alone), so leaving them out changes no result the agent could have had. Pure.
 *
 * Undefined when no searcher qualifies or too many names would be left out.
 */
export function searchWithout(tree: BashTree, hidden: readonly { readonly name: string; readonly kind: EntryKind }[]): string | undefined {
  if (hidden.length === 0) return undefined;
  const unique = new Set(hidden.map((e) => `${e.kind}:${e.name}`));
  if (unique.size > MAX_LEFT_OUT) return undefined;
  // A name a glob cannot say plainly would be advised as a wider `*` glob: not offered.
  if (hidden.some((e) => plainGlob(e.name) !== e.name)) return undefined;
  const at: { readonly end: number; readonly options: string }[] = [];
  for (const node of descendants(tree.root)) {
    if (node.type !== 'command') continue;
    const name = node.children.find((c) => c.field === 'name');
    if (name === undefined || name.children.length !== 1 || name.children[0]?.type !== 'word') continue;
    const by = SEARCHERS[name.text];
    if (by !== undefined) at.push({ end: name.end, options: exclusionAdvice(by, hidden) });
  }
  if (at.length === 0) return undefined;
  let text = tree.source;
  // From the end, so earlier offsets stay where they were.
  for (const { end, options } of [...at].sort((a, b) => b.end - a.end)) text = `${text.slice(0, end)} ${options}${text.slice(end)}`;
  return text;
}
