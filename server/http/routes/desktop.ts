import type { OracleCode } from '../../../shared/outcome-codes.js';
import { Hono, type Context } from 'hono';
import type { Caller } from '../caller.js';
import { fail } from '../errors.js';
import type { RememberedView } from '../../../shared/remembered-view.js';

/** A T1 action that can still be undone, as the desktop lists it. */
export interface UndoView {
  readonly id: string;
  readonly kind: string;
  readonly target: string;
  readonly created_at: string;
  readonly applied_at: string | null;
}

/** What the desktop screen reads beyond approvals (SPEC §10): undo, and the audit log with its verification. */
export interface DesktopViews {
  /** The newest `limit` undo records, newest first, and how many there are in all. */
  undoList(limit: number): { readonly undo: readonly UndoView[]; readonly total: number };
  undo(id: string): Promise<{ readonly ok: boolean; readonly error?: { readonly code: OracleCode; readonly message: string } }>;
  /** The newest audit records, newest first. */
  auditRecent(limit: number): readonly unknown[];
  /** The whole chain and checkpoint verified now, as `oracle audit verify` does. */
  auditVerify(): unknown;
  /** A fresh one-time login code for the desktop screen (`oracle desktop`, a gate run as a service). */
  loginCode(): string;
  /** Remembered answers still in force (issue 16): what, for which session or project, by whom, until when, how often used. */
  remembered(): readonly RememberedView[];
  /** Revokes one at once; false when there is none. */
  forget(id: string): Promise<boolean>;
  /**
   * Reads the policy file again (issue 16): `ok` with both digests, or the errors and the policy
   * kept. `by` is who asked, as the audit record names it: the desktop screen, or `oracle policy
   * reload` (the CLI's local token).
   */
  reloadPolicy(by: 'desktop' | 'cli'): Promise<{ readonly ok: boolean } & Readonly<Record<string, unknown>>>;
  /** The gate's secret store (`oracle secrets` while the gate runs): names come out, a value only goes in. */
  readonly secrets: SecretsDesk;
}

/** A store change either done or refused with the store's code (invalid_name, keyring_failed, …). */
export type SecretChange = { readonly ok: true; readonly existed: boolean } | { readonly ok: false; readonly code: OracleCode; readonly message: string };

export interface SecretsDesk {
  names(): Promise<readonly string[] | { readonly code: OracleCode; readonly message: string }>;
  set(name: string, value: string): Promise<SecretChange>;
  delete(name: string): Promise<SecretChange>;
}


type Vars = { Variables: { caller: Caller } };

const MAX_RECORDS = 200;

const UNDO_SHOWN = 50;
const UNDO_MAX = 100_000;

/** Desktop only: a phone never undoes (SPEC §9 profiles) and never reads the whole log. */
export function desktopRoutes(views: DesktopViews): Hono<Vars> {
  const app = new Hono<Vars>();
  app.use('*', async (c, next) => {
    if (c.get('caller').kind !== 'desktop') return fail(c, 'FORBIDDEN', 'only the desktop sees undo and the audit log');
    await next();
    return undefined;
  });
  // The screen shows the newest 50; `oracle undo list` asks for all (`?limit=`), and `total` says how many there are.
  app.get('/undo', (c) => {
    const asked = c.req.query('limit');
    const limit = asked === undefined ? UNDO_SHOWN : Number(asked);
    if (!Number.isInteger(limit) || limit < 1 || limit > UNDO_MAX) return fail(c, 'INPUT_INVALID', `\`limit\` is a whole number from 1 to ${String(UNDO_MAX)}`);
    return c.json(views.undoList(limit));
  });
  app.post('/undo/:id', async (c) => {
    await c.req.text();
    const result = await views.undo(c.req.param('id'));
    // Refused undos keep the toolhost's code and words (the shared error shape, 409).
    return result.ok ? c.json({ result }) : c.json({ error: result.error ?? { code: 'UNDO_REFUSED', message: 'the undo was refused' } }, 409);
  });
  // Secrets: the CLI on this machine only (its local token), never a browser session or a phone.
  const cliOnly = (c: Context<Vars>): Response | undefined => {
    const caller = c.get('caller');
    return caller.kind === 'desktop' && caller.via === 'token' ? undefined : fail(c, 'FORBIDDEN', 'only `oracle secrets` on this machine changes the secret store');
  };
  app.get('/secrets', async (c) => {
    const refused = cliOnly(c);
    if (refused !== undefined) return refused;
    const names = await views.secrets.names();
    return 'code' in names ? c.json({ error: names }, 409) : c.json({ names });
  });
  app.put('/secrets/:name', async (c) => {
    const refused = cliOnly(c);
    if (refused !== undefined) return refused;
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return fail(c, 'INPUT_INVALID', 'the body is JSON: {"value": "…"}');
    }
    const value = typeof body === 'object' && body !== null ? (body as { value?: unknown }).value : undefined;
    if (typeof value !== 'string' || value === '') return fail(c, 'INPUT_INVALID', 'the secret value must be a non-empty string');
    const done = await views.secrets.set(c.req.param('name'), value);
    return done.ok ? c.json(done) : c.json({ error: { code: done.code, message: done.message } }, 409);
  });
  app.delete('/secrets/:name', async (c) => {
    const refused = cliOnly(c);
    if (refused !== undefined) return refused;
    const done = await views.secrets.delete(c.req.param('name'));
    return done.ok ? c.json(done) : c.json({ error: { code: done.code, message: done.message } }, 409);
  });
  // Only the desktop CLI's local token mints a login: a browser session already has one.
  app.post('/login-code', async (c) => {
    await c.req.text();
    const caller = c.get('caller');
    if (caller.kind !== 'desktop' || caller.via !== 'token') return fail(c, 'FORBIDDEN', 'only `oracle desktop` on this machine asks for a login code');
    return c.json({ code: views.loginCode() });
  });
  app.get('/remembered', (c) => {
    const rules = views.remembered();
    return c.json({ remembered: rules, prompts_saved: rules.reduce((n, r) => n + r.uses, 0) });
  });
  app.post('/remembered/:id/forget', async (c) => {
    await c.req.text();
    return (await views.forget(c.req.param('id'))) ? c.json({ forgotten: c.req.param('id') }) : fail(c, 'NOT_FOUND', 'no such remembered answer');
  });
  app.post('/policy/reload', async (c) => {
    await c.req.text();
    // Who asked comes from the credential, never from the request: only the local token, which
    // `oracle` reads from the home's private data/server.json, is the CLI.
    const caller = c.get('caller');
    const reload = await views.reloadPolicy(caller.kind === 'desktop' && caller.via === 'token' ? 'cli' : 'desktop');
    // A refused reload is an answer, not a failure of the request: the old policy is in force.
    if (reload.ok) return c.json({ reload });
    return c.json({ error: { code: 'POLICY_REFUSED', message: 'the policy file has errors; the policy in force is kept' }, reload }, 422);
  });
  app.get('/audit', async (c) => {
    const raw = Number(c.req.query('limit') ?? '50');
    if (!Number.isInteger(raw) || raw < 1) return fail(c, 'INPUT_INVALID', '`limit` is a whole number from 1');
    // Verification reads the whole log: on request (the default), skipped with verify=0 for a refresh.
    const verify = c.req.query('verify') === '0' ? null : await views.auditVerify();
    return c.json({ verify, records: views.auditRecent(Math.min(raw, MAX_RECORDS)) });
  });
  return app;
}
