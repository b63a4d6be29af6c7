import { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Context } from 'hono';
import type { ShownMode } from '../core/decide/context.js';
import type { Caller, CallerVerifier } from './caller.js';
import { fail } from './errors.js';
import { limitBodies } from './body-limits.js';
import { securityHeaders } from './security-headers.js';
import { ATTEST_NONCE, attestInput } from '../../shared/attest.js';
import { RateLimiter } from '../core/pairing/rate-limit.js';
import { actionsRoutes, allowedRoutes, hookRoutes, type ActionsService } from './routes/actions.js';
import { controlRoutes, type DeviceRegistry, type GateControl } from './routes/control.js';
import { eventRoutes, type EventSource } from './routes/events.js';
import { pairingDesktopRoutes, pairingRoutes } from './routes/pairing.js';
import { desktopRoutes, type DesktopViews } from './routes/desktop.js';
import { pageRoutes, type Assets } from './routes/pages.js';
import { pushRoutes, type PushSubscriptions } from './routes/push.js';
import { policyRoutes, type PolicyCandidatesService } from './routes/policy.js';
import { terminalRoutes, type TerminalService } from './routes/terminals.js';
import type { PairingService } from './pairing-service.js';

/** Desktop login (SPEC §9): a one-time code from `oracle serve`, exchanged on loopback only. */
export interface DesktopLogin {
  /** Spends the code; returns a new session id, or undefined. */
  exchange(code: string): string | undefined;
}

export const DESKTOP_COOKIE = 'oracle_desktop';

