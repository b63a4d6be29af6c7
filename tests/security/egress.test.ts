import { createSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { isIPv4, isIPv6, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokeredFetch, type BrokerOptions, type BrokerResult, type EgressTarget } from '../../server/adapters/agent/egress.js';
import { parseIPv6 } from '../../server/core/net/ip-ranges.js';

/**
 * SPEC §6 net.fetch, red team: real loopback HTTP servers and a real UDP DNS server whose answers
 * change between queries. A listener that must never be reached counts its connections.
 */

interface DnsStub {
  readonly port: number;
  /** Each A query takes the next answer list (the last one repeats); AAAA reads the current one. */
  set(name: string, answers: readonly (readonly string[])[]): void;
  queries(name: string): number;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

function dnsAnswer(query: Buffer, stub: { table: Map<string, readonly (readonly string[])[]>; counts: Map<string, number> }): Buffer {
  let offset = 12;
  const labels: string[] = [];
  for (let len = query[offset]!; len !== 0; len = query[offset]!) {
    labels.push(query.subarray(offset + 1, offset + 1 + len).toString('latin1'));
    offset += len + 1;
  }
  const type = query.readUInt16BE(offset + 1);
  const question = query.subarray(12, offset + 5);
  const name = labels.join('.').toLowerCase();
  const answers = stub.table.get(name);
  const seen = stub.counts.get(name) ?? 0;
  if (type === TYPE_A) stub.counts.set(name, seen + 1);
  const current = answers?.[Math.min(type === TYPE_A ? seen : Math.max(seen - 1, 0), answers.length - 1)] ?? [];
  const records = current.flatMap((ip) => {
    if (type === TYPE_A && isIPv4(ip)) return [Buffer.from(ip.split('.').map(Number))];
    if (type !== TYPE_AAAA || !isIPv6(ip)) return [];
    const bytes = Buffer.alloc(16);
    const value = parseIPv6(ip)!;
    bytes.writeBigUInt64BE(value >> 64n, 0);
    bytes.writeBigUInt64BE(value & 0xffffffffffffffffn, 8);
    return [bytes];
  });
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  header.writeUInt16BE(0x8180 | (answers === undefined ? 3 : 0), 2); // response, RD, RA; NXDOMAIN if unknown
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const rrs = records.map((rdata) => {
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // pointer to the question name
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(0, 6); // TTL 0: nothing may cache the first answer
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...rrs]);
}

async function startDnsStub(): Promise<DnsStub> {
  const state = { table: new Map<string, readonly (readonly string[])[]>(), counts: new Map<string, number>() };
  const socket = createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    socket.send(dnsAnswer(msg, state), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    set: (name, answers) => {
      state.table.set(name, answers);
      state.counts.set(name, 0);
    },
    queries: (name) => state.counts.get(name) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        socket.close(() => {
          resolve();
        });
      }),
  };
}

/** A resolver built on c-ares pointed at the stub: A then AAAA, addresses only. */
function stubResolver(port: number): (host: string) => Promise<string[]> {
  const resolver = new dns.Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  const none = (e: NodeJS.ErrnoException): string[] => {
    if (e.code === 'ENODATA') return [];
    throw e;
  };
  return async (host) => {
    const v4 = await resolver.resolve4(host).catch(none);
    const v6 = await resolver.resolve6(host).catch(none);
    return [...v4, ...v6];
  };
}

interface Listener {
  readonly port: number;
  readonly connections: number;
  readonly requests: string[];
  close(): Promise<void>;
}

async function listen(handler: RequestListener): Promise<Listener> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

function echo(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** The allowed server: each path is one behaviour a test needs. */
const origin: RequestListener = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://origin');
  const to = url.searchParams.get('to');
  switch (url.pathname) {
    case '/hello':
      res.end('hello from origin');
      return;
    case '/echo':
      echo(req, res);
      return;
    case '/big':
      res.end('x'.repeat(100_000));
      return;
    case '/exact':
      res.end('y'.repeat(1000));
      return;
    case '/endless': {
      const timer = setInterval(() => res.write('z'.repeat(16_384)), 1);
      res.on('close', () => {
        clearInterval(timer);
      });
      return;
    }
    case '/stall':
      return; // never answers
    case '/slow-body':
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      return;
    case '/redirect':
      res.writeHead(url.searchParams.get('status') === '307' ? 307 : 302, { location: to ?? '/' });
      res.end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    default:
      res.writeHead(404).end();
  }
};

