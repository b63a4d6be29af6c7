import { descendants, fieldChildren, literalWord, type BashTree } from './bash-ast.js';
import { MAX_LEFT_OUT } from './search-rewrite.js';
import { excludedFromTop, PATHSPEC_TAKERS } from '../decide/git-prints.js';


/**
 * A `git show`, `git log -p`, `git diff REV` or `git grep` that would print a file the policy
 * hides from what git stores (core/decide/git-prints.ts) is refused as written. The hook offers
 * the command with those files left out by excluding pathspecs after its last argument (after a
 * `--` it adds when there is none): each `git` that is a command's literal name, with a literal
 * subcommand git reads pathspecs for. The gate judges the changed command afresh (git is asked
 * again) and Claude Code runs it only when that is allowed, so what runs is what was judged. Pure.
 *
 * Undefined when no git command qualifies or too many files would be left out.
 */
export function gitWithout(tree: BashTree, hidden: readonly string[], home?: string): string | undefined {
  if (hidden.length === 0 || hidden.length > MAX_LEFT_OUT) return undefined;
  const exclusions = [...new Set(hidden)].map(excludedFromTop).join(' ');
  const at: { readonly end: number; readonly text: string }[] = [];
  for (const node of descendants(tree.root)) {
    if (node.type !== 'command') continue;
    const name = fieldChildren(node, 'name')[0];
    if (name === undefined || name.children.length !== 1 || name.children[0]?.type !== 'word' || name.text !== 'git') continue;
    const args = fieldChildren(node, 'argument');
    const words = args.map((a) => literalWord(a, home));
    const first = words[0];
    if (first?.ok !== true || !PATHSPEC_TAKERS.has(first.value) || words.some((w) => !w.ok)) continue;
    const values = words.map((w) => (w.ok ? w.value : ''));
    // grep skips a `--` before its pattern: only a later one ends its revisions.
    const skipped = first.value === 'grep' && !values.some((v) => /^(?:-e|--regexp|-f|--file)/u.test(v)) && values.findIndex((v, i) => i > 0 && (v === '--' || !v.startsWith('-'))) === values.indexOf('--');
    const ended = values.filter((v) => v === '--').length > (skipped ? 1 : 0);
    const last = args.at(-1) ?? name;
    at.push({ end: last.end, text: ended ? ` ${exclusions}` : ` -- ${exclusions}` });
  }
  if (at.length === 0) return undefined;
  let text = tree.source;
  // From the end, so earlier offsets stay where they were.
  for (const { end, text: added } of [...at].sort((a, b) => b.end - a.end)) text = `${text.slice(0, end)}${added}${text.slice(end)}`;
  return text;
}
