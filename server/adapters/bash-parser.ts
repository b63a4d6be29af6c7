import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TreeSitter from 'web-tree-sitter';
import type { Parser, TreeCursor } from 'web-tree-sitter';
import { lazyModule } from './lazy-module.js';
import type { BashNode, BashTree, ParseBashSync } from '../core/hook/bash-ast.js';
import { tooCostlyToParse } from '../core/hook/shell-cost.js';

/**
 * tree-sitter-bash behind a plain, serialisable tree (SPEC §11: Bash command strings are parsed by
 * a real shell parser, never trusted). The grammar is loaded once per process.
 */
const MAX_SOURCE = 100_000;
const MAX_DEPTH = 500;
const PARSE_DEADLINE_MS = 1_000;

let loading: Promise<ParseBashSync> | undefined;
/** Loaded with the grammar, not at the top: a hook call that parses no command never loads it. */
const treeSitter = lazyModule<typeof TreeSitter>('web-tree-sitter');

export function loadBashParser(): Promise<ParseBashSync> {
  loading ??= (async () => {
    const { Language, Parser } = treeSitter();
    await Parser.init();
    // createRequire only to locate the grammar's .wasm file inside its package (adapters only).
    const wasm = join(dirname(createRequire(import.meta.url).resolve('tree-sitter-bash/package.json')), 'tree-sitter-bash.wasm');
    const language = await Language.load(wasm);
    const parser = new Parser();
    parser.setLanguage(language);
    return (source: string) => parseWith(parser, source);
  })();
  return loading;
}

export async function parseBash(source: string): Promise<BashTree | { error: string }> {
  return (await loadBashParser())(source);
}

function parseWith(parser: Parser, source: string): BashTree | { error: string } {
  if (source.length > MAX_SOURCE) return { error: `command longer than ${MAX_SOURCE} characters` };
  if (source.includes('\0')) return { error: 'command contains a NUL byte' };
  const costly = tooCostlyToParse(source);
  if (costly !== undefined) return { error: costly };
  // A deadline besides (tree-sitter asks the callback between steps; true cancels), and a
  // cancelled parse is forgotten, or the next one would resume it.
  const deadline = performance.now() + PARSE_DEADLINE_MS;
  const tree = parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
  if (tree === null) {
    parser.reset();
    return { error: `the command took more than ${String(PARSE_DEADLINE_MS)} ms to parse` };
  }
  const cursor = tree.walk();
  try {
    const root = convert(cursor, undefined, 0, source);
    if (root === undefined) return { error: `command nests deeper than ${MAX_DEPTH} levels` };
    return { root, hasError: tree.rootNode.hasError, source };
  } finally {
    cursor.delete();
    tree.delete();
  }
}

/**
 * The node under the cursor and everything below it, read with the cursor: Node#child(i) walks
 * from the first child each time, quadratic in a node's children (20,000 `if a` lines took 8 s
 * after a parse of 0.4 s: red team, session 31).
 */
function convert(cursor: TreeCursor, field: string | undefined, depth: number, source: string): BashNode | undefined {
  if (depth > MAX_DEPTH) return undefined;
  // A MISSING node is an error tree-sitter papered over; keep it visible as ERROR.
  const type = cursor.nodeIsMissing ? 'ERROR' : cursor.nodeType;
  const { startIndex: start, endIndex: end } = cursor;
  const named = cursor.nodeIsNamed;
  const children: BashNode[] = [];
  if (cursor.gotoFirstChild()) {
    do {
      const converted = convert(cursor, cursor.currentFieldName ?? undefined, depth + 1, source);
      if (converted === undefined) return undefined;
      children.push(converted);
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }
  return { type, text: source.slice(start, end), named, start, end, ...(field === undefined ? {} : { field }), children };
}