let stub: DnsStub;
let resolve: (host: string) => Promise<string[]>;
let server: Listener;
let other: Listener;
let trap: Listener;

beforeAll(async () => {
  stub = await startDnsStub();
  resolve = stubResolver(stub.port);
  server = await listen(origin);
  other = await listen(echo);
  trap = await listen((_req, res) => res.end('trap reached'));
});

afterAll(async () => {
  await Promise.all([stub.close(), server.close(), other.close(), trap.close()]);
});

function options(allow: readonly EgressTarget[], extra: Partial<BrokerOptions> = {}): BrokerOptions {
  return { allow, resolve, maxBytes: 64 * 1024, timeoutMs: 3000, maxRedirects: 3, ...extra };
}

const allowServer = (): EgressTarget => ({ host: '127.0.0.1', port: String(server.port), why: 'test origin' });
const get = (url: string, headers: Record<string, string> = {}) => ({ url, method: 'GET', headers });

function expectFailure(result: BrokerResult, code: string): string {
  expect(result).toMatchObject({ ok: false, code });
  return result.ok ? '' : result.message;
}

function expectBody(result: BrokerResult): string {
  expect(result.ok).toBe(true);
  return result.ok ? result.body.toString('utf8') : '';
}

describe('egress broker: DNS rebinding (SPEC §6)', () => {
  it('resolves once and connects to the checked public address, never to the rebound loopback', async () => {
    const trapped = trap.connections;
    stub.set('rebind.test', [['93.184.216.34'], ['127.0.0.1']]);
    const started = Date.now();
    const result = await brokeredFetch(get(`http://rebind.test:${trap.port}/`), options([{ host: 'rebind.test', port: '*', why: 't' }], { timeoutMs: 500 }));
    // No internet here: the connection to the public address fails or times out, as it should.
    expect(result.ok).toBe(false);
    expect(['EGRESS_NETWORK', 'EGRESS_TIMEOUT']).toContain(result.ok ? 'ok' : result.code);
    // Within its own 500 ms deadline, with room for a loaded machine: no second attempt elsewhere.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(stub.queries('rebind.test')).toBe(1);
    expect(trap.connections).toBe(trapped);
    // The second lookup a naive client makes to connect would have been answered with loopback.
    expect(await resolve('rebind.test')).toEqual(['127.0.0.1']);
    expect(trap.connections).toBe(trapped);
  });
});

