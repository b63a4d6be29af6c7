import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from '../../server/adapters/agent/egress-proxy.js';

/** One CONNECT (or any head) over the proxy's socket: the status line, and what the tunnel echoes. */
function ask(socketPath: string, head: string, payload = 'ping'): Promise<{ status: string; echoed: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let got = Buffer.alloc(0);
    let status = '';
    s.on('error', reject);
    s.write(head);
    s.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (status === '' && end >= 0) {
        status = got.subarray(0, got.indexOf('\r\n')).toString();
        got = got.subarray(end + 4);
        if (status.includes(' 200 ')) s.end(payload);
      }
    });
    s.on('close', () => {
      resolve({ status, echoed: status.includes(' 200 ') ? got.toString() : '', body: status.includes(' 200 ') ? '' : got.toString() });
    });
  });
}

describe('the per-job egress proxy, against its own job', () => {
  it('closes cleanly whatever the job put where its socket was (a folder), and resolves no name with a NUL in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oracle-proxy-'));
    const resolved: string[] = [];
    const proxy = await startEgressProxy({ socketPath: join(dir, 'egress.sock'), allow: [{ host: '*.allowed.test', port: '443', why: 'x' }], resolve: (h) => (resolved.push(h), Promise.resolve(['93.184.216.34'])) });
    const r = await ask(proxy.socketPath, 'CONNECT evil.example\0.allowed.test:443 HTTP/1.1\r\n\r\n');
    expect(r.status).toMatch(/^HTTP\/1\.1 405 /u);
    expect(resolved).toEqual([]);
    rmSync(proxy.socketPath);
    mkdirSync(proxy.socketPath);
    await expect(proxy.close()).resolves.toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the per-job egress proxy', () => {
  let dir = '';
  let echo: Server;
  let control: Server;
  let echoPort = 0;
  let controlPort = 0;
  let proxy: EgressProxy;
  const reached: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oracle-proxy-'));
    const listen = (server: Server): Promise<number> =>
      new Promise((r) => {
        server.listen(0, '127.0.0.1', () => {
          r((server.address() as { port: number }).port);
        });
      });
    echo = createServer({ allowHalfOpen: true }, (s) => {
      s.pipe(s);
    });
    control = createServer((s) => {
      reached.push('control');
      s.end('control');
    });
    echoPort = await listen(echo);
    controlPort = await listen(control);
    proxy = await startEgressProxy({
      socketPath: join(dir, 'egress.sock'),
      allow: [
        { host: '127.0.0.1', port: String(echoPort), why: 'the stand-in API, named by its IP' },
        { host: 'api.internal', port: String(echoPort), why: 'a name that resolves to a private address' },
        { host: 'nowhere.example', port: '443', why: 'a name that does not resolve' },
      ],
      resolve: (host) => (host === 'api.internal' ? Promise.resolve(['10.1.2.3']) : Promise.reject(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' }))),
    });
  });
  afterAll(async () => {
    await proxy.close();
    echo.close();
    control.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tunnels to an allowed host and port, both ways, half-closed like git does', async () => {
    const r = await ask(proxy.socketPath, `CONNECT 127.0.0.1:${String(echoPort)} HTTP/1.1\r\nHost: x\r\n\r\n`, 'hello through the tunnel');
    expect(r.status).toBe('HTTP/1.1 200 Connection Established');
    expect(r.echoed).toBe('hello through the tunnel');
  });

  it('refuses every other destination, a private address behind a name, an unresolvable name, and anything but CONNECT', async () => {
    const cases: [string, string][] = [
      [`CONNECT 127.0.0.1:${String(controlPort)} HTTP/1.1\r\n\r\n`, 'EGRESS_DENIED'],
      [`CONNECT localhost:${String(echoPort)} HTTP/1.1\r\n\r\n`, 'EGRESS_DENIED'],
      [`CONNECT api.internal:${String(echoPort)} HTTP/1.1\r\n\r\n`, 'EGRESS_PRIVATE_ADDRESS'],
      ['CONNECT nowhere.example:443 HTTP/1.1\r\n\r\n', 'EGRESS_DNS'],
      [`GET http://127.0.0.1:${String(echoPort)}/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 'EGRESS_DENIED'],
      // A NUL would cut the name a resolver reads: `evil.example\0.allowed` must never match `*.allowed`.
      [`CONNECT 127.0.0.1\0.x:${String(echoPort)} HTTP/1.1\r\n\r\n`, 'EGRESS_DENIED'],
    ];
    for (const [head, code] of cases) {
      const r = await ask(proxy.socketPath, head);
      expect(r.status, head).toMatch(/^HTTP\/1\.1 4\d\d /u);
      expect(r.body, head).toContain(code);
    }
    expect(reached).toEqual([]);
  });

  it('keeps every connection with its host, address, outcome and bytes, for the audit log', () => {
    const kept = proxy.connections();
    expect(kept[0]).toEqual({ host: '127.0.0.1', port: String(echoPort), address: '127.0.0.1', outcome: 'ok', bytes_out: 'hello through the tunnel'.length, bytes_in: 'hello through the tunnel'.length });
    expect(kept.slice(1).map((c) => [c.host, c.outcome])).toEqual([
      ['127.0.0.1', 'EGRESS_DENIED'],
      ['localhost', 'EGRESS_DENIED'],
      ['api.internal', 'EGRESS_PRIVATE_ADDRESS'],
      ['nowhere.example', 'EGRESS_DNS'],
      ['(refused before a host was read)', 'EGRESS_DENIED'],
      ['(refused before a host was read)', 'EGRESS_DENIED'],
    ]);
  });
});
