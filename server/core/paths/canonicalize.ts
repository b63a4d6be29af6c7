import type { CompiledPolicy } from '../policy/compile.js';
import { lexPath } from './lex.js';
import { resolveReal } from './resolve.js';
import { pathFail, type PathResult } from './result.js';
import { matchScope, type Access, type ScopedPath } from './scope.js';

export interface CanonicalizeOptions {
  /** The step's pinned working directory, canonical and resolved (step 6). */
  readonly cwd: string | undefined;
  readonly access: Access;
  readonly allowWildcards?: boolean;
}

/** SPEC §5 steps 1–11 for one path argument: lex, resolve links, re-check, scope, deny_always. */
export function canonicalize(raw: unknown, compiled: CompiledPolicy, options: CanonicalizeOptions): PathResult<ScopedPath> {
  const { flavor, reader, expandShortName } = compiled.host;
  const lexical = lexPath(raw, { flavor, cwd: options.cwd, allowWildcards: options.allowWildcards, expandShortName });
  if (!lexical.ok) return lexical;
  const real = resolveReal(lexical.value, reader, flavor);
  if (!real.ok) return real;
  return matchScope(compiled, lexical.value, real.value, options.access);
}

/**
 * Step 12, called by the executor immediately before it acts: the path must still resolve to
 * where it resolved when the gate decided. A link swapped in since then aborts (TOCTOU).
 */
export function reresolve(scoped: ScopedPath, compiled: CompiledPolicy): PathResult<ScopedPath> {
  const { flavor, reader } = compiled.host;
  const again = resolveReal(scoped.lexical, reader, flavor);
  if (!again.ok) return again;
  if (again.value !== scoped.real) {
    return pathFail('PATH_UNRESOLVABLE', `\`${scoped.lexical}\` now resolves to \`${again.value}\`, not \`${scoped.real}\``);
  }
  return { ok: true, value: scoped };
}
