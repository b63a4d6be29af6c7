import type { BashNode, BashTree } from './bash-ast.js';

/**
 * `npx NAME …` downloads NAME from the registry and runs it when no installed copy exists, so a
 * policy asks a person for it; `npx --yes=false NAME …` never downloads (npm 7
 * and later refuse to download), which the shipped policy runs unasked for the project's own dev
 * tools. An agent writes the first for what it means as the second (`npx tsc --noEmit` after every
 * edit): the hook offers the command with `--yes=false` after every `npx` that is a command's
 * literal name and is followed by the package name (not by an option of npx's own), and the gate
 * takes it only when that makes the call run unasked. Claude Code then runs the changed command
 * (the hook's `updatedInput`), so what runs is what was judged. Pure.
 *
 * Undefined when no `npx` qualifies. `npx` reached another way (`timeout 60 npx …`, `bash -c "npx …"`,
 * a quoted or built name) is left as written and judged as written.
 */
export const NPX_NO_DOWNLOAD = '--yes=false';

export function npxWithoutDownload(tree: BashTree): string | undefined {
  const at: number[] = [];
  visit(tree.root, (node) => {
    if (node.type !== 'command') return;
    const name = node.children.find((c) => c.field === 'name');
    if (name === undefined || name.text !== 'npx' || name.children.length !== 1 || name.children[0]?.type !== 'word') return;
    const first = node.children.find((c) => c.field === 'argument' && c.start >= name.end);
    // Bare `npx` is interactive; an option first is npx's own, written on purpose.
    if (first === undefined || first.text.startsWith('-')) return;
    at.push(name.end);
  });
  if (at.length === 0) return undefined;
  let text = tree.source;
  // From the end, so earlier offsets stay where they were.
  for (const end of at.sort((a, b) => b - a)) text = `${text.slice(0, end)} ${NPX_NO_DOWNLOAD}${text.slice(end)}`;
  return text;
}

function visit(node: BashNode, see: (node: BashNode) => void): void {
  see(node);
  for (const child of node.children) visit(child, see);
}
