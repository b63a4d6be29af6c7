import { descendants, literalWord, type BashTree } from './bash-ast.js';

/** The glob rg puts above every ignore file, which leaves out every dot-name. */
export const RG_NO_DOTS = "-g '!.*'";

/**
 * rg skips dot-names by default, but a `!name` line in an ignore file takes one back (.gitignore,
 * .ignore or .rgignore, any of which an agent may write: `printf '!.env' > .rgignore; rg KEY`
 * printed .env, red team session 37), so ORACLE never counts on that skip (tree-search-argv.ts).
 * It makes it certain instead: each `rg` that is a command's literal name and does not ask for
 * dot-names itself gets `-g '!.*'` right after its name, a glob rg weighs above every ignore file.
 * Claude Code then runs that command (the hook's `updatedInput`), judged as it runs. An rg that
 * asks for dot-names (`--hidden`, `-.`, `-uu`, an include glob, an argument ORACLE cannot read)
 * is left as written, and the gate weighs every dot-name it reaches. Undefined when no rg changes.
 * Pure.
 */
export function rgWithoutDots(tree: BashTree): string | undefined {
  const at: number[] = [];
  for (const node of descendants(tree.root)) {
    if (node.type !== 'command') continue;
    const name = node.children.find((c) => c.field === 'name');
    if (name === undefined || name.text !== 'rg' || name.children.length !== 1 || name.children[0]?.type !== 'word') continue;
    const args = node.children.filter((c) => c.field === 'argument').map((c) => {
      const word = literalWord(c);
      return word.ok ? word.value : undefined;
    });
    if (!asksForDots(args)) at.push(name.end);
  }
  if (at.length === 0) return undefined;
  let text = tree.source;
  // From the end, so earlier offsets stay where they were.
  for (const end of at.sort((a, b) => b - a)) text = `${text.slice(0, end)} ${RG_NO_DOTS}${text.slice(end)}`;
  return text;
}

/** rg's short options that take a value (the rest of their token, or the next argument). */
const VALUE_LETTERS = new Set(['e', 'f', 'g', 't', 'T', 'm', 'A', 'B', 'C', 'd', 'M', 'j', 'E', 'r']);

/** Whether an rg argv asks for dot-names, or may: then it is left as written. */
function asksForDots(args: readonly (string | undefined)[]): boolean {
  let unrestricted = 0;
  const globAsks = (glob: string | undefined): boolean => glob === undefined || !glob.startsWith('!') || glob === '!.*';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) return true;
    if (arg === '--') break;
    if (arg === '--hidden' || arg === '--unrestricted') {
      if (arg === '--hidden') return true;
      unrestricted += 1;
    } else if (arg === '-g' || arg === '--glob' || arg === '--iglob') {
      if (globAsks(args[i + 1])) return true;
      i += 1;
    } else if (arg.startsWith('--glob=') || arg.startsWith('--iglob=')) {
      if (globAsks(arg.slice(arg.indexOf('=') + 1))) return true;
    } else if (/^-[^-]/u.test(arg)) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg.charAt(j);
        if (letter === '.') return true;
        if (letter === 'u') unrestricted += 1;
        if (!VALUE_LETTERS.has(letter)) continue;
        const value = j < arg.length - 1 ? arg.slice(j + 1) : args[++i];
        if (letter === 'g' && globAsks(value)) return true;
        break;
      }
    }
  }
  return unrestricted >= 2;
}
