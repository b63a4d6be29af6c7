import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { GateMode } from '../core/decide/context.js';

/** What the routes need, passed in by the composition root (main.ts); nothing here does I/O. */
export interface AppDeps {
  readonly gateStatus: () => { readonly mode: GateMode; readonly policyDigest: string | null };
  readonly spkiSha256: string;
}

/**
 * createApp(deps) builds the Hono app and never listens (SPEC §2); tests call `app.request`.
 * Every `/api/v1` route except health requires a credential; until credentials exist for a
 * kind of caller, that caller is refused, never let through.
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.use('*', secureHeaders({ contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] }, referrerPolicy: 'no-referrer' }));
  app.get('/api/v1/health', (c) => {
    const status = deps.gateStatus();
    return c.json({ ok: true, mode: status.mode, spki_sha256: deps.spkiSha256, policy_digest: status.policyDigest });
  });
  // Denied when no credential is recognised: no device, desktop or agent credentials are issued yet.
  app.all('/api/v1/*', (c) => c.json({ error: { code: 'UNAUTHENTICATED', message: 'this route needs a device, desktop or agent credential' } }, 401));
  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: 'no such route' } }, 404));
  app.onError((_e, c) => c.json({ error: { code: 'INTERNAL', message: 'internal error' } }, 500));
  return app;
}
