import { canonicalize } from '../paths/canonicalize.js';
import type { ScopedPath } from '../paths/scope.js';
import type { DecideContext } from './context.js';
import { trimEnd } from '../../../shared/trim-end.js';

/**
 * Where `cp FROM TO`, `mv FROM TO` and `ln -s TARGET TO` really write (SPEC §5): onto TO, or, when
 * TO is a folder, inside it under FROM's name. A folder now is judged as that inner path; a TO
 * that does not exist yet is judged both ways, since an earlier command of the same call may make
 * it a folder (`mkdir d && cp x.env d` writes d/x.env). Pure: the file system comes through the
 * context's reader, like every other path check.
 */
const SOURCE_KEY: Readonly<Record<string, string>> = { 'fs.copy': 'from', 'fs.move': 'from', 'fs.link': 'target' };

export function landingPaths(tool: string, args: Readonly<Record<string, unknown>>, paths: readonly ScopedPath[], ctx: DecideContext): LandingResult {
  const sourceKey = SOURCE_KEY[tool];
  const [destination, ...rest] = paths;
  const source = sourceKey === undefined ? undefined : args[sourceKey];
  if (sourceKey === undefined || destination === undefined || typeof source !== 'string') return { kind: 'unchanged' };
  const name = trimEnd(source, '/').split('/').pop() ?? '';
  if (name === '' || name === '.' || name === '..') return { kind: 'unchanged' };
  const entry = ctx.gate.host.reader.entry(destination.real);
  if (entry.kind !== 'dir' && entry.kind !== 'missing') return { kind: 'unchanged' };
  const inner = canonicalize(`${trimEnd(destination.real, '/')}/${name}`, ctx.gate, { cwd: undefined, access: 'write' });
  if (!inner.ok) return { kind: 'refused', code: inner.code, rule: inner.rule, reason: `${entry.kind === 'dir' ? 'into the folder' : 'if it becomes a folder'}: ${inner.reason}` };
  // A folder now: the write lands inside it, and that is what is decided, kept and shown.
  if (entry.kind === 'dir') return { kind: 'inside', paths: [inner.value, ...rest] };
  return { kind: 'either', paths: [destination, ...rest, inner.value] };
}

export type LandingResult =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'inside'; readonly paths: readonly ScopedPath[] }
  | { readonly kind: 'either'; readonly paths: readonly ScopedPath[] }
  | { readonly kind: 'refused'; readonly code: Extract<ReturnType<typeof canonicalize>, { ok: false }>['code']; readonly rule: string; readonly reason: string };
