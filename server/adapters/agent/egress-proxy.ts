import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { checkDestination, type EgressTarget } from './egress.js';
import type { EgressConnection } from '../../core/lifecycle/execution.js';

export type { EgressConnection };

/**
 * The per-job egress proxy (issue 17, seed 000 D-O5 "reach only the allow-listed API"): a job
 * that may reach the network gets no network of the host's (its sandbox has its own namespace,
 * loopback only); its one way out is this HTTP CONNECT proxy on a Unix socket in its job
 * directory, which a forwarder inside the sandbox offers on 127.0.0.1 (egress-forwarder.ts).
 * Each CONNECT is judged like a fetch hop (egress.ts `checkDestination`): the host and port must
 * be on this job's own allowlist, the proxy resolves the name itself (the job has no DNS), every
 * address is classified and a private, loopback or link-local one is refused unless the list
 * names that very IP. Nothing but CONNECT is spoken: a plain-HTTP request through it is refused,
 * so every byte that leaves is inside a tunnel to a host the policy named. Every connection,
 * refused or not, is kept with its host, address and byte counts for the audit log; the proxy
 * and every tunnel close with the job.
 */

export interface EgressProxy {
  readonly socketPath: string;
  /** Every CONNECT so far, in order (at most MAX_CONNECTIONS; later ones are refused). */
  readonly connections: () => readonly EgressConnection[];
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  readonly socketPath: string;
  readonly allow: readonly EgressTarget[];
  readonly resolve: (host: string) => Promise<string[]>;
  readonly connectTimeoutMs?: number;
}

/** A job opens at most this many tunnels; past it, CONNECT is refused (the audit stays bounded). */
export const MAX_CONNECTIONS = 256;
const MAX_HEAD = 8192;
/** Tunnels open at once (each holds two of the gate's sockets). */
const MAX_OPEN = 64;
const HEAD_TIMEOUT_MS = 10_000;
/** The longest path a Unix socket may have on Linux (sun_path, with its NUL). */
export const MAX_SOCKET_PATH = 107;

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  if (Buffer.byteLength(options.socketPath) > MAX_SOCKET_PATH) throw new Error(`the job's egress socket path is longer than ${String(MAX_SOCKET_PATH)} bytes (${options.socketPath}); use a shorter ORACLE home`);
  const records: EgressConnection[] = [];
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  // Half-open kept on both legs: git sends its pack, closes its side, then reads the report.
  let accepted = 0;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    // The slot is taken when the connection arrives, so a burst cannot pass the cap together.
    accepted += 1;
    if (accepted > MAX_CONNECTIONS) {
      refuse(client, 429, 'EGRESS_DENIED', `a job opens at most ${String(MAX_CONNECTIONS)} connections`);
      return;
    }
    // A head that never ends holds a socket of the gate's: it gets HEAD_TIMEOUT_MS.
    const slow = setTimeout(() => client.destroy(), HEAD_TIMEOUT_MS);
    readHead(client, (head, rest) => {
      clearTimeout(slow);
      void tunnel(client, { head, rest }, options, { records, track });
    });
  });
  server.maxConnections = MAX_OPEN;
  rmSync(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      resolve();
    });
  });
  chmodSync(options.socketPath, 0o600);
  return {
    socketPath: options.socketPath,
    connections: () => records,
    // The socket lives in the job's own directory: whatever the job put in its place, closing
    // never throws and always finishes (the job directory is removed after this anyway).
    close: () =>
      new Promise<void>((done) => {
        for (const s of open) s.destroy();
        server.close(() => {
          try {
            if (lstatSync(options.socketPath, { throwIfNoEntry: false })?.isSocket() === true) rmSync(options.socketPath, { force: true });
          } catch {
            // left for the job directory's removal
          }
          done();
        });
      }),
  };
}

/** Reads the request head (up to the blank line); anything longer than MAX_HEAD is cut off. */
function readHead(client: Socket, then: (head: string, rest: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0) {
      if (buffered.length > MAX_HEAD) refuse(client, 431, 'ARG_SHAPE', 'the request head is too long');
      return;
    }
    client.off('data', onData);
    client.pause();
    then(buffered.subarray(0, end).toString('latin1'), buffered.subarray(end + 4));
  };
  client.on('data', onData);
}

