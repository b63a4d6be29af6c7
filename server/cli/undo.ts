import type { Writable } from 'node:stream';
import type { Runtime } from '../runtime.js';
import { undoTarget } from '../toolhost/undo-store.js';

/** `oracle undo list` and `oracle undo ID`: exit 0 when the undo applied, 1 when it was refused. */
export async function runUndo(runtime: Runtime, what: string, out: Writable): Promise<number> {
  if (what === 'list') {
    const undo = runtime.toolhost.env.undo;
    for (const record of undo.list()) {
      const applied = undo.appliedAt(record.id);
      out.write(`${record.id}  ${record.created_at}  ${record.kind.padEnd(6)}  ${undoTarget(record)}${applied === undefined ? '' : `  (undone ${applied})`}\n`);
    }
    return 0;
  }
  const result = await runtime.undo(what);
  out.write(JSON.stringify(result) + '\n');
  return result.ok ? 0 : 1;
}
