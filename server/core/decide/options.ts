/**
 * How argv spells options, for the deny side of every check: git, npm and most CLI parsers take
 * any unambiguous prefix of a long option (`--upload-pa` is `--upload-pack`) and bundle short
 * flags (`-xdf` is `-x -d -f`). A refusal must see through both; an allow never does.
 */

/** `--name` or `--name=value` names `option` exactly or as a prefix git would expand. */
export function spellsLongOption(token: string, option: string): boolean {
  if (!token.startsWith('--') || token === '--') return false;
  const name = token.split('=')[0] ?? token;
  return name === option || (name.length >= 3 && option.startsWith(name));
}

/** The letters of every bundled short-flag token (`-ix` → i, x); values attached count too. */
export function shortLetters(argv: readonly string[]): Set<string> {
  const letters = new Set<string>();
  for (const token of argv) {
    if (/^-[^-]/u.test(token)) for (const c of token.slice(1)) letters.add(c);
  }
  return letters;
}

/** Whether an option of a grammar entry (`--hard`, `-fdx`, `-f`) appears in argv, leniently. */
export function optionPresent(option: string, argv: readonly string[]): boolean {
  if (option.startsWith('--')) return argv.some((t) => spellsLongOption(t, option));
  if (/^-[^-]/u.test(option)) {
    const have = shortLetters(argv);
    return Array.from(option.slice(1)).every((c) => have.has(c));
  }
  return argv.includes(option);
}
