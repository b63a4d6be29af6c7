import type { Writable } from 'node:stream';
import { desktopRequest, localGate } from '../adapters/local-client.js';

/** What asking this home's running gate to read its policy again came to. */
export type GateReload =
  | { readonly kind: 'no-gate' }
  | { readonly kind: 'unreachable'; readonly url: string; readonly reason: string }
  | { readonly kind: 'reloaded'; readonly from: string; readonly to: string; readonly changed: boolean }
  | { readonly kind: 'refused'; readonly file: string; readonly kept: string; readonly errors: readonly ReloadIssue[] }
  | { readonly kind: 'failed'; readonly status: number; readonly body: string };

/** One error of a refused file, as the gate's answer carries it (column and path may be absent). */
export interface ReloadIssue {
  readonly line: number;
  readonly column?: number;
  readonly path?: string;
  readonly message: string;
}

/**
 * One refused file's error in `oracle policy check`'s shape, `FILE:LINE:COLUMN: message (path)`,
 * so the two commands point at the same place the same way.
 */
export function reloadErrorLine(file: string, e: ReloadIssue): string {
  const where = e.line > 0 ? `${file}:${String(e.line)}${e.column === undefined ? '' : `:${String(e.column)}`}` : file;
  return `${where}: ${e.message}${e.path === undefined || e.path === '' ? '' : ` (${e.path})`}`;
}

/** Asks the running gate of `home` (if any) to read its policy file again, as the desktop. */
export async function reloadRunningGate(home: string): Promise<GateReload> {
  const gate = localGate(home);
  if (gate === undefined) return { kind: 'no-gate' };
  let answer: Awaited<ReturnType<typeof desktopRequest>>;
  try {
    answer = await desktopRequest(home, gate, { method: 'POST', path: '/api/v1/desk/policy/reload', body: {} });
  } catch (e) {
    return { kind: 'unreachable', url: gate.url, reason: e instanceof Error ? e.message : 'unknown' };
  }
  const reload = answer.body['reload'] as { ok?: unknown; from?: unknown; to?: unknown; changed?: unknown; kept?: unknown; file?: unknown; errors?: ReloadIssue[] } | undefined;
  if (reload?.ok === true) return { kind: 'reloaded', from: String(reload.from), to: String(reload.to), changed: reload.changed === true };
  if (reload?.ok === false) return { kind: 'refused', file: String(reload.file), kept: String(reload.kept), errors: reload.errors ?? [] };
  return { kind: 'failed', status: answer.status, body: JSON.stringify(answer.body).slice(0, 300) };
}

/**
 * `oracle policy reload` (issue 16): the running gate reads its policy file again. A valid file is
 * in force at once (no restart: the desktop session, waiting approvals and continuations stay); one
 * with errors is refused and the running policy kept, with every error printed. Exit 0 when the
 * new policy is in force, 1 when it was refused or no gate runs.
 */
export async function runPolicyReload(home: string, out: Writable, err: Writable): Promise<number> {
  const reload = await reloadRunningGate(home);
  switch (reload.kind) {
    case 'reloaded':
      out.write(reload.changed ? `policy reloaded: ${reload.from} -> ${reload.to}\n` : `policy reloaded: unchanged (${reload.to})\n`);
      return 0;
    case 'no-gate':
      err.write(`oracle: no gate runs with home ${home}; the policy is read when \`oracle serve\` starts\n`);
      return 1;
    case 'unreachable':
      err.write(`oracle: the gate at ${reload.url} did not answer (${reload.reason})\n`);
      return 1;
    case 'refused':
      err.write(`oracle: the policy ${reload.file} has errors; the gate keeps deciding by the policy in force (${reload.kept}):\n`);
      for (const e of reload.errors) err.write(`  ${reloadErrorLine(reload.file, e)}\n`);
      return 1;
    case 'failed':
      err.write(`oracle: the gate refused the reload (HTTP ${String(reload.status)}): ${reload.body}\n`);
      return 1;
  }
}
