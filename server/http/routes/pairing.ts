import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { HttpErrorCode } from '../../../shared/http-errors.js';
import { HTTP_STATUS } from '../../../shared/http-errors.js';
import { PAIRING_MODES } from '../../../shared/pairing/encoding.js';
import type { PairingRefusal } from '../../core/pairing/session.js';
import { parseCollect, parseConfirm, parseHelloRequest } from '../../../shared/pairing/wire.js';
import type { Caller } from '../caller.js';
import { fail } from '../errors.js';
import type { InputRefused, PairingService } from '../pairing-service.js';

/**
 * The pairing endpoints (SPEC §9, §9a). Two sub-apps, both mounted at `/api/v1/pair`:
 * - pairingRoutes: hello, claim, result — the phone has no credential yet, so these are mounted
 *   BEFORE the bearer middleware; they are rate limited per address and answer only with
 *   signed or sealed values.
 * - pairingDesktopRoutes: start, sessions/:pid, confirm — mounted AFTER the bearer middleware,
 *   desktop callers only (a phone never opens or confirms a pairing; nor does a device token
 *   whose profile says desktop: confirming is for the loopback desktop session).
 */
export interface PairingRouteOptions {
  /** The peer address of the request, as the server adapter knows it (never a client header). */
  readonly clientAddress: (c: Context) => string | undefined;
}

type Refusal = PairingRefusal | InputRefused['code'];

/** A total map (STYLE 2): a new refusal without an HTTP answer does not compile. */
const ANSWER: Readonly<Record<Refusal, { readonly code: HttpErrorCode; readonly message: string }>> = {
  PAIRING_UNKNOWN: { code: 'NOT_FOUND', message: 'no such pairing session' },
  PAIRING_EXPIRED: { code: 'FORBIDDEN', message: 'the pairing session expired; start a new one on the desktop' },
  PAIRING_BURNED: { code: 'FORBIDDEN', message: 'the pairing session was closed after too many failed attempts' },
  PAIRING_USED: { code: 'FORBIDDEN', message: 'the pairing session was already used' },
  PAIRING_PROOF: { code: 'FORBIDDEN', message: 'the pairing code or proof is wrong' },
  PAIRING_INPUT: { code: 'INPUT_INVALID', message: 'malformed pairing request' },
  PAIRING_OFFERS: { code: 'RATE_LIMITED', message: 'too many hellos for this pairing session' },
  PAIRING_WAITING: { code: 'FORBIDDEN', message: 'the pairing session is not at that step yet' },
  PAIRING_REJECTED: { code: 'FORBIDDEN', message: 'the pairing was refused on the desktop' },
  PAIRING_FAILED: { code: 'INTERNAL', message: 'the pairing failed on the server' },
  PAIRING_RATE_LIMITED: { code: 'RATE_LIMITED', message: 'too many pairing requests; wait a minute' },
  PAIRING_FULL: { code: 'RATE_LIMITED', message: 'too many pairing sessions are open; cancel one or wait for one to end' },
  INPUT: { code: 'INPUT_INVALID', message: 'malformed pairing request' },
};

/** `{error: {code, message, pairing}}`: the shared error shape plus the pairing refusal for the phone's screen. */
function refuse(c: Context, refusal: Refusal, message?: string): Response {
  const answer = ANSWER[refusal];
  return c.json({ error: { code: answer.code, message: message ?? answer.message, pairing: refusal } }, HTTP_STATUS[answer.code]);
}

const limit = bodyLimit({ maxSize: 4096, onError: (c) => fail(c, 'PAYLOAD_TOO_LARGE', 'a pairing message is at most 4 KiB') });

async function jsonBody(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    return undefined;
  }
}

/** Pairing answers carry codes, secrets and sealed tokens: never stored by a cache. */
const noStore = createMiddleware(async (c, next) => {
  await next();
  c.header('cache-control', 'no-store');
});

