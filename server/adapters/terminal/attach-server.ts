import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CallerVerifier } from '../../http/caller.js';
import type { Terminals } from '../../toolhost/terminals.js';
import { ATTACH_PATH, parseToTerminal, type FromTerminal } from '../../../shared/terminal-wire.js';

/** What attaching needs of the gate's terminals (server/toolhost/terminals.ts). */
export type AttachableTerminals = Pick<Terminals, 'attach' | 'onExit' | 'list' | 'input' | 'resize'>;

const DESKTOP_COOKIE = /(?:^|;\s*)oracle_desktop=([^;]+)/u;
/** A frame from the person is keys or a resize: a paste of a page is still far below this. */
const MAX_FRAME_BYTES = 256 * 1024;

/**
 * `oracle term attach NAME` (issue 16): a WebSocket upgrade on the gate's own HTTPS listener, for
 * the desktop only (its local token or session cookie, from this machine), never from a page of
 * another origin. The person's keys go to the terminal as typed: this is their own terminal.
 */
export function attachTerminals(server: { on(event: 'upgrade', listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): unknown }, deps: { readonly callers: CallerVerifier; readonly terminals: AttachableTerminals; readonly origin: () => string }): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const refuse = (socket: Duplex, status: number, why: string): void => {
    socket.end(`HTTP/1.1 ${String(status)} ${why}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  };
  /** The terminal's name, or why the upgrade is refused. */
  const admit = async (req: IncomingMessage): Promise<{ readonly name: string } | { readonly status: number; readonly why: string }> => {
    const match = ATTACH_PATH.exec(new URL(req.url ?? '/', 'https://gate').pathname);
    if (match?.[1] === undefined) return { status: 404, why: 'Not Found' };
    const address = req.socket.remoteAddress ?? '';
    const loopback = address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
    // A browser always names the page's origin; only the gate's own pages may attach.
    if (req.headers.origin !== undefined && req.headers.origin !== deps.origin()) return { status: 403, why: 'Forbidden' };
    const cookie = DESKTOP_COOKIE.exec(req.headers.cookie ?? '')?.[1];
    const caller = await deps.callers.verify({ authorization: req.headers.authorization, cookie, loopback, address });
    return caller?.kind === 'desktop' ? { name: match[1] } : { status: 401, why: 'Unauthorized' };
  };
  server.on('upgrade', (req, socket, head) => {
    admit(req).then(
      (admitted) => {
        if ('status' in admitted) {
          refuse(socket, admitted.status, admitted.why);
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          void serveAttach(ws, admitted.name, deps.terminals);
        });
      },
      () => {
        socket.destroy();
      },
    );
  });
  return {
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

async function serveAttach(ws: WebSocket, name: string, terminals: AttachableTerminals): Promise<void> {
  const send = (frame: FromTerminal): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };
  const attached = await terminals.attach(name, (data) => {
    send({ t: 'out', d: data });
  });
  if (!attached.ok) {
    send({ t: 'error', code: attached.code, message: attached.reason });
    ws.close(1008, attached.code);
    return;
  }
  send({ t: 'out', d: attached.value.redraw });
  const ended = (): void => {
    const view = terminals.list().find((t) => t.name === name);
    if (view === undefined) send({ t: 'error', code: 'TERM_UNKNOWN', message: `terminal \`${name}\` was closed` });
    else if (view.exited !== null) send({ t: 'exit', code: view.exited.code, signal: view.exited.signal });
    else return;
    ws.close(1000, 'ended');
  };
  const unwatch = terminals.onExit(name, ended);
  ended();
  ws.on('message', (raw, binary) => {
    const frame = binary ? undefined : parseToTerminal(Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.concat(raw as Buffer[]).toString('utf8'));
    if (frame === undefined) {
      send({ t: 'error', code: 'INPUT_INVALID', message: 'a frame is {"t":"in","d":text} or {"t":"resize","cols":N,"rows":N}' });
      return;
    }
    const done = frame.t === 'in' ? terminals.input(name, frame.d) : terminals.resize(name, frame.cols, frame.rows);
    if (!done.ok) send({ t: 'error', code: done.code, message: done.reason });
  });
  ws.on('close', () => {
    attached.value.detach();
    unwatch();
  });
}
