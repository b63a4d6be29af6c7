/**
 * Which arguments of `git commit …` are its message: text git stores and never reads as a path or
 * runs (`-m MSG`, `-amMSG`, `--message=MSG`), so the argv judge does not split it into words to
 * look for paths or ask a person for its second line, as it does for a script (`sh -c`), and as
 * the git.commit intent, T1 with any message text (SPEC §4), never did. Read exactly as git's
 * parse-options reads it; at the first option it does not know (one that may take the next word
 * as its value, an abbreviation) it stops, so every later argument is judged in full.
 */
const BOOLEAN_SHORT = /^-[aenqsvziop]+$/u;
/** `-m`, bundled after boolean letters (`-am`), with its value attached or not (`-amWIP`). */
const SHORT_MESSAGE = /^-[aenqsvziop]*m(.*)$/su;
const BOOLEAN_LONG = new Set([
  '--all', '--amend', '--no-verify', '--verify', '--signoff', '--no-signoff', '--edit', '--no-edit', '--quiet', '--verbose',
  '--allow-empty', '--allow-empty-message', '--no-gpg-sign', '--dry-run', '--short', '--branch', '--porcelain', '--long',
  '--null', '--include', '--only', '--patch', '--interactive', '--reset-author', '--status', '--no-status',
]);
/** Options whose value is the next word: skipped as a value, and judged as such. */
const VALUE_NEXT = new Set(['-C', '-c', '-F', '-t', '--reuse-message', '--reedit-message', '--fixup', '--squash', '--author', '--date', '--file', '--template', '--cleanup', '--trailer', '--pathspec-from-file']);

export function commitMessageArgs(argv: readonly string[]): ReadonlySet<number> {
  const text = new Set<number>();
  if (argv[0] !== 'commit') return text;
  for (let i = 1; i < argv.length; i++) {
    const token = argv[i] ?? '';
    if (token === '--') break; // pathspecs only from here
    if (!token.startsWith('-') || token === '-') continue; // a pathspec
    const short = SHORT_MESSAGE.exec(token);
    if (token === '--message' || (short !== null && short[1] === '')) {
      if (i + 1 < argv.length) text.add(i + 1);
      i++;
    } else if (token.startsWith('--message=') || short !== null) text.add(i);
    else if (VALUE_NEXT.has(token)) i++;
    else if (!BOOLEAN_SHORT.test(token) && !BOOLEAN_LONG.has(token) && !/^--[a-z-]+=/u.test(token)) return text;
  }
  return text;
}
