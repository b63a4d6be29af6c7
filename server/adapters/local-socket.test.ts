import { statSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../tests/fixtures/temp-tree.js';
import { listenLocal, requestLocal } from './local-socket.js';
import { SpareConnection } from './local-spare.js';

describe('the gate’s local channel (a Unix socket in the home)', () => {
  const tree = tempTree('oracle-sock-');
  afterAll(() => {
    tree.dispose();
  });

  it('is 0600, answers one request per connection with what the handler says, and goes away on close', async () => {
    const path = join(tree.dir('data'), 'gate.sock');
    const seen: string[] = [];
    const channel = await listenLocal(path, ({ authorization, body }) => {
      seen.push(`${authorization}|${body.toString('utf8')}`);
      return Promise.resolve(authorization === 'Bearer good' ? { ok: true } : { error: 'needs an agent credential' });
    });
    expect(channel?.path).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await requestLocal(path, { authorization: 'Bearer good', body: Buffer.from('{"a":1}\n{"b":2}'), timeoutMs: 5000 })).toEqual({ ok: true });
    expect(await requestLocal(path, { authorization: 'Bearer junk', body: Buffer.alloc(0), timeoutMs: 5000 })).toEqual({ error: 'needs an agent credential' });
    expect(seen).toEqual(['Bearer good|{"a":1}\n{"b":2}', 'Bearer junk|']);
    // No header line: refused before the handler runs.
    const raw = await new Promise<string>((resolve) => {
      const s = connect(path, () => s.end('not a header'));
      let out = '';
      s.on('data', (c: Buffer) => (out += c.toString('utf8')));
      s.on('end', () => {
        resolve(out);
      });
    });
    expect(JSON.parse(raw)).toEqual({ error: 'the request does not start with a header line' });
    expect(seen).toHaveLength(2);
    await channel?.close();
    await expect(requestLocal(path, { authorization: 'Bearer good', body: Buffer.alloc(0), timeoutMs: 1000 })).rejects.toThrow();
  });

  it('reads a request that arrives a byte at a time: its header line split, its declared length reached in pieces', async () => {
    const path = join(tree.dir('drip'), 'gate.sock');
    const seen: string[] = [];
    const channel = await listenLocal(path, ({ authorization, body, route }) => {
      seen.push(`${authorization}|${route.kind}|${body.toString('utf8')}`);
      return Promise.resolve({ ok: true });
    });
    const payload = '{"tool":"fs.read","args":{"path":"/p/a"}}';
    const header = JSON.stringify({ v: 1, authorization: 'Bearer good', route: 'action', wait: 0, length: Buffer.byteLength(payload) });
    const bytes = Buffer.from(`${header}\n${payload}`);
    const answer = await new Promise<string>((resolve) => {
      const s = connect(path, () => {
        const drip = (i: number): void => {
          if (i < bytes.length) s.write(bytes.subarray(i, i + 1), () => setImmediate(() => { drip(i + 1); }));
        };
        drip(0);
      });
      let out = '';
      s.on('data', (c: Buffer) => (out += c.toString('utf8')));
      s.on('end', () => {
        resolve(out);
      });
    });
    expect(JSON.parse(answer)).toEqual({ ok: true });
    expect(seen).toEqual([`Bearer good|action|${payload}`]);
    await channel?.close();
  });

  it('reads the answer at its newline: a gate that has not closed its side yet does not hold the caller', async () => {
    const path = join(tree.dir('slow-close'), 'gate.sock');
    const held = new Set<Socket>();
    // A stand-in gate that answers and then keeps the connection open.
    const server = createServer((s) => {
      held.add(s);
      s.once('data', () => s.write('{"ok":true}\n'));
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      expect(await requestLocal(path, { authorization: 'Bearer good', body: Buffer.from('{}'), timeoutMs: 2000, route: { kind: 'action', waitS: 0 } })).toEqual({ ok: true });
    } finally {
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    }
  });

  it('sends a request on a connection opened ahead, once; never one to a gate that closed it or to another gate', async () => {
    const path = join(tree.dir('spare'), 'gate.sock');
    const seen: string[] = [];
    let channel = await listenLocal(path, ({ body, signal }) => {
      seen.push(body.toString('utf8'));
      // A request that says `wait` is held until its caller hangs up.
      if (body.toString('utf8') === 'wait') return new Promise((resolve) => { signal.addEventListener('abort', () => { resolve({ withdrawn: true }); }); });
      return Promise.resolve({ ok: seen.length });
    });
    const spare = new SpareConnection();
    const connectedOnce = async (): Promise<void> => {
      for (let i = 0; i < 100 && !spare.ready('g1'); i++) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      spare.prepare(path, 'g1');
      await connectedOnce();
      const kept = spare.take('g1');
      expect(kept).toBeDefined();
      // Taken means handed over: a second take has nothing until the next prepare.
      expect(spare.take('g1')).toBeUndefined();
      expect(await requestLocal(path, { authorization: 'Bearer a', body: Buffer.from('one'), timeoutMs: 2000, connection: kept })).toEqual({ ok: 1 });
      expect(kept?.destroyed).toBe(true);

      // Kept for one gate, asked for by another (a restarted gate has a new pid): not handed out.
      spare.prepare(path, 'g1');
      await connectedOnce();
      expect(spare.take('g2')).toBeUndefined();

      // Withdrawing a call made on a kept connection hangs up, as on a new one: the gate sees it.
      spare.prepare(path, 'g1');
      await connectedOnce();
      const withdraw = new AbortController();
      const waiting = requestLocal(path, { authorization: 'Bearer a', body: Buffer.from('wait'), timeoutMs: 5000, route: { kind: 'action', waitS: 5 }, connection: spare.take('g1'), signal: withdraw.signal });
      for (let i = 0; i < 100 && !seen.includes('wait'); i++) await new Promise((r) => setTimeout(r, 10));
      withdraw.abort();
      await expect(waiting).rejects.toThrow('withdrawn by the caller');

      // The gate stops: the connection it closed is dropped, never handed out.
      spare.prepare(path, 'g1');
      await connectedOnce();
      await channel?.close();
      for (let i = 0; i < 100 && spare.ready('g1'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(spare.take('g1')).toBeUndefined();
      // A new gate on the same path answers a new connection as before.
      channel = await listenLocal(path, () => Promise.resolve({ again: true }));
      expect(await requestLocal(path, { authorization: 'Bearer a', body: Buffer.from('two'), timeoutMs: 2000, connection: spare.take('g1') })).toEqual({ again: true });
      expect(seen).toEqual(['one', 'wait']);
    } finally {
      spare.drop();
      await channel?.close();
    }
  });

  it('is not opened where the path is too long for a socket (the clients use HTTPS)', async () => {
    expect(await listenLocal(join(tree.root, 'x'.repeat(120), 'gate.sock'), () => Promise.resolve({}))).toBeUndefined();
  });
});
