import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { call } from '../fixtures/https-client.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The gate's terminals under abuse (issue 16 review): a connection reset in the middle of an
 * upgrade, an attached client sending a frame far over the limit, and a program flooding its
 * terminal (`yes`) all leave the gate running and answering.
 */
describe.runIf(process.platform === 'linux')('terminals under abuse', () => {
  let tree: TempTree;
  let running: Running;
  let ca = '';
  const desktop = (): Record<string, string> => ({ authorization: `Desktop ${running.desktop.localToken}`, 'content-type': 'application/json' });
  const healthy = async (): Promise<boolean> => (await call(`${running.url}/api/v1/health`, { ca })).status === 200;

  beforeAll(async () => {
    tree = tempTree('oracle-term-abuse-');
    const app = tree.dir('projects/app');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n`);
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    const opened = await call(`${running.url}/api/v1/terms`, { ca, method: 'POST', headers: desktop(), body: JSON.stringify({ name: 'flood', program: '/usr/bin/yes', args: ['flood-line'], cwd: app }) });
    expect(opened.status).toBe(201);
  });

  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  it('keeps answering, its memory bounded, while a program floods its terminal', async () => {
    // yes writes as fast as it can. (The pause past a 4 MiB backlog is not what holds here: this
    // host parses a flood as fast as the PTY delivers it; the pause is for one that does not.)
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 10; i++) {
      expect(await healthy()).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * 1024 * 1024);
    const screen = await call(`${running.url}/api/v1/terms/flood?lines=3`, { ca, headers: desktop() });
    expect(String(screen.body['text'])).toContain('flood-line');
  });

  it('survives a reset in the middle of an upgrade and an attached client’s oversized frame', async () => {
    const port = new URL(running.url).port;
    for (let i = 0; i < 5; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' }, () => {
        socket.write(`GET /api/v1/terms/flood/attach HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}\r\n\r\n`);
        socket.destroy();
      });
      socket.on('error', () => undefined);
    }
    const ws = new WebSocket(`${running.url.replace('https:', 'wss:')}/api/v1/terms/flood/attach`, { ca, headers: { authorization: `Desktop ${running.desktop.localToken}` } });
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => { resolve(code); }));
    ws.on('error', () => undefined);
    await new Promise<void>((resolve) => ws.once('open', () => { resolve(); }));
    ws.send(JSON.stringify({ t: 'in', d: 'x'.repeat(1024 * 1024) }));
    // Cut off (1006) or closed as too big (1009): either way that client is gone, and the gate is not.
    expect([1006, 1009]).toContain(await closed);
    expect(await healthy()).toBe(true);
    const unauthenticated = new WebSocket(`${running.url.replace('https:', 'wss:')}/api/v1/terms/flood/attach`, { ca });
    const refused = await new Promise<number>((resolve) => {
      unauthenticated.on('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); });
      unauthenticated.on('error', () => { resolve(-1); });
    });
    expect(refused).toBe(401);
    expect(await healthy()).toBe(true);
  });
});
