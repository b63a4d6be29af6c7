import { createHash, X509Certificate } from 'node:crypto';
import { chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect, createServer } from 'node:net';
import { arch, release, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { TLSSocket } from 'node:tls';

/**
 * What `oracle acceptance` (SPEC §13) needs of the host itself, besides the gate it probes: a
 * scratch tree, a listener that counts connections, a scan of the home for a canary, the live
 * process table, and HTTPS and SSE clients that trust only the home's CA. The battery observes
 * with these; agent work still goes through the gate and the toolhost only.
 */

/** Hex SHA-256 of a text's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A fresh private directory under the system temp dir, by its real path (a /tmp link resolved). */
export function makeTempRoot(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** The battery writes its policy, canary and audit lines into its home: it must start empty. */
export function isEmptyOrAbsent(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

export function makeDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

export function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Gives a tree to an account (the battery's project to root's dedicated job account). */
export function giveTree(path: string, owner: { readonly uid: number; readonly gid: number }): void {
  chownSync(path, owner.uid, owner.gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) {
    const child = join(path, name);
    if (lstatSync(child).isSymbolicLink()) continue;
    giveTree(child, owner);
  }
}

export function writeBytes(path: string, bytes: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

export function removeTree(path: string): void {
  rmSync(path, { recursive: true, force: true, maxRetries: 2 });
}

export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Size and owner of a path without following a final link; undefined when absent. */
export function pathFacts(path: string): { readonly size: number; readonly uid: number; readonly kind: 'file' | 'dir' | 'other' } | undefined {
  try {
    const s = lstatSync(path);
    return { size: s.size, uid: s.uid, kind: s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other' };
  } catch {
    return undefined;
  }
}

export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export interface ScanResult {
  readonly files: number;
  readonly bytes: number;
  /** Files holding any of the needles, with the index of the needle found. */
  readonly hits: readonly { readonly path: string; readonly needle: number }[];
  readonly skipped: readonly string[];
  readonly unreadable: readonly string[];
}

/**
 * Every regular file under `root` (links are not followed), searched for each needle as bytes.
 * `skip` names files the caller expects to hold a needle (the secret store itself).
 */
export function scanTree(root: string, needles: readonly string[], skip: (path: string) => boolean): ScanResult {
  const wanted = needles.map((n) => Buffer.from(n, 'utf8'));
  const hits: { path: string; needle: number }[] = [];
  const skipped: string[] = [];
  const unreadable: string[] = [];
  let files = 0;
  let bytes = 0;
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      unreadable.push(dir);
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        if (skip(path)) {
          skipped.push(path);
          continue;
        }
        let content: Buffer;
        try {
          content = readFileSync(path);
        } catch {
          unreadable.push(path);
          continue;
        }
        files += 1;
        bytes += content.length;
        wanted.forEach((needle, i) => {
          if (content.includes(needle)) hits.push({ path, needle: i });
        });
      }
    }
  };
  walk(root);
  return { files, bytes, hits, skipped, unreadable };
}

/** Host PIDs whose command line contains `marker`; undefined where there is no /proc to read. */
export function processesWith(marker: string): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const out: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(marker)) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

export interface CountingListener {
  readonly port: number;
  connections(): number;
  close(): Promise<void>;
}

/** A TCP listener on 127.0.0.1 that counts every connection it accepts and closes it at once. */
export function openCountingListener(): Promise<CountingListener> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({
        port,
        connections: () => count,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => {
              done();
            });
          }),
      });
    });
  });
}

/** One connection from the host itself (the control: the listener really accepts). */
export function connectFromHost(port: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('TIMEOUT');
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('CONNECTED');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(e.code ?? 'ERROR');
    });
  });
}

export interface HttpsReply {
  readonly status: number;
  readonly text: string;
  /** SHA-256 (base64) of the SubjectPublicKeyInfo of the certificate the server presented. */
  readonly peerSpkiSha256: string | undefined;
}

/** One HTTPS request trusting only `ca`, with the SPKI hash of the key that answered. */
export function httpsRequest(url: string, options: { readonly ca: string; readonly method?: string; readonly headers?: Readonly<Record<string, string>>; readonly body?: string; readonly timeoutMs?: number }): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: options.ca, method: options.method ?? 'GET', headers: { 'content-type': 'application/json', ...options.headers }, timeout: options.timeoutMs ?? 60_000 }, (res) => {
      const socket = res.socket;
      const raw = socket instanceof TLSSocket ? (socket.getPeerCertificate().raw as Buffer | undefined) : undefined;
      const peerSpkiSha256 = raw === undefined ? undefined : createHash('sha256').update(new X509Certificate(raw).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), peerSpkiSha256 });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in time`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface EventStream {
  /** Event names, in arrival order. */
  events(): readonly string[];
  /** Everything received on the stream, byte for byte as text (what a canary scan must cover). */
  raw(): string;
  close(): void;
}

/** A live SSE stream (`text/event-stream`) trusting only `ca`; resolves once the response starts. */
export function openEventStream(url: string, options: { readonly ca: string; readonly headers: Readonly<Record<string, string>> }): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    let raw = '';
    const req = request(url, { ca: options.ca, headers: { accept: 'text/event-stream', ...options.headers } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
      });
      res.on('error', () => undefined);
      resolve({
        events: () => [...raw.matchAll(/^event: ?(.*)$/gmu)].map((m) => (m[1] ?? '').trim()),
        raw: () => raw,
        close: () => {
          req.destroy();
        },
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'ECONNRESET') reject(e);
    });
    req.end();
  });
}

/** Who this process runs as, and on what. */
export function processIdentity(): { readonly uid: number | null; readonly gid: number | null; readonly user: string } {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = 'unknown';
  }
  return { uid: process.getuid?.() ?? null, gid: process.getgid?.() ?? null, user };
}

export function hostSystem(): { readonly platform: NodeJS.Platform; readonly release: string; readonly arch: string; readonly node: string } {
  return { platform: process.platform, release: release(), arch: arch(), node: process.version };
}
