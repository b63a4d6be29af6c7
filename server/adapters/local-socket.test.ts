import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../tests/fixtures/temp-tree.js';
import { listenLocal, requestLocal } from './local-socket.js';

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

  it('is not opened where the path is too long for a socket (the clients use HTTPS)', async () => {
    expect(await listenLocal(join(tree.root, 'x'.repeat(120), 'gate.sock'), () => Promise.resolve({}))).toBeUndefined();
  });
});
