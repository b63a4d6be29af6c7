import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { GateMode } from '../core/decide/context.js';
import type { Caller, CallerVerifier } from './caller.js';
import { fail } from './errors.js';
import { actionsRoutes, type ActionsService } from './routes/actions.js';

/** What the routes need, passed in by the composition root (main.ts); nothing here does I/O. */
export interface AppDeps {
  readonly gateStatus: () => { readonly mode: GateMode; readonly policyDigest: string | null };
  readonly spkiSha256: string;
  readonly callers: CallerVerifier;
  readonly actions: ActionsService;
}

/**
 * createApp(deps) builds the Hono app and never listens (SPEC §2); tests call `app.request`.
 * Every `/api/v1` route except health requires a credential, checked before any handler runs.
 */
export function createApp(deps: AppDeps): Hono<{ Variables: { caller: Caller } }> {
  const app = new Hono<{ Variables: { caller: Caller } }>();
  app.use('*', secureHeaders({ contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] }, referrerPolicy: 'no-referrer' }));
  app.get('/api/v1/health', (c) => {
    const status = deps.gateStatus();
    return c.json({ ok: true, mode: status.mode, spki_sha256: deps.spkiSha256, policy_digest: status.policyDigest });
  });
  // Denied when no credential is recognised; nothing below this line runs for such a request.
  app.use('/api/v1/*', async (c, next) => {
    const caller = await deps.callers.verify(c.req.header('authorization'));
    if (caller === undefined) return fail(c, 'UNAUTHENTICATED', 'this route needs a device, desktop or agent credential');
    c.set('caller', caller);
    await next();
    return undefined;
  });
  app.route('/api/v1/actions', actionsRoutes(deps.actions));
  app.notFound((c) => fail(c, 'NOT_FOUND', 'no such route'));
  app.onError((_e, c) => fail(c, 'INTERNAL', 'internal error'));
  return app;
}