describe('egress broker: private addresses (SPEC §6)', () => {
  it.each([
    [['127.0.0.1']],
    [['10.1.2.3']],
    [['169.254.169.254']],
    [['100.64.0.1']],
    [['0.0.0.0']],
    [['::1']],
    [['::ffff:127.0.0.1']],
    [['fd00:ec2::254']],
    [['93.184.216.34', '127.0.0.1']], // one bad address is enough
  ])('refuses a name resolving to %j and never connects', async (answers) => {
    const trapped = trap.connections;
    stub.set('inner.test', [answers]);
    const result = await brokeredFetch(get(`http://inner.test:${trap.port}/`), options([{ host: 'inner.test', port: '*', why: 't' }]));
    expectFailure(result, 'EGRESS_PRIVATE_ADDRESS');
    expect(stub.queries('inner.test')).toBe(1);
    expect(trap.connections).toBe(trapped);
  });

  it('opens loopback only for the IP literal, not for a listed name that resolves to it', async () => {
    const trapped = trap.connections;
    stub.set('local.test', [['127.0.0.1']]);
    const allow = [
      { host: '127.0.0.1', port: String(trap.port), why: 'literal' },
      { host: 'local.test', port: String(trap.port), why: 'name' },
    ];
    expectFailure(await brokeredFetch(get(`http://local.test:${trap.port}/`), options(allow)), 'EGRESS_PRIVATE_ADDRESS');
    expect(trap.connections).toBe(trapped);
  });

  it('checks the allowlist before any DNS query', async () => {
    stub.set('unlisted.test', [['93.184.216.34']]);
    expectFailure(await brokeredFetch(get('https://unlisted.test/'), options([allowServer()])), 'EGRESS_DENIED');
    expect(stub.queries('unlisted.test')).toBe(0);
  });

  it('never lets a wildcard entry match an IP literal', async () => {
    const trapped = trap.connections;
    const allow = [{ host: '*.0.0.1', port: '*', why: 't' }];
    expectFailure(await brokeredFetch(get(`http://127.0.0.1:${trap.port}/`), options(allow)), 'EGRESS_DENIED');
    expect(trap.connections).toBe(trapped);
  });

  it('keeps a metadata address closed even when its literal is listed', async () => {
    const allow = [{ host: '169.254.169.254', port: '*', why: 't' }];
    expectFailure(await brokeredFetch(get('http://169.254.169.254/latest/meta-data/'), options(allow)), 'EGRESS_PRIVATE_ADDRESS');
  });

  it('reports a name that does not resolve as EGRESS_DNS', async () => {
    expectFailure(await brokeredFetch(get('https://nowhere.test/'), options([{ host: 'nowhere.test', port: undefined, why: 't' }])), 'EGRESS_DNS');
  });

  it('matches ports: an entry without one allows only the scheme default', async () => {
    const trapped = trap.connections;
    const allow = [{ host: '127.0.0.1', port: undefined, why: 't' }];
    expectFailure(await brokeredFetch(get(`http://127.0.0.1:${trap.port}/`), options(allow)), 'EGRESS_DENIED');
    expect(trap.connections).toBe(trapped);
  });

  it.each(['ftp://127.0.0.1/', 'file:///etc/passwd', 'not a url', `http://user:pw@127.0.0.1:1/`])('refuses `%s` as URL_INVALID', async (url) => {
    expectFailure(await brokeredFetch(get(url), options([{ host: '127.0.0.1', port: '*', why: 't' }])), 'URL_INVALID');
  });
});

describe('egress broker: an explicitly listed IP literal works end to end (SPEC §6)', () => {
  it('answers status, body, final URL and the connected address', async () => {
    const result = await brokeredFetch(get(`http://127.0.0.1:${server.port}/hello`), options([allowServer()]));
    expect(expectBody(result)).toBe('hello from origin');
    expect(result).toMatchObject({ status: 200, truncated: false, finalUrl: `http://127.0.0.1:${server.port}/hello`, address: '127.0.0.1' });
  });

  it('reaches a listed listener, so the connection counts above mean something', async () => {
    const trapped = trap.connections;
    const allow = [{ host: '127.0.0.1', port: String(trap.port), why: 't' }];
    expect(expectBody(await brokeredFetch(get(`http://127.0.0.1:${trap.port}/`), options(allow)))).toBe('trap reached');
    expect(trap.connections).toBe(trapped + 1);
  });

  it('sends a POST body and the Host header of the URL', async () => {
    const result = await brokeredFetch({ url: `http://127.0.0.1:${server.port}/echo`, method: 'post', headers: { 'content-type': 'text/plain' }, body: 'payload' }, options([allowServer()]));
    const reply = JSON.parse(expectBody(result)) as { method: string; headers: Record<string, string>; body: string };
    expect(reply).toMatchObject({ method: 'POST', body: 'payload', headers: { host: `127.0.0.1:${server.port}` } });
  });
});

