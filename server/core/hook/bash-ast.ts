/**
 * The plain, serialisable form of a tree-sitter-bash syntax tree (SPEC §11, Claude Code hook) and
 * the one place that decides whether a shell word is a literal string. Pure: the parser itself lives
 * in server/adapters/bash-parser.ts.
 */
export interface BashNode {
  readonly type: string;
  readonly text: string;
  /** Anonymous nodes are tokens (`;`, `&&`, `>`); their type is their text. */
  readonly named: boolean;
  readonly field?: string;
  readonly children: readonly BashNode[];
}

export interface BashTree {
  readonly root: BashNode;
  /** tree-sitter recovered from a syntax error somewhere: the tree cannot be trusted. */
  readonly hasError: boolean;
  readonly source: string;
}

/** A synchronous parser, injected into the pure planner to re-parse `bash -c STRING`. */
export type ParseBashSync = (source: string) => BashTree | { readonly error: string };

export type WordValue = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: string };

interface Char {
  readonly c: string;
  readonly quoted: boolean;
}

const DYNAMIC: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  simple_expansion: 'parameter expansion',
  expansion: 'parameter expansion',
  command_substitution: 'command substitution',
  process_substitution: 'process substitution',
  arithmetic_expansion: 'arithmetic expansion',
  brace_expression: 'brace expansion',
  translated_string: 'locale string $"…"',
});

const fail = (reason: string): WordValue => ({ ok: false, reason });

/** Single-quoted text: every character is literal (UTF-16 units, rejoined unchanged). */
function quoted(text: string): Char[] {
  const out: Char[] = [];
  for (let i = 0; i < text.length; i++) out.push({ c: text.charAt(i), quoted: true });
  return out;
}

/** Unquoted text: a backslash quotes the next character; backslash-newline disappears. */
function unquoted(text: string): Char[] {
  const out: Char[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '\\' && i + 1 < text.length) {
      i++;
      if (text.charAt(i) !== '\n') out.push({ c: text.charAt(i), quoted: true });
    } else out.push({ c, quoted: false });
  }
  return out;
}

/** Inside double quotes a backslash only escapes $ ` " \ and newline (bash manual, 3.1.2.3). */
function doubleQuoted(text: string): Char[] {
  const out: Char[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    const next = text.charAt(i + 1);
    if (c === '\\' && '$`"\\\n'.includes(next) && next !== '') {
      i++;
      if (next !== '\n') out.push({ c: next, quoted: true });
    } else out.push({ c, quoted: true });
  }
  return out;
}

function chars(node: BashNode): Char[] | string {
  const dynamic = DYNAMIC[node.type];
  if (dynamic !== undefined) return `${dynamic} \`${node.text}\``;
  switch (node.type) {
    case 'word':
    case 'number':
      return unquoted(node.text);
    case 'raw_string':
      return quoted(node.text.slice(1, -1));
    case 'ansi_c_string': {
      const body = node.text.slice(2, -1);
      // Escapes like $'\x72m' spell another word; only the escape-free form is trusted.
      return body.includes('\\') ? `ANSI-C escape \`${node.text}\`` : quoted(body);
    }
    case 'string': {
      const out: Char[] = [];
      for (const child of node.children) {
        if (!child.named) continue;
        const heredoc = child.type === 'command_substitution' ? heredocCat(child) : undefined;
        if (heredoc !== undefined) {
          out.push(...quoted(heredoc));
          continue;
        }
        if (child.type !== 'string_content') return `${DYNAMIC[child.type] ?? child.type} \`${child.text}\` inside quotes`;
        out.push(...doubleQuoted(child.text));
      }
      return out;
    }
    case 'concatenation': {
      const out: Char[] = [];
      for (const child of node.children) {
        const part = chars(child);
        if (typeof part === 'string') return part;
        out.push(...part);
      }
      return out;
    }
    default:
      return `unsupported word \`${node.text}\` (${node.type})`;
  }
}

/**
 * What `"$(cat <<'EOF' … EOF)"` prints, or undefined for any other substitution. A here-document
 * whose delimiter is quoted is not expanded (bash manual, 3.6.6), `cat` prints it unchanged, and
 * the substitution drops the trailing newlines (3.5.4); inside double quotes nothing splits it.
 * Claude Code writes every commit message in this form. The `cat` inside is still judged as a
 * command by the planner.
 */
export function heredocCat(node: BashNode): string | undefined {
  const inner = namedChildren(node);
  const statement = inner[0];
  if (inner.length !== 1 || statement?.type !== 'redirected_statement') return undefined;
  const parts = namedChildren(statement);
  const [body, redirect] = parts;
  if (parts.length !== 2 || body?.type !== 'command' || body.text !== 'cat' || redirect?.type !== 'heredoc_redirect') return undefined;
  if (redirect.children.filter((c) => !c.named).map((c) => c.type).join('') !== '<<') return undefined;
  const [start, text, end, ...rest] = namedChildren(redirect);
  const delimiter = /^'([A-Za-z_][A-Za-z0-9_]*)'$/u.exec(start?.type === 'heredoc_start' ? start.text : '')?.[1];
  if (delimiter === undefined || rest.length > 0 || text?.type !== 'heredoc_body' || end?.type !== 'heredoc_end' || end.text !== delimiter) return undefined;
  if (namedChildren(text).some((c) => c.type !== 'heredoc_content')) return undefined;
  return text.text.replace(/\n+$/u, '');
}

