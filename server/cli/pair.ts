import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { desktopRequest, localGate } from '../adapters/local-client.js';
import { terminalQr } from '../http/pairing-service.js';

/** The gate's origins a phone could open: all but this machine's own loopback ones (127.0.0.0/8, ::1, localhost). */
export function phoneOrigins(origins: readonly string[]): string[] {
  return origins.filter((origin) => {
    let host: string;
    try {
      host = new URL(origin).hostname;
    } catch {
      return false;
    }
    return !(host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u.test(host));
  });
}

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
  // The gate's addresses come with the session: without --lan there is only its loopback one.
  const phone = phoneOrigins(view.origins);
  if (phone.length === 0) {
    io.stdout.write(
      `the gate listens only on this machine (${view.origins.join(' or ')}), which a phone cannot reach: to pair a phone, stop the gate and start it with \`oracle serve --lan\` (the LAN is exposed for that launch only), then run \`oracle pair\` again; ` +
        `this pairing works only from a browser on this machine${view.url === null ? '' : ' (for that, `oracle pair --typed`)'}\n`,
    );
  }
  if (view.url !== null) io.stdout.write(`${await terminalQr(view.url)}\n`);
  io.stdout.write(`pairing code: ${view.code}   (valid until ${new Date(view.expires_at).toLocaleTimeString()}, single use, 5 tries)\n`);
  if (view.url === null) {
    const where = phone.length === 0 ? `in a browser on this machine open ${view.origins.join(' or ')}` : `on the phone open ${phone.join(' or ')}`;
    io.stdout.write(`${where} and type the code; then compare the codes on both screens: that comparison is what stops a relay\n`);
  }
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
