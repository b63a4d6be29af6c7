import type { ProvenanceEntry } from '../../../shared/provenance.js';

/** Folders whose content someone else wrote: reading them taints the session (SPEC §4). */
const FOREIGN = new Set(['node_modules', 'vendor', 'third_party', 'third-party', 'bower_components', '.venv', 'venv', 'site-packages', '.cargo', 'Pods']);

/**
 * What an executed action brought into the agent's context: a fetched page is external, a file
 * under a dependency folder is local_foreign. Anything else it read counts as the user's own.
 */
export function provenanceOfResult(tool: string, args: Readonly<Record<string, unknown>>): ProvenanceEntry[] {
  if (tool === 'net.fetch' && typeof args['url'] === 'string') return [{ kind: 'external', source: args['url'] }];
  if ((tool === 'fs.read' || tool === 'fs.list') && typeof args['path'] === 'string') {
    const path = args['path'];
    if (path.split('/').some((segment) => FOREIGN.has(segment))) return [{ kind: 'local_foreign', source: path }];
  }
  return [];
}
