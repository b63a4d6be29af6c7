import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { LocalGate } from '../local-client.js';
import type { FromTerminal, ToTerminal } from '../../../shared/terminal-wire.js';

export interface AttachedTerminal {
  send(frame: ToTerminal): void;
  close(): void;
}

/**
 * The CLI's end of `oracle term attach` (shared/terminal-wire.ts): a WebSocket to the running gate,
 * trusting only this home's CA, signed in with the home's local desktop token.
 */
export function attachTerminal(home: string, gate: LocalGate, name: string, on: { frame(f: FromTerminal): void; opened(): void; closed(why: string): void }): AttachedTerminal {
  const ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
  const ws = new WebSocket(`${gate.url.replace(/^https:/u, 'wss:')}/api/v1/terms/${encodeURIComponent(name)}/attach`, { ca, headers: { authorization: `Desktop ${gate.token}` } });
  let reason = '';
  ws.on('open', () => {
    on.opened();
  });
  ws.on('message', (raw) => {
    try {
      on.frame(JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.concat(raw as Buffer[]).toString('utf8')) as FromTerminal);
    } catch {
      reason = 'the gate sent a frame that is not JSON';
      ws.terminate();
    }
  });
  ws.on('unexpected-response', (_req, res) => {
    reason = `the gate refused to attach (HTTP ${String(res.statusCode ?? 0)})`;
  });
  ws.on('error', (e) => {
    reason ||= e.message;
  });
  ws.on('close', () => {
    on.closed(reason);
  });
  return {
    send: (frame) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    },
    close: () => {
      ws.close();
    },
  };
}
