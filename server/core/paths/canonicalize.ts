import type { CompiledPolicy, GateHost } from '../policy/compile.js';
import { climbingForm, lexPath, type LexOptions } from './lex.js';
import { resolveReal, resolveRealGenerally } from './resolve.js';
import { pathFail, pathOk, type PathResult } from './result.js';
import { matchScope, type Access, type ScopedPath } from './scope.js';

export interface CanonicalizeOptions {
  /** The step's pinned working directory, canonical and resolved (step 6). */
  readonly cwd: string | undefined;
  readonly access: Access;
  readonly allowWildcards?: boolean;
}

/** SPEC §5 steps 1–11 for one path argument: lex, resolve links, re-check, scope, deny_always. */
export function canonicalize(raw: unknown, compiled: CompiledPolicy, options: CanonicalizeOptions): PathResult<ScopedPath> {
  const { flavor, expandShortName } = compiled.host;
  const resolved = lexAndResolve(raw, compiled.host, { flavor, cwd: options.cwd, allowWildcards: options.allowWildcards, expandShortName });
  if (!resolved.ok) return resolved;
  return matchScope(compiled, resolved.value.lexical, resolved.value.real, options.access);
}

/**
 * Steps 1–9 for one raw path: its lexical form and the real path it resolves to.
 *
 * DESIGN: step 7 collapses `..` lexically and ORACLE's executors act on the resolved result, so
 * for them the collapse is exact. But a raw path is also handed to others as written: a Claude
 * Code hook's shell, a program's argv. The kernel applies `..` after the links before it, so
 * `outdir/../secret.txt` with `outdir` a link to `/elsewhere/dir` reads `/elsewhere/secret.txt`.
 * A path with `..` is therefore also walked the kernel's way, and when the two readings differ
 * (or the physical one cannot be made, as with `..` out of a folder that does not exist yet,
 * which an earlier command may create as a link) the path is refused: one meaning or none.
 */
export function lexAndResolve(raw: unknown, host: GateHost, lex: LexOptions): PathResult<{ lexical: string; real: string }> {
  const { flavor, reader } = host;
  const lexical = lexPath(raw, lex);
  if (!lexical.ok) return lexical;
  const real = resolveReal(lexical.value, reader, flavor);
  if (!real.ok) return real;
  const climbing = typeof raw === 'string' ? climbingForm(raw, lex) : undefined;
  if (typeof raw === 'string' && climbing !== undefined) {
    const physical = resolveRealGenerally(climbing, reader, flavor);
    if (!physical.ok) {
      return pathFail('PATH_UNRESOLVABLE', `\`${raw}\` climbs with \`..\` where the system's reading cannot be known yet (${physical.reason}); name the path without \`..\``);
    }
    if (physical.value !== real.value) {
      return pathFail('PATH_UNRESOLVABLE', `\`${raw}\` climbs with \`..\` out of a link: the system reads it as \`${physical.value}\`, not \`${real.value}\`; name the path without \`..\``);
    }
  }
  return pathOk({ lexical: lexical.value, real: real.value });
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
