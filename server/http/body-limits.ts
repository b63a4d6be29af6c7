import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { fail } from './errors.js';

/**
 * How large a request body may be, per route, enforced before any other work (before the
 * credential check, before a device signature is checked over the body): a declared length over
 * the limit is refused unread, and a body without one is counted as it streams and cut at the
 * limit. Routes not listed take DEFAULT. Sizes are what a real request needs, with room:
 *
 * | route | limit | why |
 * | --- | --- | --- |
 * | `POST /api/v1/hooks/claude-code` | 8 MiB (its own, answered as a hook deny) | a Write carries the whole file |
 * | `POST /api/v1/actions` | 1 MiB (its own) | an fs.write's content |
 * | `/api/v1/pair…` | 4 KiB | pairing messages are a few hundred bytes |
 * | `POST /api/v1/sessions/:id/provenance` | 64 KiB | a list of what was read, 4 KiB a source |
 * | `/api/v1/policy/candidates…` | 320 KiB | a proposed policy is a whole file (at most 256 KB) |
 * | everything else (approve, deny, halt, resume, revoke, undo, …) | 16 KiB | a nonce, a hash, a short message |
 */
export const DEFAULT_BODY_LIMIT = 16 * 1024;

const LIMITS: readonly { readonly prefix: string; readonly bytes: number | 'own' }[] = [
  { prefix: '/api/v1/hooks/claude-code', bytes: 'own' },
  { prefix: '/api/v1/actions', bytes: 'own' },
  { prefix: '/api/v1/pair', bytes: 4 * 1024 },
  { prefix: '/api/v1/sessions/', bytes: 64 * 1024 },
  { prefix: '/api/v1/policy/candidates', bytes: 320 * 1024 },
];

const limiters = new Map<number, MiddlewareHandler>();

function limiter(bytes: number): MiddlewareHandler {
  let handler = limiters.get(bytes);
  if (handler === undefined) {
    handler = limitBody(bytes, (c: Context) => fail(c, 'PAYLOAD_TOO_LARGE', `this request's body is at most ${String(bytes / 1024)} KiB`));
    limiters.set(bytes, handler);
  }
  return handler;
}

/**
 * hono's bodyLimit, with its common case first: a declared Content-Length (and no
 * Transfer-Encoding; Node's parser then reads exactly that many bytes) over the limit is refused
 * unread, under it passes, judged from the header alone. hono's own check asks for the body
 * stream first, which makes @hono/node-server build a whole web Request for every request; a body
 * without a declared length still goes through it, counted as it streams.
 */
export function limitBody(maxSize: number, onError: (c: Context) => Response | Promise<Response>): MiddlewareHandler {
  const streamed = bodyLimit({ maxSize, onError });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (!/^[0-9]{1,15}$/u.test(declared) || Number(declared) > maxSize) return onError(c);
      await next();
      return undefined;
    }
    return streamed(c, next);
  };
}

/** The limit for a path: bytes, or 'own' when the route applies a limit of its own. */
export function bodyLimitFor(path: string): number | 'own' {
  return LIMITS.find((l) => path.startsWith(l.prefix))?.bytes ?? DEFAULT_BODY_LIMIT;
}

export const limitBodies: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') {
    await next();
    return;
  }
  const bytes = bodyLimitFor(c.req.path);
  if (bytes === 'own') {
    await next();
    return;
  }
  return limiter(bytes)(c, next);
};
