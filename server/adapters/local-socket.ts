import { chmodSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { MAX_ACTION_WAIT_SECONDS } from '../../shared/action-wait.js';

/**
 * The local channel of one gate (SPEC §12): a Unix domain socket in the home's data directory
 * (0700; the socket itself 0600, so only the gate's user can connect), carrying one request per
 * connection and no TLS handshake, so a hook process that starts per tool call pays almost nothing
 * beyond starting Node. A request is one header line `{"v":1,"authorization":"Bearer …","pid":N}` (N the client's
 * own pid, so HALT can reach the agent above it) and then
 * the payload's raw bytes up to the end of the stream; the answer is one JSON object. The caller's
 * credential is checked exactly as on the HTTPS API. Besides hook payloads, `oracle mcp` submits its
 * actions here (`"route":"action","wait":S`); nothing else rides this channel.
 */
export const SOCKET_NAME = 'gate.sock';
/** sun_path holds 108 bytes on Linux and 104 on macOS: a longer home uses HTTPS only. */
const MAX_PATH = 100;
const MAX_HEADER = 4096;
/** As the REST API: an action waits for a person at most this many seconds per request. */
const MAX_WAIT_S = MAX_ACTION_WAIT_SECONDS;
/** As large as a hook payload may be (Claude Code sends a Write's whole content). */
const MAX_BODY = 8 * 1024 * 1024;

export interface LocalChannel {
  readonly path: string;
  close(): Promise<void>;
}

/**
 * What a request asks: a hook payload answered (`hook`, the default), or one action submitted
 * (`action`, from `oracle mcp`: the action's JSON as the payload, `wait` in whole seconds).
 */
export type LocalRoute = { readonly kind: 'hook' } | { readonly kind: 'action'; readonly waitS: number };

/**
 * One request: the credential, the payload, the client's own pid when it said it (issue 13: HALT
 * reaches the agent above it), and a signal that aborts when the client hangs up before its answer.
 */
export type LocalHandler = (request: { readonly authorization: string; readonly body: Buffer; readonly pid: number | undefined; readonly route: LocalRoute; readonly signal: AbortSignal }) => Promise<Readonly<Record<string, unknown>>>;

/** Listens on `path` (undefined when the path is too long for a socket); a stale socket is replaced. */
export async function listenLocal(path: string, handle: LocalHandler): Promise<LocalChannel | undefined> {
  if (Buffer.byteLength(path) > MAX_PATH) return undefined;
  rmSync(path, { force: true });
  // Each open connection, and whether a request has started on it (a client's connection opened
  // ahead, local-spare.ts, may sit idle until its next call).
  const open = new Map<Socket, { started: boolean }>();
  // Half-open: the client ends its side after the payload; the answer still has to go back.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    const state = { started: false };
    open.set(socket, state);
    socket.on('close', () => open.delete(socket));
    serveOne(socket, handle, state);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      resolve();
    });
  });
  chmodSync(path, 0o600);
  // Bounded, like every listener: hook calls are short, each MCP host keeps one spare.
  server.maxConnections = MAX_CONNECTIONS;
  return {
    path,
    close: () =>
      new Promise<void>((done) => {
        // Answers being written get a moment to go out, as on the HTTPS listener; a connection
        // with nothing asked on it is closed at once.
        for (const [s, state] of open) if (!state.started) s.destroy();
        const cut = setTimeout(() => {
          for (const s of open.keys()) s.destroy();
        }, 300);
        server.close(() => {
          clearTimeout(cut);
          rmSync(path, { force: true });
          done();
        });
      }),
  };
}

/** Open connections at once; more are closed as they arrive. */
const MAX_CONNECTIONS = 512;

