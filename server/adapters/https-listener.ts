import { createServer } from 'node:https';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono, Env } from 'hono';

export interface Listening {
  readonly server: ServerType;
  readonly port: number;
  readonly close: () => Promise<void>;
}

/** Whether a peer address is this machine (the desktop signs in from loopback only, SPEC §9). */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** How long a kept-alive connection may sit idle between two requests. */
export const IDLE_KEEP_ALIVE_MS = 60_000;

/** The one place ORACLE opens its listening socket: HTTPS only (SPEC §9). */
export function listenHttps<E extends Env>(app: Hono<E>, options: { hostname: string; port: number; key: string; cert: string }): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, createServer, serverOptions: { key: options.key, cert: options.cert, minVersion: 'TLSv1.2' }, hostname: options.hostname, port: options.port },
      (info) => {
        resolve({
          server,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              // Answers already being written (a waiting call just denied) get a moment to go out;
              // open streams (a phone's live events) would hold close() forever, so they are cut after it.
              const cut = setTimeout(() => {
                if ('closeAllConnections' in server) server.closeAllConnections();
              }, 300);
              server.close(() => {
                clearTimeout(cut);
                done();
              });
              if ('closeIdleConnections' in server) server.closeIdleConnections();
            }),
        });
      },
    );
    // An agent's http hook (Claude Code keeps one connection per session and resumes TLS when it
    // reconnects, measured in bench/claude-session.ts) sends its next call after the model thought:
    // seconds to a minute. Node's 5 s would make most calls pay a new handshake. An idle connection
    // costs a socket; holding one without this needs only a slow request line (headersTimeout 60 s).
    if ('keepAliveTimeout' in server) server.keepAliveTimeout = IDLE_KEEP_ALIVE_MS;
    server.once('error', reject);
  });
}
