import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OracleError } from '../../shared/oracle-error.js';
import { APPROVAL_CODES, EGRESS_CODES, EXEC_ERROR_CODES, GATE_CODES, isOracleCode } from '../../shared/outcome-codes.js';
import { DENY_CODES } from '../../shared/deny-codes.js';
import { HTTP_ERROR_CODES } from '../../shared/http-errors.js';
import { APPROVAL_REFUSALS } from '../../server/core/approvals/approval.js';
import { AuditWriteError } from '../../server/adapters/audit/appender.js';
import { HomeFileError } from '../../server/adapters/home-file-error.js';
import { LockedError } from '../../server/adapters/runtime-lock.js';
import { SecretStoreError } from '../../server/adapters/secrets/errors.js';
import { RedactionError } from '../../server/core/redact/errors.js';
import { GateUnavailable } from '../../server/mcp/gate.js';
import { sourceFiles, type SourceFile } from './source-files.js';

/**
 * One error vocabulary (issue 18, STYLE): every error class ORACLE defines derives from
 * OracleError, whose code is one of the closed set in shared/outcome-codes.ts, the same set
 * results and HTTP answers carry. Read from the source, so a new `extends Error` fails here.
 */
function errorClasses(file: SourceFile): { name: string; base: string; at: string }[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const found: { name: string; base: string; at: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.heritageClauses !== undefined) {
      for (const clause of node.heritageClauses) {
        if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
        for (const type of clause.types) {
          const base = type.expression.getText(source);
          if (/(?:^|\.)(?:Error|TypeError|RangeError)$/u.test(base)) found.push({ name: node.name?.text ?? '(anonymous)', base, at: `${file.path}:${String(source.getLineAndCharacterOfPosition(node.getStart()).line + 1)}` });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('one error vocabulary', () => {
  it('has one base: no class of ORACLE’s own extends Error except OracleError', () => {
    const ours = sourceFiles().filter((f) => /^(?:server|shared|pwa\/src)\//u.test(f.path) && !/\.test\.ts$/u.test(f.path));
    const direct = ours.flatMap(errorClasses).filter((c) => c.name !== 'OracleError');
    expect(direct).toEqual([]);
  });

  it('catches a class that does (the check above is not vacuous)', () => {
    const planted = { path: 'server/planted.ts', text: 'export class Oops extends Error {}\nclass Fine extends OracleError {}\n' };
    expect(errorClasses(planted).map((c) => c.name)).toEqual(['Oops']);
  });

  it('is one closed set holding every family: denials, approvals, executions, egress, the gate, HTTP', () => {
    for (const family of [DENY_CODES, APPROVAL_CODES, APPROVAL_REFUSALS, EXEC_ERROR_CODES, EGRESS_CODES, GATE_CODES, HTTP_ERROR_CODES]) for (const code of family) expect(isOracleCode(code), code).toBe(true);
    expect(isOracleCode('SOMETHING_ELSE')).toBe(false);
  });

  it('is what the errors carry', () => {
    const errors: OracleError[] = [
      new AuditWriteError('disk full', true),
      new HomeFileError('/h/data/x.json', 'not JSON', 'move it away'),
      new LockedError(42),
      new SecretStoreError('wrong_owner', 'owned by someone else'),
      new RedactionError('too_deep', 'nested too deep'),
      new GateUnavailable('no gate'),
    ];
    for (const e of errors) {
      expect(e).toBeInstanceOf(OracleError);
      expect(isOracleCode(e.code), e.code).toBe(true);
    }
    expect(errors.map((e) => e.code)).toEqual(['AUDIT_WRITE_FAILED', 'HOME_FILE_CORRUPT', 'HOME_IN_USE', 'wrong_owner', 'too_deep', 'GATE_UNREACHABLE']);
  });
});