async function tunnel(client: Socket, request: { head: string; rest: Buffer }, options: EgressProxyOptions, kept: { records: EgressConnection[]; track: (s: Socket) => void }): Promise<void> {
  const { head, rest } = request;
  const { records, track } = kept;
  const line = head.split('\r\n')[0] ?? '';
  // A host is DNS letters, digits, dots and hyphens, or a bracketed IPv6 literal: nothing a
  // resolver could cut short (a NUL would make `a.com\0.allowed.com` match `*.allowed.com`).
  const match = /^CONNECT (\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}):([0-9]{1,5}) HTTP\/1\.[01]$/u.exec(line);
  if (match === null) {
    const [what = ''] = line.split(' ');
    const method = /^[A-Z]{1,16}$/u.test(what) ? what : '(not a method)';
    records.push({ host: '(refused before a host was read)', port: '', outcome: 'EGRESS_DENIED', reason: `${method} is not CONNECT to a host name or IP`, bytes_out: 0, bytes_in: 0 });
    refuse(client, 405, 'EGRESS_DENIED', `this proxy only opens CONNECT tunnels to allowed hosts; \`${method}\` is refused`);
    return;
  }
  const host = (match[1] ?? '').replace(/^\[|\]$/gu, '').toLowerCase();
  const port = match[2] ?? '';
  const record = (r: Omit<EgressConnection, 'host' | 'port'>): void => {
    records.push({ host, port, ...r });
  };
  if (Number(port) < 1 || Number(port) > 65_535) {
    record({ outcome: 'ARG_SHAPE', reason: `port ${port}`, bytes_out: 0, bytes_in: 0 });
    refuse(client, 400, 'ARG_SHAPE', `\`${port}\` is not a port`);
    return;
  }
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort();
  }, options.connectTimeoutMs ?? 10_000);
  const checked = await checkDestination({ host, port, protocol: 'https:' }, options, deadline.signal);
  if ('code' in checked) {
    clearTimeout(timer);
    record({ outcome: checked.code, reason: checked.message, bytes_out: 0, bytes_in: 0 });
    refuse(client, 403, checked.code, checked.message);
    return;
  }
  // The very address that was checked, never a second lookup (what DNS rebinding needs).
  const upstream = connect({ host: checked.address, port: Number(port), allowHalfOpen: true });
  track(upstream);
  let bytesOut = rest.length;
  let bytesIn = 0;
  let settled = false;
  let connected = false;
  const finish = (outcome: string, reason?: string): void => {
    if (settled) return;
    settled = true;
    record({ address: checked.address, outcome, ...(reason === undefined ? {} : { reason }), bytes_out: bytesOut, bytes_in: bytesIn });
  };
  deadline.signal.addEventListener('abort', () => {
    if (!connected) {
      finish('EGRESS_TIMEOUT', `no connection to ${checked.address}:${port} in time`);
      refuse(client, 504, 'EGRESS_TIMEOUT', `no connection to \`${host}:${port}\` in time`);
      upstream.destroy();
    }
  });
  upstream.once('connect', () => {
    connected = true;
    clearTimeout(timer);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (rest.length > 0) upstream.write(rest);
    client.on('data', (chunk: Buffer) => {
      bytesOut += chunk.length;
    });
    upstream.on('data', (chunk: Buffer) => {
      bytesIn += chunk.length;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  upstream.on('error', (e: NodeJS.ErrnoException) => {
    clearTimeout(timer);
    if (!connected) {
      finish('EGRESS_NETWORK', `${checked.address}:${port}: ${e.code ?? e.message}`);
      refuse(client, 502, 'EGRESS_NETWORK', `\`${host}:${port}\` could not be reached (${e.code ?? 'error'})`);
      return;
    }
    client.destroy();
  });
  upstream.once('close', () => {
    finish(connected ? 'ok' : 'EGRESS_NETWORK', connected ? undefined : 'closed before it connected');
    client.end();
  });
  client.once('close', () => {
    upstream.destroy();
  });
}

function refuse(client: Socket, status: number, code: string, reason: string): void {
  const body = `${code}: ${reason}\n`;
  client.end(`HTTP/1.1 ${String(status)} Refused\r\nContent-Type: text/plain\r\nX-Oracle-Refused: ${code}\r\nContent-Length: ${String(Buffer.byteLength(body))}\r\nConnection: close\r\n\r\n${body}`);
}