describe('egress broker: redirects are checked hop by hop (SPEC §6)', () => {
  const via = (to: string, status = '302'): string => `http://127.0.0.1:${server.port}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  it('refuses a redirect to an unlisted private literal', async () => {
    const message = expectFailure(await brokeredFetch(get(via('http://10.0.0.1/')), options([allowServer()])), 'EGRESS_DENIED');
    expect(message).toMatch(/^redirect to /u);
  });

  it('refuses a redirect to another loopback port that is not listed', async () => {
    const trapped = trap.connections;
    expectFailure(await brokeredFetch(get(via(`http://127.0.0.1:${trap.port}/`)), options([allowServer()])), 'EGRESS_DENIED');
    expect(trap.connections).toBe(trapped);
  });

  it('refuses a redirect to an unlisted name without resolving it', async () => {
    const trapped = trap.connections;
    stub.set('evil.test', [['127.0.0.1']]);
    expectFailure(await brokeredFetch(get(via(`http://evil.test:${trap.port}/`)), options([allowServer()])), 'EGRESS_DENIED');
    expect(stub.queries('evil.test')).toBe(0);
    expect(trap.connections).toBe(trapped);
  });

  it.each(['127.0.0.1', '169.254.169.254'])('refuses a redirect to a listed name that resolves to %s', async (address) => {
    const trapped = trap.connections;
    stub.set('api.corp.test', [[address]]);
    const allow = [allowServer(), { host: '*.corp.test', port: '*', why: 't' }];
    const message = expectFailure(await brokeredFetch(get(via(`http://api.corp.test:${trap.port}/`)), options(allow)), 'EGRESS_PRIVATE_ADDRESS');
    expect(message).toMatch(/^redirect to /u);
    expect(trap.connections).toBe(trapped);
  });

  it('refuses a redirect to another scheme, and a redirect loop', async () => {
    expectFailure(await brokeredFetch(get(via('file:///etc/passwd')), options([allowServer()])), 'EGRESS_REDIRECT');
    const message = expectFailure(await brokeredFetch(get(`http://127.0.0.1:${server.port}/loop`), options([allowServer()])), 'EGRESS_REDIRECT');
    expect(message).toBe('more than 3 redirects');
  });

  it('does not redirect a POST', async () => {
    const before = server.requests.length;
    const request = { url: via('/hello', '307'), method: 'POST', headers: {}, body: 'data' };
    expectFailure(await brokeredFetch(request, options([allowServer()])), 'EGRESS_REDIRECT');
    expect(server.requests.slice(before)).toHaveLength(1);
  });

  it('follows an allowed redirect, keeping headers within the origin and dropping them across', async () => {
    const allow = [allowServer(), { host: '127.0.0.1', port: String(other.port), why: 'second origin' }];
    const headers = { 'x-api-key': 'k-123' };
    const same = await brokeredFetch(get(via('/echo'), headers), options(allow));
    expect(same).toMatchObject({ ok: true, finalUrl: `http://127.0.0.1:${server.port}/echo` });
    expect(expectBody(same)).toContain('k-123');
    const cross = await brokeredFetch(get(via(`http://127.0.0.1:${other.port}/echo`), headers), options(allow));
    expect(cross).toMatchObject({ ok: true, finalUrl: `http://127.0.0.1:${other.port}/echo` });
    expect(expectBody(cross)).not.toContain('k-123');
  });
});

