import type { Context, MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/** hono's secure-headers options, as ORACLE sets them for every response. */
type SecureHeadersOptions = NonNullable<Parameters<typeof secureHeaders>[0]>;

/**
 * The security headers every response carries (hono's `secureHeaders` with `overwrite: false`: a
 * header a route set itself wins), without its cost per request. hono's middleware sets each
 * header on the response's web Headers after the handler, which makes @hono/node-server build a
 * WHATWG Headers object for every answer and validate each header through WebIDL (about a tenth
 * of a T0 action's time at 64 agents, measured in bench/throughput.ts). Here the list is what
 * hono's own middleware produces for these options (read once, from its answer to one empty
 * response), and on the Node listener it goes onto the Node response before the handler runs: Node
 * merges it with what the route writes, and the route's own value of a header replaces it. Where
 * there is no Node response (`app.request` in tests) it is set on the web response as hono does.
 */
export function securityHeaders(options: SecureHeadersOptions): MiddlewareHandler {
  const listed = headersOf(options);
  return async (c, next) => {
    const list = await listed;
    const outgoing = nodeResponse(c.env);
    if (outgoing !== undefined) {
      for (const [name, value] of list) outgoing.setHeader(name, value);
      await next();
      return;
    }
    await next();
    for (const [name, value] of list) if (!c.res.headers.has(name)) c.res.headers.set(name, value);
  };
}

/** The Node response @hono/node-server passes as `c.env.outgoing` (this layer does not import node:http). */
function nodeResponse(env: unknown): { setHeader(name: string, value: string): unknown } | undefined {
  const outgoing = (env as { outgoing?: { setHeader?: unknown; headersSent?: unknown } } | undefined)?.outgoing;
  return typeof outgoing?.setHeader === 'function' && outgoing.headersSent === false ? (outgoing as { setHeader(name: string, value: string): unknown }) : undefined;
}

async function headersOf(options: SecureHeadersOptions): Promise<readonly (readonly [string, string])[]> {
  const probe = { res: new Response(null) };
  await secureHeaders(options)(probe as unknown as Context<{ Bindings: object }, string>, () => Promise.resolve());
  return [...probe.res.headers.entries()];
}
