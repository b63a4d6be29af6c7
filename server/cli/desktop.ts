import type { Writable } from 'node:stream';
import { desktopRequest, localGate } from '../adapters/local-client.js';

/**
 * `oracle desktop`: a fresh one-time link to the running gate's desktop screen. `oracle serve`
 * prints one when it starts; a gate run as a service (`oracle service install`) prints it to the
 * journal, where nobody reads it, so this asks the gate for another over its HTTPS API with the
 * home's local desktop token (loopback only).
 */
export async function runDesktop(home: string, out: Writable): Promise<number> {
  const gate = localGate(home);
  if (gate === undefined) {
    out.write(`oracle: no gate is running with home ${home}; start one with \`oracle serve\` or \`oracle service install\`\n`);
    return 1;
  }
  const reply: { status: number; body: Record<string, unknown> } = await desktopRequest(home, gate, { method: 'POST', path: '/api/v1/desk/login-code' }).catch((e: unknown) => ({
    status: 0,
    body: { error: e instanceof Error ? e.message : 'unreachable' },
  }));
  const code = reply.body['code'];
  if (reply.status !== 200 || typeof code !== 'string') {
    out.write(`oracle: the gate at ${gate.url} gave no login code (${reply.status === 0 ? String(reply.body['error']) : `HTTP ${String(reply.status)}`})\n`);
    return 1;
  }
  out.write(`${gate.url}/login?code=${encodeURIComponent(code)}   (open on this machine; the code works once)\n`);
  return 0;
}
