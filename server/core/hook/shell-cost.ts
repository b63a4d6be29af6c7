/**
 * What a command costs the shell parser before it is parsed. tree-sitter's time grows faster than
 * the command where the shell's own structure is dense: 20,000 `a|` (40 KB) took 23 s and 2 GB of
 * the gate's one thread and its parser's memory, then aborted the parser for every later call
 * (red team, session 31). Here the operators are counted in one pass; a command with more than a
 * person would ever write is not parsed at all, and Claude Code's own prompt asks about it.
 *
 * The count skips quoted text, comments and the bodies of here-documents whose delimiter is
 * quoted (a file written with `cat > x <<'EOF'`), which tree-sitter reads as plain text. A second,
 * looser limit counts every operator character wherever it stands, so a misreading here (what
 * looked like a here-document was not one to tree-sitter) cannot hide a dense command: at it, the
 * worst measured (a broken pipeline) stops at the parser's 1 s deadline with about 500 MB of
 * parser memory. A here-document larger than that is a question too. Pure.
 */
export const MAX_OPERATORS = 1_000;
export const MAX_OPERATOR_CHARACTERS = 6_000;

/** Here-documents one line may open whose bodies are skipped; past it they are counted. */
const MAX_PENDING = 16;

const OPERATOR = new Set(['|', '&', ';', '(', ')', '{', '}', '`', '<', '>', '[', ']']);

/** Why the command is too costly to parse, or undefined. */
export function tooCostlyToParse(source: string): string | undefined {
  let everywhere = 0;
  for (let i = 0; i < source.length; i++) if (OPERATOR.has(source.charAt(i))) everywhere += 1;
  if (everywhere > MAX_OPERATOR_CHARACTERS) return `the command holds ${String(everywhere)} shell operator characters, more than the ${String(MAX_OPERATOR_CHARACTERS)} ORACLE analyses`;
  const outside = structuralOperators(source);
  if (outside > MAX_OPERATORS) return `the command has ${String(outside)} shell operators outside quotes and here-documents, more than the ${String(MAX_OPERATORS)} ORACLE analyses`;
  return undefined;
}

function structuralOperators(source: string): number {
  let count = 0;
  // Quoted here-document delimiters waiting for the end of the current line.
  const pending: string[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = source.indexOf("'", i + 1);
      i = end < 0 ? source.length : end + 1;
      continue;
    }
    if (c === '"') {
      i = closingDoubleQuote(source, i + 1);
      continue;
    }
    if (c === '#' && (i === 0 || /\s/u.test(source.charAt(i - 1)))) {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
      continue;
    }
    if (c === '\n') {
      i = skipBodies(source, i + 1, pending);
      pending.length = 0;
      continue;
    }
    if (c === '<' && source.charAt(i + 1) === '<' && source.charAt(i + 2) !== '<') {
      const delimiter = /^<<-?[ \t]*(['"])([A-Za-z0-9_.-]+)\1/u.exec(source.slice(i, i + 300));
      if (delimiter !== null && pending.length < MAX_PENDING) pending.push(delimiter[2] ?? '');
    }
    if (OPERATOR.has(c)) count += 1;
    i += 1;
  }
  return count;
}

function closingDoubleQuote(source: string, from: number): number {
  let i = from;
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i += 1;
  }
  return source.length;
}

/**
 * After a line that opened quoted here-documents, their bodies: skipped only when each one's
 * closing line is there (otherwise counted as anything else). Returns where counting goes on.
 */
function skipBodies(source: string, from: number, delimiters: readonly string[]): number {
  let at = from;
  for (const delimiter of delimiters) {
    const close = new RegExp(`^[\\t]*${delimiter.replace(/[.]/gu, '\\.')}$`, 'mu');
    const rest = source.slice(at);
    const found = close.exec(rest);
    if (found === null) return from;
    at += found.index + found[0].length;
  }
  return at;
}