function serveOne(socket: Socket, handle: LocalHandler, state: { started: boolean }): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const hungUp = new AbortController();
  let started = false;
  socket.once('data', () => (state.started = true));
  let answered = false;
  const answer = (value: unknown): void => {
    answered = true;
    socket.end(`${JSON.stringify(value)}\n`);
  };
  const start = (all: Buffer, eol: number, header: Header): void => {
    started = true;
    handle({ ...header, body: all.subarray(eol + 1, header.length === undefined ? undefined : eol + 1 + header.length), signal: hungUp.signal }).then(answer, () => {
      answer({ error: 'internal error' });
    });
  };
  // A client that hangs up before its answer withdraws what it asked (an MCP host's cancel). Only
  // a request that declared its length keeps its side open while it waits, so only it can be seen
  // hanging up; a hook payload runs to the end of the stream and is answered whatever happens.
  const gone = (): void => {
    if (started && !answered) hungUp.abort();
  };
  socket.on('close', gone);
  socket.on('error', () => socket.destroy());
  // Where the header line ends, once seen, and what it says: each chunk is looked at once, and
  // the stream is joined only to read the header and to start (red team, session 32: joining on
  // every chunk made an 8 MiB request quadratic).
  let eol = -1;
  let header: Header | undefined;
  socket.on('data', (chunk: Buffer) => {
    if (started) {
      gone(); // nothing may follow a request whose length was declared
      socket.destroy();
      return;
    }
    const offset = size;
    size += chunk.length;
    if (size > MAX_HEADER + MAX_BODY) {
      answer({ error: 'the request is larger than any hook payload' });
      socket.destroy();
      return;
    }
    chunks.push(chunk);
    if (eol < 0) {
      const at = chunk.indexOf(10);
      if (at < 0) return;
      eol = offset + at;
      if (eol > MAX_HEADER) return;
      header = readHeader(Buffer.concat(chunks).subarray(0, eol));
    }
    if (header?.length !== undefined && size - eol - 1 >= header.length) start(Buffer.concat(chunks), eol, header);
  });
  socket.on('end', () => {
    if (started) {
      gone();
      return;
    }
    // The header as the data handler read it (none when the line never ended within MAX_HEADER).
    if (header === undefined) {
      answer({ error: 'the request does not start with a header line' });
      return;
    }
    start(Buffer.concat(chunks), eol, header);
  });
}

interface Header {
  readonly authorization: string;
  readonly pid: number | undefined;
  readonly route: LocalRoute;
  /** The payload's length in bytes, when the client keeps its side open while it waits. */
  readonly length: number | undefined;
}

function readHeader(line: Buffer): Header | undefined {
  try {
    const header = JSON.parse(line.toString('utf8')) as { v?: unknown; authorization?: unknown; pid?: unknown; route?: unknown; wait?: unknown; length?: unknown };
    if (header.v !== 1 || typeof header.authorization !== 'string') return undefined;
    const pid = typeof header.pid === 'number' && Number.isSafeInteger(header.pid) && header.pid > 1 ? header.pid : undefined;
    const length = typeof header.length === 'number' && Number.isSafeInteger(header.length) && header.length >= 0 && header.length <= MAX_BODY ? header.length : undefined;
    if (header.length !== undefined && length === undefined) return undefined;
    if (header.route === undefined || header.route === 'hook') return { authorization: header.authorization, pid, route: { kind: 'hook' }, length };
    if (header.route !== 'action' || typeof header.wait !== 'number' || !Number.isInteger(header.wait) || header.wait < 0 || header.wait > MAX_WAIT_S) return undefined;
    return { authorization: header.authorization, pid, route: { kind: 'action', waitS: header.wait }, length };
  } catch {
    return undefined;
  }
}

/**
 * One request over the local channel; the answer must be a JSON object. Aborting `signal` hangs up.
 * `connection`, when given, is an open connection to `path` made ahead (local-spare.ts) and is used
 * instead of a new one. The answer is one line: it is read at its newline, without waiting for the
 * gate to close its side.
 */
export function requestLocal(path: string, call: { authorization: string; body: Buffer; timeoutMs: number; route?: LocalRoute; signal?: AbortSignal; connection?: Socket | undefined }): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = call.connection ?? connect(path);
    if (call.signal?.aborted === true) socket.destroy(new Error('withdrawn by the caller'));
    call.signal?.addEventListener('abort', () => socket.destroy(new Error('withdrawn by the caller')), { once: true });
    const chunks: Buffer[] = [];
    socket.setTimeout(call.timeoutMs, () => socket.destroy(new Error('the gate did not answer in time')));
    const send = (): void => {
      // An action declares its length and keeps the connection open while it waits, so hanging
      // up can withdraw it; a hook payload is sent to the end of the stream. One write either way:
      // the gate wakes once for the whole request.
      const route = call.route?.kind === 'action' ? { route: 'action', wait: call.route.waitS, length: call.body.length } : {};
      const request = Buffer.concat([Buffer.from(`${JSON.stringify({ v: 1, authorization: call.authorization, pid: process.pid, ...route })}\n`), call.body]);
      if (call.route?.kind === 'action') socket.write(request);
      else socket.end(request);
    };
    const settle = (): void => {
      // Nothing at all: the gate went away mid-call (killed), which is not an answer of any shape.
      if (chunks.length === 0) {
        reject(new Error('the gate closed the connection without answering (did it stop?)'));
        return;
      }
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) resolve(value as Record<string, unknown>);
        else reject(new Error('the gate answered without a JSON object'));
      } catch {
        reject(new Error('the gate answered without a JSON object'));
      }
    };
    if (call.connection === undefined) socket.on('connect', send);
    else send();
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // JSON text never holds a raw newline: the first one ends the answer, and the request is done.
      if (c.includes(10)) {
        settle();
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('end', settle);
  });
}
