import type { Writable } from 'node:stream';
import { desktopRequest, localGate } from '../adapters/local-client.js';

/**
 * `oracle policy reload` (issue 16): the running gate reads its policy file again. A valid file is
 * in force at once (no restart: the desktop session, waiting approvals and continuations stay); one
 * with errors is refused and the running policy kept, with every error printed. Exit 0 when the
 * new policy is in force, 1 when it was refused or no gate runs.
 */
export async function runPolicyReload(home: string, out: Writable, err: Writable): Promise<number> {
  const gate = localGate(home);
  if (gate === undefined) {
    err.write(`oracle: no gate runs with home ${home}; the policy is read when \`oracle serve\` starts\n`);
    return 1;
  }
  let answer: Awaited<ReturnType<typeof desktopRequest>>;
  try {
    answer = await desktopRequest(home, gate, { method: 'POST', path: '/api/v1/desk/policy/reload', body: {} });
  } catch (e) {
    err.write(`oracle: the gate at ${gate.url} did not answer (${e instanceof Error ? e.message : 'unknown'})\n`);
    return 1;
  }
  const reload = answer.body['reload'] as { ok?: unknown; from?: unknown; to?: unknown; changed?: unknown; kept?: unknown; file?: unknown; errors?: { line: number; message: string }[] } | undefined;
  if (reload?.ok === true) {
    out.write(reload.changed === true ? `policy reloaded: ${String(reload.from)} -> ${String(reload.to)}\n` : `policy reloaded: unchanged (${String(reload.to)})\n`);
    return 0;
  }
  if (reload?.ok === false) {
    err.write(`oracle: the policy ${String(reload.file)} has errors; the gate keeps deciding by the policy in force (${String(reload.kept)}):\n`);
    for (const e of reload.errors ?? []) err.write(`  line ${String(e.line)}: ${e.message}\n`);
    return 1;
  }
  err.write(`oracle: the gate refused the reload (HTTP ${String(answer.status)}): ${JSON.stringify(answer.body).slice(0, 300)}\n`);
  return 1;
}
