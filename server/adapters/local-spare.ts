import { connect, type Socket } from 'node:net';

/**
 * One connection to a gate's local channel, opened ahead of the next request (`oracle mcp` asks
 * one after another): the request then starts with the write, not with a connect (measured in
 * bench/mcp-read.ts: a connect and its event cost about a quarter of a millisecond here). Still one
 * request per connection, as the channel wants; after each, the caller prepares the next.
 *
 * A kept connection is handed out only for the gate it was opened to (`gate`: the socket path and
 * the gate's pid, so a restarted gate never gets a request meant for the old one) and only while
 * it is open: one the gate closed (it stopped, or is stopping) is dropped as soon as that is seen,
 * and the caller connects anew. While kept it holds no reference, so it never keeps the process up.
 */
export class SpareConnection {
  private kept: Kept | undefined;

  /** Opens a connection to `path` for `gate` in the background, unless one for it is kept already. */
  prepare(path: string, gate: string): void {
    if (this.kept?.gate === gate && !this.kept.socket.destroyed) return;
    this.drop();
    const socket = connect(path);
    socket.unref();
    // Nothing is asked on a kept connection, so anything it hears means it is over.
    const over = (): void => {
      if (this.kept === kept) this.kept = undefined;
      socket.destroy();
    };
    const connected = (): void => {
      kept.connected = true;
    };
    const kept: Kept = { gate, socket, connected: false, listeners: { connect: connected, error: over, end: over, close: over, data: over } };
    for (const [event, listener] of Object.entries(kept.listeners)) socket.on(event, listener);
    this.kept = kept;
  }

  /** Whether a connection for `gate` is kept, connected and open (what `take` would hand out). */
  ready(gate: string): boolean {
    const kept = this.kept;
    return kept !== undefined && kept.gate === gate && kept.connected && !kept.socket.destroyed && kept.socket.writable && !kept.socket.readableEnded;
  }

  /** The kept connection, when it is for `gate`, connected and still open; it is the caller's from now on. */
  take(gate: string): Socket | undefined {
    const kept = this.kept;
    const open = this.ready(gate);
    this.kept = undefined;
    if (kept === undefined) return undefined;
    unlisten(kept);
    if (!open) {
      kept.socket.destroy();
      return undefined;
    }
    kept.socket.ref();
    return kept.socket;
  }

  /** Closes the kept connection, if any. */
  drop(): void {
    const kept = this.kept;
    this.kept = undefined;
    if (kept === undefined) return;
    unlisten(kept);
    kept.socket.destroy();
  }
}

interface Kept {
  readonly gate: string;
  readonly socket: Socket;
  connected: boolean;
  /** This class's own listeners, taken off when the connection is handed out (Node's own stay). */
  readonly listeners: Readonly<Record<string, () => void>>;
}

function unlisten(kept: Kept): void {
  for (const [event, listener] of Object.entries(kept.listeners)) kept.socket.off(event, listener);
}