describe('egress broker: response size cap (SPEC §6)', () => {
  it('cuts the body at maxBytes and says so', async () => {
    const result = await brokeredFetch(get(`http://127.0.0.1:${server.port}/big`), options([allowServer()], { maxBytes: 1000 }));
    expect(expectBody(result)).toBe('x'.repeat(1000));
    expect(result).toMatchObject({ truncated: true });
  });

  it('does not mark a body of exactly maxBytes as truncated', async () => {
    const result = await brokeredFetch(get(`http://127.0.0.1:${server.port}/exact`), options([allowServer()], { maxBytes: 1000 }));
    expect(expectBody(result)).toHaveLength(1000);
    expect(result).toMatchObject({ truncated: false });
  });

  it('stops reading an endless body', async () => {
    const started = Date.now();
    const result = await brokeredFetch(get(`http://127.0.0.1:${server.port}/endless`), options([allowServer()], { maxBytes: 50_000, timeoutMs: 5000 }));
    expect(expectBody(result)).toHaveLength(50_000);
    expect(result).toMatchObject({ truncated: true });
    // Stopped at maxBytes, not at the 5 s deadline.
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('egress broker: supplied headers (SPEC §6)', () => {
  it('strips credentials and forwarding claims and keeps the rest', async () => {
    const headers = {
      Authorization: 'Bearer secret',
      Cookie: 'session=secret',
      'Proxy-Authorization': 'Basic secret',
      'X-Forwarded-For': '10.0.0.1',
      'X-Forwarded-Host': 'internal',
      Forwarded: 'for=10.0.0.1',
      'X-Real-IP': '10.0.0.1',
      Via: '1.1 proxy',
      'X-Api-Key': 'visible',
      Accept: 'application/json',
    };
    const result = await brokeredFetch(get(`http://127.0.0.1:${server.port}/echo`, headers), options([allowServer()]));
    const received = (JSON.parse(expectBody(result)) as { headers: Record<string, string> }).headers;
    for (const name of ['authorization', 'cookie', 'proxy-authorization', 'x-forwarded-for', 'x-forwarded-host', 'forwarded', 'x-real-ip', 'via']) {
      expect(received).not.toHaveProperty(name);
    }
    expect(received).toMatchObject({ 'x-api-key': 'visible', accept: 'application/json', host: `127.0.0.1:${server.port}` });
    expect(JSON.stringify(received)).not.toContain('secret');
  });

  it.each<[string, Record<string, string>]>([
    ['Host', { Host: 'internal.example' }],
    ['Transfer-Encoding', { 'Transfer-Encoding': 'chunked' }],
    ['Connection', { Connection: 'keep-alive, X-Api-Key' }],
    ['a CR LF value', { 'X-Note': 'a\r\nX-Injected: 1' }],
    ['a bad name', { 'X Note': 'a' }],
    ['a name given twice', { Accept: 'a', accept: 'b' }],
  ])('refuses %s before connecting', async (_label, headers) => {
    const before = server.connections;
    expectFailure(await brokeredFetch(get(`http://127.0.0.1:${server.port}/echo`, headers), options([allowServer()])), 'ARG_SHAPE');
    expect(server.connections).toBe(before);
  });

  it('refuses a method it does not send', async () => {
    expectFailure(await brokeredFetch({ url: `http://127.0.0.1:${server.port}/hello`, method: 'TRACE', headers: {} }, options([allowServer()])), 'ARG_SHAPE');
  });
});

describe('egress broker: one deadline for the whole fetch (SPEC §6)', () => {
  it.each(['/stall', '/slow-body'])('times out on %s', async (path) => {
    const started = Date.now();
    expectFailure(await brokeredFetch(get(`http://127.0.0.1:${server.port}${path}`), options([allowServer()], { timeoutMs: 300 })), 'EGRESS_TIMEOUT');
    // One 300 ms deadline for the whole fetch, not one per read; the rest is room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops a fetch the caller withdrew, long before its deadline', async () => {
    const withdrawn = new AbortController();
    const started = Date.now();
    setTimeout(() => {
      withdrawn.abort();
    }, 100);
    expectFailure(await brokeredFetch(get(`http://127.0.0.1:${server.port}/stall`), { ...options([allowServer()], { timeoutMs: 20_000 }), signal: withdrawn.signal }), 'CANCELLED');
    // Withdrawn at 100 ms: ended long before its 20 s deadline.
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out on a resolver that never answers', async () => {
    const hang = (): Promise<string[]> => new Promise<string[]>(() => undefined);
    const result = await brokeredFetch(get('https://slow.test/'), { ...options([{ host: 'slow.test', port: undefined, why: 't' }], { timeoutMs: 200 }), resolve: hang });
    expectFailure(result, 'EGRESS_TIMEOUT');
  });

  it('reports a refused connection as EGRESS_NETWORK', async () => {
    const closed = await listen(() => undefined);
    const port = closed.port;
    await closed.close();
    const allow = [{ host: '127.0.0.1', port: String(port), why: 't' }];
    expectFailure(await brokeredFetch(get(`http://127.0.0.1:${port}/`), options(allow)), 'EGRESS_NETWORK');
  });
});
