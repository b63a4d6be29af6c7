import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { desktopRequest, localGate } from '../adapters/local-client.js';
import { terminalQr } from '../http/pairing-service.js';

/**
 * `oracle pair` (SPEC §9, §12): opens a pairing session on the running gate as the desktop,
 * shows the QR and the 8-digit code, waits for a phone's claim, and asks the person here to
 * compare codes and confirm "Pair <name>?".
 */
export async function runPair(home: string, io: { stdin: Readable; stdout: Writable; typed: boolean }): Promise<number> {
  const gate = localGate(home);
  if (gate === undefined) {
    io.stdout.write('oracle: no gate is running with this home; start `oracle serve --lan` first\n');
    return 2;
  }
  const started = await desktopRequest(home, gate, { method: 'POST', path: '/api/v1/pair/start', body: { mode: io.typed ? 'code' : 'qr' } });
  if (started.status !== 201) {
    const error = (started.body as { error?: { message?: unknown } } | undefined)?.error?.message;
    io.stdout.write(`oracle: the gate refused to start pairing (${String(started.status)}${typeof error === 'string' ? `: ${error}` : ''})\n`);
    return 1;
  }
  const view = started.body as { pid: string; code: string; url: string | null; origins: string[]; expires_at: number };
  if (view.url !== null) io.stdout.write(`${await terminalQr(view.url)}\n`);
  io.stdout.write(`pairing code: ${view.code}   (valid until ${new Date(view.expires_at).toLocaleTimeString()}, single use, 5 tries)\n`);
  if (view.url === null) io.stdout.write(`on the phone open ${view.origins.join(' or ')} and type the code; then compare the codes on both screens: that comparison is what stops a relay\n`);
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const session = (await desktopRequest(home, gate, { method: 'GET', path: `/api/v1/pair/sessions/${view.pid}` })).body as { state?: string; name?: string | null; comparison_code?: string | null };
    if (session.state === undefined || ['expired', 'burned', 'rejected', 'failed', 'delivered'].includes(session.state)) {
      io.stdout.write(`pairing ended: ${session.state ?? 'unknown session'}\n`);
      return 1;
    }
    if (typeof session.name === 'string' && typeof session.comparison_code === 'string') {
      const rl = createInterface({ input: io.stdin, output: io.stdout });
      const answer = await rl.question(`Pair "${session.name}"? The phone must show ${session.comparison_code}. Type yes to pair: `);
      rl.close();
      const accept = answer.trim().toLowerCase() === 'yes';
      const confirmed = await desktopRequest(home, gate, { method: 'POST', path: '/api/v1/pair/confirm', body: { pid: view.pid, accept } });
      io.stdout.write(confirmed.status < 300 ? (accept ? `paired "${session.name}"\n` : 'refused\n') : `oracle: confirm failed (${String(confirmed.status)})\n`);
      return accept && confirmed.status < 300 ? 0 : 1;
    }
  }
}
