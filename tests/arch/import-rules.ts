import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import ts from 'typescript';
import type { SourceFile } from './source-files.js';

/**
 * The import rules of SPEC §2 and STYLE 13, checked on the syntax tree of every file (not with
 * regexes): static, dynamic and `require` imports, type-only ones included.
 */
export interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly rule: string;
}

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
/** APIs that spawn, write files or open sockets: adapters only (SPEC §1.4). */
const SIDE_EFFECT_MODULES = new Set(['fs', 'fs/promises', 'child_process', 'net', 'tls', 'dgram', 'http', 'https', 'http2', 'cluster', 'worker_threads', 'inspector'].flatMap((m) => [m, `node:${m}`]));
const CORE_PACKAGES = new Set(['yaml', 'zod', 'picomatch', 'canonicalize']);
// canonicalize: the server and the PWA must hash and sign the same RFC 8785 bytes.
const SHARED_PACKAGES = new Set(['zod', 'canonicalize']);

export function importsOf(file: SourceFile): { specifier: string; dynamic: boolean }[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const out: { specifier: string; dynamic: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ specifier: node.moduleSpecifier.text, dynamic: false });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      out.push({ specifier: node.moduleReference.expression.text, dynamic: false });
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const arg = node.arguments[0];
      out.push(arg !== undefined && ts.isStringLiteralLike(arg) ? { specifier: arg.text, dynamic: true } : { specifier: '<computed>', dynamic: true });
    } else if (ts.isIdentifier(node) && node.text === 'createRequire') {
      out.push({ specifier: '<createRequire>', dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

// Tests and benchmarks measure the product from outside, and build scripts (scripts/, the PWA's
// vite config) run before it exists; they may set up files and sockets.
const isTest = (path: string): boolean => path.startsWith('tests/') || path.startsWith('bench/') || path.startsWith('scripts/') || /\.test\.ts$/u.test(path) || /^[^/]+\.config\.ts$/u.test(path);
const under = (path: string, dir: string): boolean => path.startsWith(`${dir}/`);

function target(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return posix.normalize(posix.join(posix.dirname(from), specifier));
}

export function checkImports(files: readonly SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const test = isTest(file.path);
    for (const { specifier } of importsOf(file)) {
      const v = (rule: string) => violations.push({ file: file.path, specifier, rule });
      const to = target(file.path, specifier);
      const builtin = BUILTINS.has(specifier);
      const pkg = to === undefined && !builtin ? specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/') : undefined;
      if (specifier.startsWith('<') && !test && !under(file.path, 'server/adapters')) v('computed imports and createRequire hide what is imported');
      if (to !== undefined && under(to, 'tests') && !test) v('nothing outside tests imports tests');
      if (test) continue;
      if (under(file.path, 'server/core')) {
        if (builtin) v('core is pure: no node:* import');
        if (to !== undefined && !under(to, 'server/core') && !under(to, 'shared')) v('core imports only core and shared');
        if (pkg !== undefined && !CORE_PACKAGES.has(pkg)) v(`core may use only ${[...CORE_PACKAGES].join(', ')}`);
      }
      if (under(file.path, 'shared')) {
        if (builtin) v('shared is portable: no node:* import');
        if (to !== undefined && !under(to, 'shared')) v('shared imports only shared');
        if (pkg !== undefined && !SHARED_PACKAGES.has(pkg)) v(`shared may use only ${[...SHARED_PACKAGES].join(', ')}`);
      }
      if (under(file.path, 'pwa') && to !== undefined && under(to, 'server')) v('pwa never imports server');
      if (under(file.path, 'pwa') && builtin) v('pwa runs in a browser: no node:* import');
      if (under(file.path, 'server/http') && to !== undefined && under(to, 'server/adapters')) v('http never imports adapters');
      // The application layer (server/app): the composition of gate, approvals, taint, events and
      // HALT. It uses the layers below it; the edges (http, cli, mcp, the server's main and its
      // pieces in server/serve) use it.
      const edge = (path: string): boolean => under(path, 'server/http') || under(path, 'server/cli') || under(path, 'server/mcp') || under(path, 'server/serve') || /^server\/main\.[jt]s$/u.test(path);
      if (under(file.path, 'server/app') && to !== undefined && edge(to)) v('app never imports the edges (http, cli, mcp, serve, main)');
      const below = under(file.path, 'server/core') || under(file.path, 'server/adapters') || under(file.path, 'server/toolhost') || under(file.path, 'shared') || under(file.path, 'pwa');
      if (below && to !== undefined && under(to, 'server/app')) v('core, adapters, toolhost, shared and pwa never import app');
      if (SIDE_EFFECT_MODULES.has(specifier) && !under(file.path, 'server/adapters')) v('only server/adapters touches fs, child_process and sockets');
      // Agent work (spawning, writing files, opening sockets for an agent) has one way in: the toolhost.
      if (to !== undefined && under(to, 'server/adapters/agent') && !under(file.path, 'server/toolhost') && !under(file.path, 'server/adapters/agent')) {
        v('only the toolhost uses the agent adapters (one execution boundary)');
      }
    }
  }
  return violations;
}
