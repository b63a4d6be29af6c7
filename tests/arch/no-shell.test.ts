import { ESLint } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { NO_SHELL_IMPORTS, NO_SHELL_SYNTAX } from '../../eslint.config.js';
import { REPO, sourceFiles, type SourceFile } from './source-files.js';

/**
 * SPEC §6: no shell, ever. A lint rule is one comment away from advice, so this test reads the
 * source itself, and also fails when anyone disables or weakens the rule (seed 001).
 */
const SHELLS = /^(?:\/(?:usr\/)?bin\/)?(?:sh|bash|zsh|dash|ksh|fish|cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh)$/iu;
const RULES = ['no-restricted-syntax', 'no-restricted-imports'];

function shellUses(file: SourceFile): string[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node) => `${file.path}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && node.name.getText() === 'shell' && node.initializer.kind !== ts.SyntaxKind.FalseKeyword) found.push(`${at(node)} shell option`);
    if (ts.isShorthandPropertyAssignment(node) && node.name.text === 'shell') found.push(`${at(node)} shell option`);
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(?:node:)?child_process$/u.test(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      if (clause?.name !== undefined) found.push(`${at(node)} default import of child_process`);
      const bindings = clause?.namedBindings;
      if (bindings !== undefined && ts.isNamespaceImport(bindings)) found.push(`${at(node)} namespace import of child_process`);
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) if (/^(?:exec|execSync)$/u.test((el.propertyName ?? el.name).text)) found.push(`${at(node)} imports ${el.name.text}`);
      }
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (name === 'execSync') found.push(`${at(node)} execSync call`);
      const first = node.arguments[0];
      if (/^(?:spawn|spawnSync|execFile|execFileSync|fork)$/u.test(name) && first !== undefined && ts.isStringLiteralLike(first) && SHELLS.test(first.text)) {
        found.push(`${at(node)} spawns a shell (${first.text})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function disables(file: SourceFile): string[] {
  const found: string[] = [];
  file.text.split('\n').forEach((line, i) => {
    const comment = /\/[/*]\s*eslint(?:-disable(?:-next-line|-line)?)?\b(.*)/u.exec(line);
    if (comment === null) return;
    const rest = comment[1] ?? '';
    const kind = /eslint-disable/u.test(comment[0]) ? 'disable' : 'inline config';
    const ruleList = (rest.split('--')[0] ?? '').replace(/\*\/.*$/u, '');
    if (kind === 'inline config' || ruleList.trim() === '' || RULES.some((r) => ruleList.includes(r))) found.push(`${file.path}:${i + 1} ${kind}: ${line.trim()}`);
  });
  return found;
}

const THIS_FILE = 'tests/arch/no-shell.test.ts';

describe('no shell (SPEC §6)', () => {
  const files = sourceFiles().filter((f) => f.path !== THIS_FILE && f.path !== 'eslint.config.js');

  it('no source file spawns through a shell or imports exec/execSync', () => {
    expect(files.flatMap(shellUses)).toEqual([]);
  });

  it('no source file disables the no-shell lint rules, or lint wholesale', () => {
    expect(files.flatMap(disables)).toEqual([]);
  });

  it('the source reader catches each form', () => {
    const probe = (text: string) => shellUses({ path: 'probe.ts', text });
    expect(probe("spawn('git', [], { shell: true });")).toHaveLength(1);
    expect(probe("spawn('git', [], { shell: '/bin/sh' });")).toHaveLength(1);
    expect(probe('const shell = true; spawn("git", [], { shell });')).toHaveLength(1);
    expect(probe("import { exec } from 'node:child_process';")).toHaveLength(1);
    expect(probe("import { execSync as run } from 'child_process';")).toHaveLength(1);
    expect(probe("import * as cp from 'node:child_process';")).toHaveLength(1);
    expect(probe("cp.execSync('ls');")).toHaveLength(1);
    expect(probe("spawn('/bin/bash', ['-c', 'ls']);")).toHaveLength(1);
    expect(probe("execFile('cmd.exe', ['/c', 'dir']);")).toHaveLength(1);
    expect(probe("spawn('git', ['status'], { shell: false }); /x/u.exec('y');")).toEqual([]);
    const dis = (text: string) => disables({ path: 'probe.ts', text });
    expect(dis('// eslint-disable-next-line no-restricted-syntax -- because')).toHaveLength(1);
    expect(dis('/* eslint-disable */')).toHaveLength(1);
    expect(dis('/* eslint no-restricted-syntax: off */')).toHaveLength(1);
    expect(dis('// eslint-disable-next-line no-control-regex -- matching controls is the point')).toEqual([]);
  });

  it('the lint rules are configured as errors for every source directory', async () => {
    const eslint = new ESLint({ cwd: REPO });
    for (const path of ['server/adapters/x.ts', 'server/toolhost/x.ts', 'shared/x.ts', 'pwa/x.ts', 'tests/x.test.ts']) {
      const config = (await eslint.calculateConfigForFile(path)) as { rules: Record<string, unknown[]> };
      const syntax = config.rules['no-restricted-syntax'];
      const imports = config.rules['no-restricted-imports'];
      expect(syntax?.[0], path).toBe(2);
      expect(syntax?.slice(1), path).toEqual(expect.arrayContaining(NO_SHELL_SYNTAX));
      expect(imports?.[0], path).toBe(2);
    }
  });

  it('the configured selectors flag shell use when linted', async () => {
    const eslint = new ESLint({
      cwd: REPO,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-restricted-syntax': ['error', ...NO_SHELL_SYNTAX], 'no-restricted-imports': ['error', NO_SHELL_IMPORTS] } },
      ],
    });
    const code = [
      "import { spawn, exec } from 'node:child_process';",
      "import * as cp from 'node:child_process';",
      "spawn('git', ['status'], { shell: true });",
      "exec('ls');",
      "cp.execSync('ls');",
      "spawn('git', ['status'], { shell: false });",
    ].join('\n');
    const [result] = await eslint.lintText(code, { filePath: 'probe.ts' });
    const lines = [...new Set((result?.messages ?? []).map((m) => m.line))].sort();
    expect(lines).toEqual([1, 2, 3, 4, 5]);
  });
});
