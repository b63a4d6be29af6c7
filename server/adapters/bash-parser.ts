import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TreeSitter from 'web-tree-sitter';
import type { Node, Parser } from 'web-tree-sitter';
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
  try {
    const root = convert(tree.rootNode, undefined, 0);
    if (root === undefined) return { error: `command nests deeper than ${MAX_DEPTH} levels` };
    return { root, hasError: tree.rootNode.hasError, source };
  } finally {
    tree.delete();
  }
}

function convert(node: Node, field: string | undefined, depth: number): BashNode | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const children: BashNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child === null) continue;
    const converted = convert(child, node.fieldNameForChild(i) ?? undefined, depth + 1);
    if (converted === undefined) return undefined;
    children.push(converted);
  }
  // A MISSING node is an error tree-sitter papered over; keep it visible as ERROR.
  const type = node.isMissing ? 'ERROR' : node.type;
  return { type, text: node.text, named: node.isNamed, start: node.startIndex, end: node.endIndex, ...(field === undefined ? {} : { field }), children };
}
