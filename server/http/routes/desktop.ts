import type { OracleCode } from '../../../shared/outcome-codes.js';
import { Hono } from 'hono';
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
  undoList(): readonly UndoView[];
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
  /** Reads the policy file again (issue 16): `ok` with both digests, or the errors and the policy kept. */
  reloadPolicy(): Promise<{ readonly ok: boolean } & Readonly<Record<string, unknown>>>;
}


type Vars = { Variables: { caller: Caller } };

const MAX_RECORDS = 200;

/** Desktop only: a phone never undoes (SPEC §9 profiles) and never reads the whole log. */
export function desktopRoutes(views: DesktopViews): Hono<Vars> {
  const app = new Hono<Vars>();
  app.use('*', async (c, next) => {
    if (c.get('caller').kind !== 'desktop') return fail(c, 'FORBIDDEN', 'only the desktop sees undo and the audit log');
    await next();
    return undefined;
  });
  app.get('/undo', (c) => c.json({ undo: views.undoList() }));
  app.post('/undo/:id', async (c) => {
    await c.req.text();
    const result = await views.undo(c.req.param('id'));
    // Refused undos keep the toolhost's code and words (the shared error shape, 409).
    return result.ok ? c.json({ result }) : c.json({ error: result.error ?? { code: 'UNDO_REFUSED', message: 'the undo was refused' } }, 409);
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
    const reload = await views.reloadPolicy();
    // A refused reload is an answer, not a failure of the request: the old policy is in force.
    if (reload.ok) return c.json({ reload });
    return c.json({ error: { code: 'POLICY_REFUSED', message: 'the policy file has errors; the policy in force is kept' }, reload }, 422);
  });
  app.get('/audit', (c) => {
    const raw = Number(c.req.query('limit') ?? '50');
    if (!Number.isInteger(raw) || raw < 1) return fail(c, 'INPUT_INVALID', '`limit` is a whole number from 1');
    // Verification reads the whole log: on request (the default), skipped with verify=0 for a refresh.
    const verify = c.req.query('verify') === '0' ? null : views.auditVerify();
    return c.json({ verify, records: views.auditRecent(Math.min(raw, MAX_RECORDS)) });
  });
  return app;
}
