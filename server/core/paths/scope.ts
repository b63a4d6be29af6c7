import { protectionOf, protectionWithin, type CompiledPolicy, type CompiledRoot } from '../policy/compile.js';
import { isUnderComparable, relativeTo } from './canonical.js';
import { comparable } from './flavor.js';
import { pathFail, pathOk, type PathFailure, type PathResult } from './result.js';

/** `delete` is a write that also must not take anything protected with it. */
export type Access = 'read' | 'write' | 'delete';

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
export function matchScope(compiled: CompiledPolicy, lexical: string, real: string, access: Access): PathResult<ScopedPath> {
  const denied = guardFor(compiled, lexical, access) ?? (real === lexical ? undefined : guardFor(compiled, real, access));
  if (denied !== undefined) return denied;
  const { flavor } = compiled.host;
  const comparableReal = comparable(real, flavor);
  const root = longestRoot(compiled, comparableReal);
  if (root === undefined) return pathFail('PATH_OUTSIDE_SCOPE', `\`${real}\` is not under any scope root`, 'scopes');
  if (root.exclude.length > 0) {
    const relatives = [relativeTo(real, root.real)];
    if (isUnderComparable(comparable(lexical, flavor), root.comparablePath)) relatives.push(relativeTo(lexical, root.path));
    for (const relative of relatives) {
      const pattern = root.excluded(relative);
      if (pattern !== undefined) return pathFail('PATH_EXCLUDED', `\`${real}\` matches exclude \`${pattern}\` of ${root.rule}`, root.rule);
    }
  }
  // Only what is inside a root may go: the root itself is the boundary a person drew.
  if (access === 'delete' && comparableReal === root.comparableReal) return pathFail('SCOPE_ROOT', `\`${real}\` is the root of ${root.rule}; deleting it is not an agent's call`, root.rule);
  if (access !== 'read' && root.mode === 'ro') return pathFail('SCOPE_READ_ONLY', `${root.rule} (scope ${root.scope}) is read-only`, root.rule);
  return pathOk({ root, lexical, real });
}

/** The longest root that contains the path wins (step 10); indexed by the path's ancestors. */
function longestRoot(compiled: CompiledPolicy, comparableReal: string): CompiledRoot | undefined {
  return compiled.rootOf(comparableReal);
}

/**
 * Step 11 for one form of the path: ORACLE's own files, then deny_always. The same checks give
 * the same answer for the same string, so a path with no links is checked once, not twice.
 */
function guardFor(compiled: CompiledPolicy, path: string, access: Access): PathFailure | undefined {
  const guard = protectionOf(compiled, path);
  if (guard !== undefined) {
    const what = guard.everything ? `\`${guard.lexical}\` could not be canonicalised, so every path is protected` : `\`${path}\` is ORACLE's own`;
    return pathFail('PATH_DENY_ALWAYS', `${what} (${guard.rule})`, guard.rule);
  }
  if (access === 'delete') {
    const inside = protectionWithin(compiled, path);
    if (inside !== undefined) return pathFail('PATH_DENY_ALWAYS', `deleting \`${path}\` would delete \`${inside.lexical}\` (${inside.rule})`, inside.rule);
  }
  const rule = compiled.denied(path);
  if (rule !== undefined) return pathFail('PATH_DENY_ALWAYS', `\`${path}\` matches deny_always \`${rule.pattern}\` (${rule.rule})`, rule.rule);
  return undefined;
}
