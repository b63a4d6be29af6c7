/**
 * Whether an awk program only computes text from its input and prints it (SPEC §11: a command is
 * allowed only on what the analysis fully accounts for). awk can also run commands (`system()`,
 * `print | "cmd"`, `"cmd" | getline`, gawk's `|&`), write files (`print > "f"`, `printf … >> f`),
 * read other files (`getline < f`, a changed `ARGV`, gawk's message catalogues), see the
 * environment (`ENVIRON`) and, in gawk, load code (`@load`, `@include`) or call a function named by
 * a string (`@f()`). This reads the program's tokens as awk does and names the first thing it cannot
 * vouch for; anything it cannot read for sure (a `/` that one awk takes for division and another
 * for a pattern) is refused, never guessed.
 *
 * The awks disagree at the edges (`length / 2` is a division to gawk and an unterminated pattern to
 * mawk; `if (c) /re/` a pattern to gawk and a syntax error to mawk). A program one awk rejects runs
 * nothing there (awk reads the whole program before running any of it), so what matters is that no
 * awk that accepts a program reads code where this reads a string, a pattern or a comment.
 */

/** Names that reach beyond the input: refused wherever they appear, even inside a string. */
const REACHING = /\b(?:system|getline|ENVIRON|PROCINFO|SYMTAB|FUNCTAB|ARGV|ARGC|bindtextdomain|dcgettext|dcngettext)\b/u;

/** Keywords after which a `/` opens a pattern (they start or continue an expression). */
const PATTERN_AFTER = new Set(['print', 'printf', 'return', 'case', 'exit', 'in', 'do', 'else']);
/** Keywords whose parenthesised condition is followed by a statement, which may be a bare pattern. */
const CONTROL = new Set(['if', 'while', 'for']);

type Previous = 'operand' | 'operator' | 'length';

export function unsafeAwkProgram(program: string): string | undefined {
  const reaching = REACHING.exec(program);
  if (reaching !== null) return `\`${reaching[0]}\`, which ${reachingWhy(reaching[0])}`;
  const at = (k: number): string => program.charAt(k);
  let previous: Previous = 'operator';
  let lastName = '';
  /** Open parentheses and brackets; true for the `(` of an if/while/for condition. */
  const open: boolean[] = [];
  /** The depth at which a print or printf statement began, while inside one. */
  let printAt: number | undefined;
  let i = 0;
  while (i < program.length) {
    const c = at(i);
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && at(i + 1) === '\n') {
      i += 2;
      continue;
    }
    if (c === '#') {
      while (i < program.length && at(i) !== '\n') i++;
      continue;
    }
    if (c === '\n') {
      // A newline ends a print statement only after an operand: after `,`, `&&` or an operator
      // awk reads on (gawk also after `?` and `:`), and reading on is the safe side here.
      if (printAt !== undefined && previous === 'operand' && open.length === printAt) printAt = undefined;
      if (previous !== 'operand' || open.length === 0) previous = 'operator';
      i++;
      continue;
    }
    if (c === '"') {
      const end = quoted(program, i);
      if (end === undefined) return 'a string that does not end on its line';
      i = end;
      previous = 'operand';
      lastName = '';
      continue;
    }
    if (c === '/' && previous !== 'operand') {
      if (previous === 'length') return '`length /`, a division to gawk and a pattern to mawk';
      const end = pattern(program, i);
      if (typeof end === 'string') return end;
      i = end;
      previous = 'operand';
      lastName = '';
      continue;
    }
    if (/[A-Za-z_]/u.test(c)) {
      const start = i;
      while (/\w/u.test(at(i))) i++;
      lastName = program.slice(start, i);
      if (lastName === 'print' || lastName === 'printf') printAt ??= open.length;
      previous = lastName === 'length' ? 'length' : PATTERN_AFTER.has(lastName) || CONTROL.has(lastName) ? 'operator' : 'operand';
      continue;
    }
    if (/[0-9.]/u.test(c)) {
      while (/[\w.]/u.test(at(i)) || (/[+-]/u.test(at(i)) && /[eE]/u.test(at(i - 1)) && /\d/u.test(at(i - 2)))) i++;
      previous = 'operand';
      lastName = '';
      continue;
    }
    i++;
    switch (c) {
      case '(':
      case '[':
        open.push(c === '(' && CONTROL.has(lastName) && previous === 'operator');
        previous = 'operator';
        break;
      case ')':
      case ']': {
        // After an if/while/for condition comes a statement, which may be a bare /pattern/.
        const control = open.pop() ?? false;
        if (printAt !== undefined && open.length < printAt) printAt = undefined;
        previous = control ? 'operator' : 'operand';
        break;
      }
      case '@':
        return '`@` (gawk loads extensions and files with `@load` and `@include`, and `@name()` calls a function a string names)';
      case '|':
        if (at(i) !== '|') return '`|`, which pipes to or from a command';
        i++;
        previous = 'operator';
        break;
      case '>':
        if (printAt !== undefined && open.length === printAt) return '`print … >`, which writes to a file';
        previous = 'operator';
        break;
      case ';':
      case '{':
      case '}':
        if (printAt !== undefined && open.length === printAt) printAt = undefined;
        previous = 'operator';
        break;
      case '+':
      case '-':
        // `x++ / 2` divides; `++x` and `+ /re/` are followed by an operand.
        if (at(i) === c && previous === 'operand') {
          i++;
          previous = 'operand';
        } else previous = 'operator';
        break;
      case '$':
        previous = 'operator';
        break;
      default:
        previous = 'operator';
    }
    if (c !== ')' && c !== ']') lastName = '';
  }
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
      return 'reads a file or a command\'s output';
    case 'ENVIRON':
      return 'reads the environment';
    case 'ARGV':
    case 'ARGC':
      return 'can change which files awk reads';
    default:
      return 'reaches beyond the input';
  }
}

/** Index just past the string opening at `k`, or undefined when it does not end on its line. */
function quoted(text: string, k: number): number | undefined {
  for (let j = k + 1; j < text.length; j++) {
    const c = text.charAt(j);
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
    else if (c === '\n') return undefined;
  }
  return undefined;
}

/**
 * Index just past the /pattern/ opening at `k`, or why it cannot be read for sure. gawk and mawk
 * read a `/` inside a bracket expression as part of it, the one true awk (macOS) as the end: such a
 * pattern is refused rather than read one way.
 */
function pattern(text: string, k: number): number | string {
  let bracket = false;
  for (let j = k + 1; j < text.length; j++) {
    const c = text.charAt(j);
    if (c === '\n') return 'a pattern that does not end on its line';
    if (c === '\\') j++;
    else if (bracket) {
      if (c === ']') bracket = false;
      else if (c === '/') return 'a `/` inside a bracket expression of a pattern, which the awks read differently';
    } else if (c === '[') {
      bracket = true;
      // `[]…]` and `[^]…]`: a `]` first is a member.
      if (text.charAt(j + 1) === '^') j++;
      if (text.charAt(j + 1) === ']') j++;
    } else if (c === '/') return j + 1;
  }
  return 'a pattern that does not end';
}
