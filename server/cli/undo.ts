import type { Writable } from 'node:stream';
import type { Runtime } from '../app/runtime.js';
import { undoTarget } from '../toolhost/undo-store.js';
import { desktopRequest, type LocalGate } from '../adapters/local-client.js';
import type { UndoView } from '../http/routes/desktop.js';

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

/**
 * The same through the running gate (one gate per home, SPEC §12): its desktop API with the home's
 * local desktop token, so the undo is the gate's own (audited in its chain) and needs no lock.
 */
export async function runUndoViaGate(home: string, gate: LocalGate, what: string, out: Writable): Promise<number> {
  const asked = async (call: { method: 'GET' | 'POST'; path: string }): Promise<{ status: number; body: Record<string, unknown> }> =>
    desktopRequest(home, gate, call).catch((e: unknown) => ({ status: 0, body: { error: { code: 'GATE_UNREACHABLE', message: e instanceof Error ? e.message : 'the gate did not answer' } } }));
  if (what === 'list') {
    const reply = await asked({ method: 'GET', path: '/api/v1/desk/undo?limit=100000' });
    const records = reply.body['undo'];
    if (reply.status !== 200 || !Array.isArray(records)) {
      out.write(`${JSON.stringify({ ok: false, error: reply.body['error'] ?? { code: 'GATE_REFUSED', message: `HTTP ${String(reply.status)}` } })}\n`);
      return 1;
    }
    // The gate's desktop view lists the newest first; the CLI lists oldest first, as without a gate.
    for (const r of [...(records as UndoView[])].reverse()) out.write(`${r.id}  ${r.created_at}  ${r.kind.padEnd(6)}  ${r.target}${r.applied_at === null ? '' : `  (undone ${r.applied_at})`}\n`);
    return 0;
  }
  const reply = await asked({ method: 'POST', path: `/api/v1/desk/undo/${encodeURIComponent(what)}` });
  const result = reply.status === 200 ? reply.body['result'] : { ok: false, error: reply.body['error'] };
  out.write(`${JSON.stringify(result)}\n`);
  return reply.status === 200 ? 0 : 1;
}