/** Brace expansion needs an unquoted `{` … `,` or `..` … `}`. */
function hasBraceExpansion(cs: readonly Char[]): boolean {
  let open = -1;
  for (let i = 0; i < cs.length; i++) {
    const ch = cs[i];
    if (ch === undefined || ch.quoted) continue;
    if (ch.c === '{') open = i;
    else if (ch.c === '}' && open >= 0) {
      const inner = cs.slice(open + 1, i);
      if (inner.some((x, j) => !x.quoted && (x.c === ',' || (x.c === '.' && inner[j + 1]?.c === '.')))) return true;
      open = -1;
    }
  }
  return false;
}

/**
 * A word with an unquoted glob: what the shell passes when nothing matches (`value`, quotes
 * removed) and the pattern it matches names against. zsh's extended operators count (`^x`, `x#`:
 * under EXTENDED_GLOB `cat .e#nv` reads `.env`), and zsh's `~` exclusion is cut off, because it
 * only takes names away.
 */
export interface GlobWord {
  readonly value: string;
  /** Quoted characters escaped by a backslash (tilde already expanded): for glob-expand.ts. */
  readonly pattern: string;
}

export type ShellWord = { readonly ok: true; readonly value: string; readonly glob?: GlobWord } | { readonly ok: false; readonly reason: string };

/** Characters a pattern must escape to keep them literal. */
const PATTERN_SPECIAL = new Set(['\\', '*', '?', '[', ']', '^', '#', '~', '/']);

/**
 * The value of a word and, when it holds an unquoted glob, the pattern; or why it is neither.
 * Brace and tilde expansion beyond `~/` and every `$` form depend on the environment, which the
 * gate cannot see; zsh's `=name` (EQUALS, on by default) becomes the path of a program.
 */
export function shellWord(node: BashNode, home?: string): ShellWord {
  const cs = chars(node);
  if (typeof cs === 'string') return fail(cs);
  if (hasBraceExpansion(cs)) return fail(`brace expansion \`${node.text}\``);
  const first = cs[0];
  if (first !== undefined && !first.quoted && first.c === '=' && cs.length > 1) return fail(`zsh expands \`${node.text}\` to the path of a program`);
  let value = '';
  let pattern = '';
  let glob = false;
  let cut = -1;
  for (let i = 0; i < cs.length; i++) {
    const ch = cs[i];
    if (ch === undefined) continue;
    const prev = cs[i - 1];
    // Tilde prefixes: word start, and after an unquoted `=` or `:` (bash expands `--x=~/y` too).
    const tildePos = i === 0 || (prev !== undefined && !prev.quoted && (prev.c === '=' || prev.c === ':'));
    if (ch.c === '~' && !ch.quoted && tildePos) {
      const next = cs[i + 1];
      if (home === undefined || (next !== undefined && next.c !== '/' && next.c !== ':')) return fail(`tilde expansion \`${node.text}\``);
      value += home;
      for (const c of home) pattern += PATTERN_SPECIAL.has(c) && c !== '/' ? `\\${c}` : c;
      continue;
    }
    if (ch.c === '$' && !ch.quoted) return fail(`unquoted \`$\` in \`${node.text}\``);
    value += ch.c;
    if (ch.quoted) {
      pattern += PATTERN_SPECIAL.has(ch.c) && ch.c !== '/' ? `\\${ch.c}` : ch.c;
      continue;
    }
    if (ch.c === '*' || ch.c === '?' || ch.c === '[' || ch.c === '^' || (ch.c === '#' && i > 0)) glob = true;
    if (ch.c === '~' && cut < 0) cut = pattern.length;
    // Unquoted characters keep their meaning; a `#` only as a word's first character is text.
    pattern += ch.c === '#' && i === 0 ? '\\#' : ch.c;
  }
  if (!glob) return { ok: true, value };
  return { ok: true, value, glob: { value, pattern: cut < 0 ? pattern : pattern.slice(0, cut) } };
}

/** The literal value of a word, or why it is not one: a glob too makes it depend on the file system. */
export function literalWord(node: BashNode, home?: string): WordValue {
  const word = shellWord(node, home);
  if (!word.ok) return word;
  if (word.glob !== undefined) return fail(`glob \`${node.text}\` could match files`);
  return { ok: true, value: word.value };
}

/** Every node of the subtree, depth first (the node itself first). */
export function* descendants(node: BashNode): Generator<BashNode> {
  yield node;
  for (const child of node.children) yield* descendants(child);
}

export const namedChildren = (node: BashNode): BashNode[] => node.children.filter((c) => c.named);
export const fieldChildren = (node: BashNode, field: string): BashNode[] => node.children.filter((c) => c.field === field);
