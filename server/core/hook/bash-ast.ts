import { trimEnd } from '../../../shared/trim-end.js';
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
  /** Where the node starts and ends in the source (the parser's units): words that touch are one word to a shell. */
  readonly start: number;
  readonly end: number;
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
  return trimEnd(text.text, '\n');
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

/**
 * A word zsh's BRACE_CCL option (off by default) expands: `.{e}nv` is `.env`, `x{ab}y` the two
 * words `xay xby`, `@{u}` is `@u`. bash and zsh without the option keep it as written (`value`).
 */
export interface CclWord {
  readonly value: string;
  readonly words: readonly string[];
}

export type ShellWord = { readonly ok: true; readonly value: string; readonly glob?: GlobWord; readonly ccl?: CclWord } | { readonly ok: false; readonly reason: string };

/** Characters a pattern must escape to keep them literal. */
const PATTERN_SPECIAL = new Set(['\\', '*', '?', '[', ']', '^', '#', '~', '/']);
/** What a BRACE_CCL group may hold to be judged (ranges like `a-c` included), and how many letters. */
const CCL_CHAR = /^[A-Za-z0-9_.@%+:]$/u;
const MAX_CCL_WORDS = 16;

/**
 * The value of a word and, when it holds an unquoted glob, the pattern; or why it is neither.
 * Brace and tilde expansion beyond `~/` at a word's start and every `$` form depend on the
 * environment, which the gate cannot see; zsh's `=name` (EQUALS, on by default) becomes the path
 * of a program.
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
  let midTilde = false;
  for (let i = 0; i < cs.length; i++) {
    const ch = cs[i];
    if (ch === undefined) continue;
    const prev = cs[i - 1];
    if (ch.c === '~' && !ch.quoted && i === 0) {
      const next = cs[i + 1];
      if (home === undefined || (next !== undefined && next.c !== '/')) return fail(`tilde expansion \`${node.text}\``);
      value += home;
      for (const c of home) pattern += PATTERN_SPECIAL.has(c) && c !== '/' ? `\\${c}` : c;
      continue;
    }
    // bash expands `a=~/x` but not `--a=~/x` or `a:~/x`; zsh only with MAGIC_EQUAL_SUBST.
    if (ch.c === '~' && !ch.quoted && prev !== undefined && !prev.quoted && (prev.c === '=' || prev.c === ':')) return fail(`\`~\` after \`${prev.c}\` in \`${node.text}\`, which shells expand differently`);
    if (ch.c === '$' && !ch.quoted) return fail(`unquoted \`$\` in \`${node.text}\``);
    value += ch.c;
    if (ch.quoted) {
      pattern += PATTERN_SPECIAL.has(ch.c) && ch.c !== '/' ? `\\${ch.c}` : ch.c;
      continue;
    }
    if (ch.c === '*' || ch.c === '?' || ch.c === '[' || ch.c === '^' || (ch.c === '#' && i > 0)) glob = true;
    if (ch.c === '~') midTilde = true;
    // Unquoted characters keep their meaning; a `#` only as a word's first character is text.
    pattern += ch.c === '#' && i === 0 ? '\\#' : ch.c;
  }
  const ccl = braceCcl(cs);
  if (typeof ccl === 'string') return fail(ccl);
  if (!glob) return { ok: true, value, ...(ccl === undefined ? {} : { ccl: { value, words: ccl } }) };
  // zsh's EXTENDED_GLOB reads `a~b` as a minus b, bash as a name with a `~`.
  if (midTilde) return fail(`glob \`${node.text}\` with a \`~\` (zsh takes names away, bash matches it)`);
  if (ccl !== undefined) return fail(`glob \`${node.text}\` with braces zsh may expand (BRACE_CCL)`);
  return { ok: true, value, glob: { value, pattern } };
}

/**
 * The words zsh's BRACE_CCL makes of a word with one unquoted `{…}` group that is not a brace
 * expansion, undefined when there is none (an empty `{}` stays), or why it cannot be judged.
 */
function braceCcl(cs: readonly Char[]): readonly string[] | undefined | string {
  const open = cs.findIndex((ch, i) => !ch.quoted && ch.c === '{' && !(cs[i + 1]?.c === '}' && cs[i + 1]?.quoted === false));
  if (open < 0) return undefined;
  const close = cs.findIndex((ch, i) => i > open && !ch.quoted && ch.c === '}');
  if (close < 0) return undefined;
  const text = cs.map((ch) => ch.c).join('');
  const inner = cs.slice(open + 1, close);
  const rest = cs.slice(close + 1);
  if (inner.some((ch) => ch.quoted || ch.c === '{') || rest.some((ch, i) => !ch.quoted && ch.c === '{' && !(rest[i + 1]?.c === '}' && rest[i + 1]?.quoted === false))) {
    return `\`${text}\` holds braces zsh may expand (BRACE_CCL)`;
  }
  const letters = new Set<string>();
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]?.c ?? '';
    const to = inner[i + 2]?.c;
    if (inner[i + 1]?.c === '-' && to !== undefined && CCL_CHAR.test(c) && CCL_CHAR.test(to) && c <= to) {
      for (let code = c.charCodeAt(0); code <= to.charCodeAt(0) && letters.size <= MAX_CCL_WORDS; code++) letters.add(String.fromCharCode(code));
      i += 2;
    } else if (CCL_CHAR.test(c)) letters.add(c);
    else return `\`${text}\` holds braces zsh may expand (BRACE_CCL) to characters the gate does not follow`;
  }
  if (letters.size > MAX_CCL_WORDS) return `\`${text}\` holds braces zsh may expand (BRACE_CCL) to more than ${String(MAX_CCL_WORDS)} words`;
  const before = cs.slice(0, open).map((ch) => ch.c).join('');
  const after = rest.map((ch) => ch.c).join('');
  return [...letters].map((l) => `${before}${l}${after}`);
}

/** The literal value of a word, or why it is not one: a glob too makes it depend on the file system. */
export function literalWord(node: BashNode, home?: string): WordValue {
  return wordValue(node, home, 'expanded');
}

/**
 * The value an assignment's word gives the variable: as `literalWord`, except that a glob stays
 * the text it is. Neither bash nor zsh (without GLOB_ASSIGN) expands a pattern in an assignment:
 * `DEBUG=app:* npm test` sets DEBUG to `app:*` (Claude Code probe, session 36, had it asked about).
 */
export function assignedWord(node: BashNode, home?: string): WordValue {
  return wordValue(node, home, 'text');
}

function wordValue(node: BashNode, home: string | undefined, glob: 'expanded' | 'text'): WordValue {
  const word = shellWord(node, home);
  if (!word.ok) return word;
  if (glob === 'expanded' && word.glob !== undefined) return fail(`glob \`${node.text}\` could match files`);
  if (word.ccl !== undefined) return fail(`zsh's BRACE_CCL reads \`${node.text}\` as ${word.ccl.words.map((w) => `\`${w}\``).join(' ')}`);
  return { ok: true, value: word.value };
}

/** Every node of the subtree, depth first (the node itself first). */
export function* descendants(node: BashNode): Generator<BashNode> {
  yield node;
  for (const child of node.children) yield* descendants(child);
}

export const namedChildren = (node: BashNode): BashNode[] => node.children.filter((c) => c.named);
export const fieldChildren = (node: BashNode, field: string): BashNode[] => node.children.filter((c) => c.field === field);
