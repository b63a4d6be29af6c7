import { isTainting, type ProvenanceEntry } from '../../../shared/provenance.js';
import type { RuntimeState } from './context.js';

/** How many sources a session's taint names (the newest kept). */
const MAX_SOURCES = 32;

export const CLEAN: RuntimeState = { tainted: false, provenance: [] };

/**
 * A session's taint after it read `read` (SPEC §4): sticky, so a tainted session stays tainted;
 * each foreign or external source is named once, the newest last. Undefined when nothing it read
 * taints or every such source is already named (nothing to record).
 */
export function afterReading(state: RuntimeState, read: readonly ProvenanceEntry[]): RuntimeState | undefined {
  const known = new Set(state.provenance.map(key));
  const fresh: ProvenanceEntry[] = [];
  for (const p of read) {
    if (!isTainting(p.kind) || known.has(key(p))) continue;
    known.add(key(p));
    fresh.push({ kind: p.kind, source: p.source });
  }
  if (fresh.length === 0 && (state.tainted || !read.some((p) => isTainting(p.kind)))) return undefined;
  return { tainted: true, provenance: [...state.provenance, ...fresh].slice(-MAX_SOURCES) };
}

function key(p: ProvenanceEntry): string {
  return `${p.kind}\u0000${p.source}`;
}
