import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../tests/fixtures/temp-tree.js';
import { ensureTlsMaterial } from './certs.js';
import { HANDSHAKE_TIMEOUT_MS, listenHttps } from './https-listener.js';

describe('the HTTPS listener', () => {
  const tree = tempTree('oracle-listen-');
  afterAll(() => {
    tree.dispose();
  });

  it('closes a connection that does not finish its TLS handshake in time (Node waited 120 s)', async () => {
    expect(HANDSHAKE_TIMEOUT_MS).toBeLessThanOrEqual(10_000);
    const tls = await ensureTlsMaterial(tree.dir('home'), { dns: ['localhost'], ips: ['127.0.0.1'] });
    const app = new Hono();
    app.get('/', (c) => c.text('ok'));
    const listening = await listenHttps(app, { hostname: '127.0.0.1', port: 0, key: tls.key, cert: tls.cert, handshakeTimeoutMs: 300 });
    try {
      // A client that connects and never sends a byte: the server ends it.
      const closed = await new Promise<boolean>((resolve) => {
        const socket = connect(listening.port, '127.0.0.1');
        const guard = setTimeout(() => {
          socket.destroy();
          resolve(false);
        }, 5000);
        socket.on('close', () => {
          clearTimeout(guard);
          resolve(true);
        });
        socket.on('error', () => undefined);
      });
      expect(closed).toBe(true);
    } finally {
      await listening.close();
    }
  });
});
