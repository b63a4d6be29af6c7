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

/**
 * How long a connection may take to finish its TLS handshake. Node's 120 s let anyone on the LAN
 * hold thousands of connections that never sent a byte (red team, session 32: 10,000 of them took
 * the gate from 110 MB to 607 MB); a phone on a slow network finishes in well under a second.
 */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** The one place ORACLE opens its listening socket: HTTPS only (SPEC §9). */
export function listenHttps<E extends Env>(app: Hono<E>, options: { hostname: string; port: number; key: string; cert: string; handshakeTimeoutMs?: number }): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const tls = { key: options.key, cert: options.cert, minVersion: 'TLSv1.2' as const, handshakeTimeout: options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS };
    const server = serve(
      { fetch: app.fetch, createServer, serverOptions: tls, hostname: options.hostname, port: options.port },
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
