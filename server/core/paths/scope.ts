import { isOracleHome, ORACLE_HOME_RULE, type CompiledPolicy, type CompiledRoot } from '../policy/compile.js';
import { isUnder, relativeTo } from './canonical.js';
import { pathFail, pathOk, type PathResult } from './result.js';

export interface ScopedPath {
  readonly root: CompiledRoot;
  readonly lexical: string;
  readonly real: string;
}

/**
 * SPEC §5 steps 10 and 11 for one canonicalised path. deny_always and the ORACLE home are checked
 * on both the lexical and the resolved form: a link named `.git/hooks` that points elsewhere is
 * still where git looks for hooks. The scope is decided by the resolved form, which is what the
 * executor touches.
 */
export function matchScope(compiled: CompiledPolicy, lexical: string, real: string, access: 'read' | 'write'): PathResult<ScopedPath> {
  for (const path of [lexical, real]) {
    if (isOracleHome(compiled, path)) {
      return pathFail('PATH_DENY_ALWAYS', `\`${path}\` is inside ORACLE's own home (${ORACLE_HOME_RULE})`, ORACLE_HOME_RULE);
    }
    const rule = compiled.denied(path);
    if (rule !== undefined) return pathFail('PATH_DENY_ALWAYS', `\`${path}\` matches deny_always \`${rule.pattern}\` (${rule.rule})`, rule.rule);
  }
  const { flavor } = compiled.host;
  const root = compiled.roots.find((r) => isUnder(real, r.real, flavor));
  if (root === undefined) return pathFail('PATH_OUTSIDE_SCOPE', `\`${real}\` is not under any scope root`, 'scopes');
  const relatives = [relativeTo(real, root.real)];
  if (isUnder(lexical, root.path, flavor)) relatives.push(relativeTo(lexical, root.path));
  for (const relative of relatives) {
    const pattern = root.excluded(relative);
    if (pattern !== undefined) return pathFail('PATH_EXCLUDED', `\`${real}\` matches exclude \`${pattern}\` of ${root.rule}`, root.rule);
  }
  if (access === 'write' && root.mode === 'ro') return pathFail('SCOPE_READ_ONLY', `${root.rule} (scope ${root.scope}) is read-only`, root.rule);
  return pathOk({ root, lexical, real });
}
