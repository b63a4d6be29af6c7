import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CallerVerifier } from '../../http/caller.js';
import { isLoopbackAddress } from '../https-listener.js';
import type { Terminals } from '../../toolhost/terminals.js';
import { ATTACH_PATH, parseToTerminal, type FromTerminal, type ToTerminal } from '../../../shared/terminal-wire.js';

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
    const loopback = isLoopbackAddress(address);
    // A browser always names the page's origin; only the gate's own pages may attach.
    if (req.headers.origin !== undefined && req.headers.origin !== deps.origin()) return { status: 403, why: 'Forbidden' };
    const cookie = DESKTOP_COOKIE.exec(req.headers.cookie ?? '')?.[1];
    const caller = await deps.callers.verify({ authorization: req.headers.authorization, cookie, loopback, address });
    return caller?.kind === 'desktop' ? { name: match[1] } : { status: 401, why: 'Unauthorized' };
  };
  server.on('upgrade', (req, socket, head) => {
    // Until ws owns the socket, a reset must not become an unhandled 'error' (which ends the process).
    const dropped = (): void => {
      socket.destroy();
    };
    socket.on('error', dropped);
    admit(req).then(
      (admitted) => {
        if ('status' in admitted) {
          refuse(socket, admitted.status, admitted.why);
          return;
        }
        socket.off('error', dropped);
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

/** An attached client that reads slower than the terminal writes is let go past this much queued output. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

async function serveAttach(ws: WebSocket, name: string, terminals: AttachableTerminals): Promise<void> {
  // A bad frame (too large, not UTF-8, unmasked) or a reset ends this client, never the gate.
  ws.on('error', () => {
    ws.terminate();
  });
  const cleanups: (() => void)[] = [];
  ws.on('close', () => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  const send = (frame: FromTerminal): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_QUEUED_BYTES) {
      ws.terminate();
      return;
    }
    ws.send(JSON.stringify(frame));
  };
  // Keys typed while the redraw is prepared are kept and sent after it, in order.
  const early: ToTerminal[] = [];
  let ready = false;
  const apply = (frame: ToTerminal): void => {
    const done = frame.t === 'in' ? terminals.input(name, frame.d) : terminals.resize(name, frame.cols, frame.rows);
    if (!done.ok) send({ t: 'error', code: done.code, message: done.reason });
  };
  ws.on('message', (raw, binary) => {
    const frame = binary ? undefined : parseToTerminal(Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.concat(raw as Buffer[]).toString('utf8'));
    if (frame === undefined) {
      send({ t: 'error', code: 'INPUT_INVALID', message: 'a frame is {"t":"in","d":text} or {"t":"resize","cols":N,"rows":N}' });
      return;
    }
    if (ready) apply(frame);
    else if (early.length < 1000) early.push(frame);
  });
  const attached = await terminals.attach(name, (data) => {
    send({ t: 'out', d: data });
  });
  if (!attached.ok) {
    send({ t: 'error', code: attached.code, message: attached.reason });
    ws.close(1008, attached.code);
    return;
  }
  // The client may have gone while the screen was read: nothing of it is left attached.
  if (ws.readyState !== ws.OPEN) {
    attached.value.detach();
    return;
  }
  cleanups.push(attached.value.detach);
  send({ t: 'out', d: attached.value.redraw });
  const ended = (): void => {
    const view = terminals.list().find((t) => t.name === name);
    if (view === undefined) send({ t: 'error', code: 'TERM_UNKNOWN', message: `terminal \`${name}\` was closed` });
    else if (view.exited !== null) send({ t: 'exit', code: view.exited.code, signal: view.exited.signal });
    else return;
    ws.close(1000, 'ended');
  };
  cleanups.push(terminals.onExit(name, ended));
  ended();
  ready = true;
  for (const frame of early.splice(0)) apply(frame);
}
