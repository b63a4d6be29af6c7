/**
 * Whether an awk program only computes text from its input and prints it (SPEC §11: a command is
 * allowed only on what the analysis fully accounts for). awk can also run commands (`system()`,
 * `print | "cmd"`, `"cmd" | getline`, gawk's `|&`), write files (`print > "f"`, `printf … >> f`),
 * read other files (`getline < f`, a changed `ARGV`, gawk's message catalogues), see the
 * environment (`ENVIRON`) and, in gawk, load code (`@load`, `@include`) or call a function named by
 * a string (`@f()`).
 *
 * Read on the raw text, with no tokenizer, on purpose. A first version tokenized the program and
 * skipped what it took for strings and /patterns/; the awks disagree on where a pattern starts and
 * ends (`1 /= /`, `1e+/x/`, `x++ /x/`, `[[:alpha:]/]`, `case` a keyword to gawk and a variable to
 * mawk, a backslash before CR LF, a form feed), and every disagreement hid a `print … | "sh"` inside
 * "a pattern" (red team, session 32). So nothing is skipped: a name that reaches beyond the input
 * is refused wherever it appears, in a string or a comment too, and so is any `>` or pipe anywhere
 * after the first `print` or `printf`, since a redirection always follows its print. That refuses
 * a few harmless programs (`{ print (a > b) }`, `{ print "a|b" }`); none that only reads is run
 * unread.
 */

/** Names that reach beyond the input: refused wherever they appear, even inside a string. */
const REACHING = /\b(?:system|getline|ENVIRON|PROCINFO|SYMTAB|FUNCTAB|ARGV|ARGC|bindtextdomain|dcgettext|dcngettext)\b/u;
const PRINT = /\bprintf?\b/u;
/** A redirection after a print: `>`, `>>`, a pipe `|`, `|&`; `||` is or. Runs of bars other than two are pipes too (`|||` is `||` `|`). */
const REDIRECTION = />|(?<!\|)\|(?:\|\|)*(?!\|)/u;

export function unsafeAwkProgram(program: string): string | undefined {
  // A line continuation joins nothing in a name here (gawk and mawk split `pri\⏎nt`), but it is
  // removed first anyway, so a keyword cut in two is still seen as one.
  const text = program.replace(/\\\r?\n/gu, '');
  const reaching = REACHING.exec(text);
  if (reaching !== null) return `\`${reaching[0]}\`, which ${reachingWhy(reaching[0])}`;
  if (text.includes('@')) return '`@` (gawk loads extensions and files with `@load` and `@include`, and `@name()` calls a function a string names)';
  const print = PRINT.exec(text);
  if (print === null) return undefined;
  const after = REDIRECTION.exec(text.slice(print.index));
  if (after !== null) return after[0] === '>' ? '`print … >`, which writes to a file (any `>` after a print is refused: awk reads it as one where a comparison is not in parentheses)' : '`print … |`, which pipes to a command (any single `|` after a print is refused)';
  return undefined;
}

/** Why a `-v NAME=value` or an operand assignment cannot be vouched for, if it cannot. */
export function unsafeAwkAssignment(assignment: string): string | undefined {
  const name = /^([A-Za-z_]\w*)=/u.exec(assignment)?.[1];
  if (name === undefined) return `\`${assignment}\`, which is not an assignment awk takes`;
  return REACHING.test(name) ? `an assignment to \`${name}\`, which ${reachingWhy(name)}` : undefined;
}

function reachingWhy(name: string): string {
  switch (name) {
    case 'system':
      return 'runs a command';
    case 'getline':
      return "reads a file or a command's output";
    case 'ENVIRON':
      return 'reads the environment';
    case 'ARGV':
    case 'ARGC':
      return 'can change which files awk reads';
    default:
      return 'reaches beyond the input';
  }
}
