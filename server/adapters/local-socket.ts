import { chmodSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * The local channel of one gate (SPEC §12): a Unix domain socket in the home's data directory
 * (0700; the socket itself 0600, so only the gate's user can connect), carrying one request per
 * connection and no TLS handshake, so a hook process that starts per tool call pays almost nothing
 * beyond starting Node. A request is one header line `{"v":1,"authorization":"Bearer …","pid":N}` (N the client's
 * own pid, so HALT can reach the agent above it) and then
 * the payload's raw bytes up to the end of the stream; the answer is one JSON object. The caller's
 * credential is checked exactly as on the HTTPS API; nothing else rides this channel.
 */
export const SOCKET_NAME = 'gate.sock';
/** sun_path holds 108 bytes on Linux and 104 on macOS: a longer home uses HTTPS only. */
const MAX_PATH = 100;
const MAX_HEADER = 4096;
/** As large as a hook payload may be (Claude Code sends a Write's whole content). */
const MAX_BODY = 8 * 1024 * 1024;

export interface LocalChannel {
  readonly path: string;
  close(): Promise<void>;
}

/** One request: the credential, the payload, and the client's own pid when it said it (issue 13: HALT reaches the agent above it). */
export type LocalHandler = (request: { readonly authorization: string; readonly body: Buffer; readonly pid: number | undefined }) => Promise<Readonly<Record<string, unknown>>>;

/** Listens on `path` (undefined when the path is too long for a socket); a stale socket is replaced. */
export async function listenLocal(path: string, handle: LocalHandler): Promise<LocalChannel | undefined> {
  if (Buffer.byteLength(path) > MAX_PATH) return undefined;
  rmSync(path, { force: true });
  const open = new Set<Socket>();
  // Half-open: the client ends its side after the payload; the answer still has to go back.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    serveOne(socket, handle);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((done) => {
        // Answers being written get a moment to go out, as on the HTTPS listener.
        const cut = setTimeout(() => {
          for (const s of open) s.destroy();
        }, 300);
        server.close(() => {
          clearTimeout(cut);
          rmSync(path, { force: true });
          done();
        });
      }),
  };
}

function serveOne(socket: Socket, handle: LocalHandler): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const answer = (value: unknown): void => {
    socket.end(`${JSON.stringify(value)}\n`);
  };
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_HEADER + MAX_BODY) {
      answer({ error: 'the request is larger than any hook payload' });
      socket.destroy();
      return;
    }
    chunks.push(chunk);
  });
  socket.on('end', () => {
    const all = Buffer.concat(chunks);
    const eol = all.indexOf(10);
    const header = eol < 0 || eol > MAX_HEADER ? undefined : readHeader(all.subarray(0, eol));
    if (header === undefined) {
      answer({ error: 'the request does not start with a header line' });
      return;
    }
    handle({ ...header, body: all.subarray(eol + 1) }).then(answer, () => {
      answer({ error: 'internal error' });
    });
  });
}

function readHeader(line: Buffer): { authorization: string; pid: number | undefined } | undefined {
  try {
    const header = JSON.parse(line.toString('utf8')) as { v?: unknown; authorization?: unknown; pid?: unknown };
    if (header.v !== 1 || typeof header.authorization !== 'string') return undefined;
    const pid = typeof header.pid === 'number' && Number.isSafeInteger(header.pid) && header.pid > 1 ? header.pid : undefined;
    return { authorization: header.authorization, pid };
  } catch {
    return undefined;
  }
}

/** One request over the local channel; the answer must be a JSON object. */
export function requestLocal(path: string, call: { authorization: string; body: Buffer; timeoutMs: number }): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const chunks: Buffer[] = [];
    socket.setTimeout(call.timeoutMs, () => socket.destroy(new Error('the gate did not answer in time')));
    socket.on('connect', () => {
      socket.write(`${JSON.stringify({ v: 1, authorization: call.authorization, pid: process.pid })}\n`);
      socket.end(call.body);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) resolve(value as Record<string, unknown>);
        else reject(new Error('the gate answered without a JSON object'));
      } catch {
        reject(new Error('the gate answered without a JSON object'));
      }
    });
  });
}