export function pairingRoutes(service: PairingService, options: PairingRouteOptions): Hono {
  const app = new Hono();
  // Rate limit before anything else, per route (not `use('*')`, which would also run ahead of
  // the desktop routes mounted under the same prefix).
  const admitted = async (c: Context): Promise<string | Response> => {
    const address = options.clientAddress(c) ?? 'unknown'; // unknown peers share one bucket
    return (await service.admit(address)) ? address : refuse(c, 'PAIRING_RATE_LIMITED');
  };

  app.post('/hello', noStore, limit, async (c) => {
    const address = await admitted(c);
    if (typeof address !== 'string') return address;
    const req = parseHelloRequest(await jsonBody(c));
    if (!req.ok) return refuse(c, 'INPUT', req.message);
    const out = await service.hello(req.value, address);
    return 'ok' in out ? refuse(c, out.code) : c.json(out);
  });

  app.post('/claim', noStore, limit, async (c) => {
    const address = await admitted(c);
    if (typeof address !== 'string') return address;
    const out = await service.claim(await jsonBody(c), address);
    if (!('ok' in out)) return c.json(out);
    return out.code === 'INPUT' ? refuse(c, 'INPUT', out.reason) : refuse(c, out.code);
  });

  app.post('/result', noStore, limit, async (c) => {
    const address = await admitted(c);
    if (typeof address !== 'string') return address;
    const wait = Number(c.req.query('wait') ?? '0');
    if (!Number.isFinite(wait) || wait < 0) return refuse(c, 'INPUT', '`wait` is a number of seconds');
    const req = parseCollect(await jsonBody(c));
    if (!req.ok) return refuse(c, 'INPUT', req.message);
    const out = await service.result(req.value, address, wait * 1000);
    if (!('ok' in out)) return c.json(out);
    // Still waiting for the desktop: poll again (202, like a pending action).
    return out.code === 'PAIRING_WAITING' ? c.json({ state: 'waiting' }, 202) : refuse(c, out.code);
  });

  return app;
}

/** The person at this machine (the loopback desktop session); a device of any profile is not. */
const isDesktop = (caller: Caller): boolean => caller.kind === 'desktop';

export function pairingDesktopRoutes(service: PairingService): Hono<{ Variables: { caller: Caller } }> {
  const app = new Hono<{ Variables: { caller: Caller } }>();

  app.post('/start', noStore, limit, async (c) => {
    const caller = c.get('caller');
    if (!isDesktop(caller)) return fail(c, 'FORBIDDEN', 'only the desktop opens a pairing session');
    const raw = await c.req.text();
    let body: unknown;
    try {
      body = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return fail(c, 'INPUT_INVALID', 'the body is not json');
    }
    // One JSON object (or nothing): `123`, `null` and `[]` are not a pairing request.
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(c, 'INPUT_INVALID', 'the body is a JSON object such as {"mode": "qr"}');
    const requested = 'mode' in body ? body.mode : 'qr';
    const mode = PAIRING_MODES.find((m) => m === requested);
    if (mode === undefined) return fail(c, 'INPUT_INVALID', '`mode` is qr or code');
    const started = await service.start(mode, caller.id);
    // The reason says how many are live and when the first ends; it names no secret.
    if ('ok' in started) return refuse(c, started.code, `${ANSWER[started.code].message} (${started.reason})`);
    return c.json(started, 201);
  });

  app.get('/sessions/:pid', noStore, (c) => {
    if (!isDesktop(c.get('caller'))) return fail(c, 'FORBIDDEN', 'only the desktop sees pairing sessions');
    const view = service.view(c.req.param('pid'));
    return view === undefined ? refuse(c, 'PAIRING_UNKNOWN') : c.json(view);
  });

  app.post('/confirm', noStore, limit, async (c) => {
    const caller = c.get('caller');
    // INVARIANT: only a person at the desktop confirms "Pair <name>?" (SPEC §9a step 4).
    if (!isDesktop(caller)) return fail(c, 'FORBIDDEN', 'only the desktop confirms a pairing');
    const req = parseConfirm(await jsonBody(c));
    if (!req.ok) return fail(c, 'INPUT_INVALID', req.message);
    const out = await service.confirm(req.value.pid, req.value.accept, caller.id);
    return 'ok' in out ? refuse(c, out.code) : c.json(out);
  });

  return app;
}
