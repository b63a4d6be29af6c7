import type { CompiledPolicy } from '../../server/core/policy/compile.js';
import { lexPath } from '../../server/core/paths/lex.js';
import { resolveReal } from '../../server/core/paths/resolve.js';

/**
 * SPEC §5 steps 1–9 (lexing, links, the re-check), with the gate's own pure functions, before a
 * request reaches Cedar: Cedar has no notion of paths, `..`, symlinks or a file system. What it
 * gets is both forms of the canonical path; steps 10–11 (scopes, deny_always) are Cedar's.
 */
export interface CanonicalPath {
  readonly path: string;
  readonly real: string;
}

export function canonicalPath(raw: unknown, gate: CompiledPolicy, cwd: string | undefined): CanonicalPath | undefined {
  const { flavor, reader, expandShortName } = gate.host;
  const lexical = lexPath(raw, { flavor, cwd, expandShortName });
  if (!lexical.ok) return undefined;
  const real = resolveReal(lexical.value, reader, flavor);
  return real.ok ? { path: lexical.value, real: real.value } : undefined;
}
