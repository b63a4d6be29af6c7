import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { afterEach, describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers.js';

const OPTIONS: Parameters<typeof securityHeaders>[0] = { contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] }, referrerPolicy: 'no-referrer', overwrite: false };

function appWith(middleware: ReturnType<typeof securityHeaders>): Hono {
  const app = new Hono();
  app.use('*', middleware);
  app.get('/plain', (c) => c.json({ ok: true }));
  app.get('/own', (c) => {
    c.header('content-security-policy', "default-src 'self'");
    return c.text('page');
  });
  app.get('/stream', (c) =>
    c.body(
      new ReadableStream({
        start: (s) => {
          s.close();
        },
      }),
    ),
  );
  return app;
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function overNode(app: Hono, path: string): Promise<Headers> {
  const listener = getRequestListener(app.fetch);
  const server = createServer((req, res) => {
    void listener(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const res = await fetch(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}${path}`);
  await res.arrayBuffer();
  return res.headers;
}

/** What hono's own middleware sets, header by header (the reference). */
async function reference(path: string): Promise<[string, string][]> {
  const res = await appWith(secureHeaders(OPTIONS)).request(path);
  return [...res.headers.entries()].filter(([name]) => name !== 'content-type' && name !== 'content-length');
}

describe('security headers', () => {
  it('are the very headers hono sets, on a Node response and in app.request, for every kind of answer', async () => {
    for (const path of ['/plain', '/own', '/stream']) {
      const want = await reference(path);
      expect(want.length).toBeGreaterThan(8);
      const viaRequest = await appWith(securityHeaders(OPTIONS)).request(path);
      const viaNode = await overNode(appWith(securityHeaders(OPTIONS)), path);
      for (const [name, value] of want) {
        expect(viaRequest.headers.get(name), `${path} ${name} (app.request)`).toBe(value);
        expect(viaNode.get(name), `${path} ${name} (node)`).toBe(value);
      }
    }
  });

  it('leave a header the route set itself (overwrite: false)', async () => {
    expect((await overNode(appWith(securityHeaders(OPTIONS)), '/own')).get('content-security-policy')).toBe("default-src 'self'");
    expect((await appWith(securityHeaders(OPTIONS)).request('/own')).headers.get('content-security-policy')).toBe("default-src 'self'");
    expect((await overNode(appWith(securityHeaders(OPTIONS)), '/plain')).get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  });
});