/** What a browser shows for a login link that was used, mistyped or expired (no script, no style). */
const USED_LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>ORACLE: this login link is used up</title></head>
<body><main><h1>This login link cannot be used again</h1>
<p>A desktop login link works once, for a short time. This one was already used, or it expired, or it was mistyped.</p>
<p>For a new one, run <code>oracle desktop</code> in a terminal on this computer (or restart <code>npm start</code>) and open the link it prints.</p>
<p>If the desktop screen is already open in another tab, go back to it: it stays signed in.</p></main></body></html>`;

/** What the routes need, passed in by the composition root (main.ts); nothing here does I/O. */
export interface AppDeps {
  readonly gateStatus: () => {
    readonly mode: ShownMode;
    readonly policyDigest: string | null;
    readonly audit?: { readonly reason: string; readonly since: string; readonly refused: number } | undefined;
    /** The last policy reload that was refused (the file has errors; the old policy is in force), until one succeeds. */
    readonly policyProblem?: { readonly file: string; readonly at: string; readonly errors: readonly { readonly line: number; readonly message: string }[] } | undefined;
  };
  readonly spkiSha256: string;
  /** The local CA, offered to phones so the PWA runs from a trusted origin (SPEC §9). */
  readonly ca: { readonly pem: string; readonly fingerprint256: string };
  /** Signs with the TLS key (ECDSA P-256): nonce attestations and approval cards (SPEC §9a). */
  readonly tlsSign: (data: Uint8Array) => Promise<Uint8Array>;
  /** DER SubjectPublicKeyInfo of the TLS key; its SHA-256 is the pin phones keep. */
  readonly spki: Uint8Array;
  readonly callers: CallerVerifier;
  readonly actions: ActionsService;
  readonly control: GateControl;
  readonly devices: DeviceRegistry;
  readonly desktop: DesktopLogin;
  readonly events: EventSource;
  readonly pairing: PairingService;
  /** The peer's address, for per-address limits on pairing (the listener knows it). */
  readonly clientAddress: (c: Context) => string | undefined;
  /** The peer's TCP port, so the gate can tell which local process calls its http hook. */
  /** The TCP peer's port and its connection (the socket object, the same for every request on it). */
  readonly clientPeer: (c: Context) => { readonly port: number; readonly connection: object } | undefined;
  /** Whether the request came from this machine (the listener knows; http does not). */
  readonly isLoopback: (c: Context) => boolean;
  readonly now: () => number;
  /** Undo and the audit log for the desktop screen. */
  readonly desktopViews: DesktopViews;
  /** The built PWA (dist/pwa); undefined when it was not built, and the pages say so. */
  readonly assets: Assets | undefined;
  /** Web Push subscriptions of paired devices (issue 15). */
  readonly push: PushSubscriptions;
  /** Agent-proposed policy changes, activated at the desktop (issue 16). */
  readonly policyCandidates: PolicyCandidatesService;
  /** The gate's terminals, for the person (issue 16). */
  readonly terminals: TerminalService;
}

type Vars = { Variables: { caller: Caller } };

/** Key checks per address and minute: one per phone start, far above any person's use. */
const ATTEST_RATE_LIMIT = { max: 60, windowMs: 60_000 };

/**
 * createApp(deps) builds the Hono app and never listens (SPEC §2); tests call `app.request`.
 * Every `/api/v1` route except health requires a credential, checked before any handler runs.
 */
export function createApp(deps: AppDeps): Hono<Vars> {
  const app = new Hono<Vars>();
  // Route contexts differ only in their variables; the listener reads just the connection.
  const loopback = (c: Context<Vars>): boolean => deps.isLoopback(c);
  // Everything gets `default-src 'none'`; a page and the service worker set their own policy (pages.ts), kept here.
  app.use('*', securityHeaders({ contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] }, referrerPolicy: 'no-referrer', overwrite: false }));
  // Before anything reads a body, credential checks and device signatures included (body-limits.ts).
  app.use('*', limitBodies);
  const attestLimit = new RateLimiter(ATTEST_RATE_LIMIT, deps.now);
  app.get('/api/v1/health', (c) => {
    const status = deps.gateStatus();
    // `audit.writable: false` with `mode: degraded`: the log is full or failing and every action is refused.
    const audit = status.audit === undefined ? { writable: true } : { writable: false, ...status.audit };
    const policy = status.policyProblem === undefined ? undefined : { file: status.policyProblem.file, at: status.policyProblem.at, errors: status.policyProblem.errors.slice(0, 20).map((e) => ({ line: e.line, message: e.message })) };
    const shared = { ok: true, mode: status.mode, spki_sha256: deps.spkiSha256, ca_sha256: deps.ca.fingerprint256 };
    // SPEC §9: the network sees what a phone needs to pin and pair; the policy's path, its errors
    // and the audit log's state are this machine's business (red team, session 32).
    if (!loopback(c)) return c.json(shared);
    return c.json({ ...shared, policy_digest: status.policyDigest, audit, ...(policy === undefined ? {} : { policy_refused: policy }) });
  });
  // The CA certificate is public by nature; its fingerprint is shown next to it for comparison.
  app.get('/ca.crt', (c) => {
    c.header('content-type', 'application/x-x509-ca-cert');
    c.header('content-disposition', 'attachment; filename="oracle-local-ca.crt"');
    c.header('x-oracle-ca-sha256', deps.ca.fingerprint256);
    return c.body(deps.ca.pem);
  });
  // Desktop login: loopback only, one-time code, then a SameSite=Strict HttpOnly session cookie.
  app.get('/login', (c) => {
    if (!loopback(c)) return fail(c, 'FORBIDDEN', 'the desktop signs in from this machine only');
    const session = deps.desktop.exchange(c.req.query('code') ?? '');
    if (session === undefined) {
      // A person who opened a used link gets a page that says what to do, not JSON.
      if ((c.req.header('accept') ?? '').includes('text/html')) return c.html(USED_LOGIN_PAGE, 401);
      return fail(c, 'UNAUTHENTICATED', 'the login code is wrong, used or expired; restart `oracle serve` for a new link');
    }
    setCookie(c, DESKTOP_COOKIE, session, { httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });
    // A browser goes on to the desktop screen; a script asking for JSON gets JSON.
    if ((c.req.header('accept') ?? '').includes('text/html')) return c.redirect('/desktop', 303);
    return c.json({ ok: true, desktop: true });
  });
  // Pairing needs no credential yet: it is how a phone gets one (SPEC §9a), rate limited per address.
  app.route('/api/v1/pair', pairingRoutes(deps.pairing, { clientAddress: deps.clientAddress }));
  // Denied when no credential is recognised; nothing below this line runs for such a request.
  app.use('/api/v1/*', async (c: Context<Vars>, next) => {
    const caller = await deps.callers.verify({ authorization: c.req.header('authorization'), cookie: getCookie(c, DESKTOP_COOKIE), loopback: loopback(c), address: deps.clientAddress(c) ?? 'unknown' });
    if (caller === undefined) return fail(c, 'UNAUTHENTICATED', 'this route needs a device, desktop or agent credential');
    // A cookie rides along with any page's request: for the desktop session, a state change must
    // come from this very origin, as JSON (which no form can send without a preflight).
    if (caller.kind === 'desktop' && caller.via === 'cookie' && !['GET', 'HEAD'].includes(c.req.method)) {
      const origin = c.req.header('origin');
      const site = c.req.header('sec-fetch-site');
      const json = (c.req.header('content-type') ?? '').startsWith('application/json');
      if ((origin !== undefined && origin !== new URL(c.req.url).origin) || (site !== undefined && site !== 'same-origin') || !json) {
        return fail(c, 'FORBIDDEN', 'desktop changes must come from the desktop page itself, as JSON');
      }
    }
    c.set('caller', caller);
    await next();
    return undefined;
  });
  // Application-layer pinning (SPEC §9a): a phone asks for a fresh nonce to be signed on every
  // start and checks it against the pin it stored at pairing; a changed key is refused there.
  // Behind the credential check like every route but health (SPEC §12): pairing gets the key
  // from its own signed hello, so only a paired device or the desktop ever asks here.
  app.get('/api/v1/attest', async (c) => {
    // Each answer costs a signature: limited per address, apart from pairing (a phone starts often).
    if (!attestLimit.allow(deps.clientAddress(c) ?? 'unknown')) return fail(c, 'RATE_LIMITED', 'too many key checks from this address; wait a minute');
    const nonce = c.req.query('nonce') ?? '';
    if (!ATTEST_NONCE.test(nonce)) return fail(c, 'INPUT_INVALID', '`nonce` is 16 to 64 random bytes, base64url');
    const sig = await deps.tlsSign(attestInput(nonce));
    return c.json({ spki: Buffer.from(deps.spki).toString('base64url'), sig: Buffer.from(sig).toString('base64url') });
  });
  app.route('/api/v1/actions', actionsRoutes(deps.actions));
  app.route('/api/v1', hookRoutes(deps.actions, deps.clientPeer));
  app.route('/api/v1', allowedRoutes(deps.actions));
  app.route('/api/v1/events', eventRoutes(deps.events));
  app.route('/api/v1/pair', pairingDesktopRoutes(deps.pairing));
  app.route('/api/v1', controlRoutes(deps.control, deps.devices, { now: deps.now, sign: deps.tlsSign }));
  app.route('/api/v1/desk', desktopRoutes(deps.desktopViews));
  app.route('/api/v1/push', pushRoutes(deps.push, deps.devices, deps.now));
  app.route('/api/v1/policy', policyRoutes(deps.policyCandidates));
  app.route('/api/v1/terms', terminalRoutes(deps.terminals));
  app.route('/', pageRoutes(deps.assets));
  app.notFound((c) => fail(c, 'NOT_FOUND', 'no such route'));
  app.onError((_e, c) => fail(c, 'INTERNAL', 'internal error'));
  return app;
}
