import { Hono, type Context } from 'hono';
import type { Approval, Approver, Transition } from '../../core/approvals/approval.js';
import type { ShownMode } from '../../core/decide/context.js';
import { approverOf, type Caller } from '../caller.js';
import type { DeviceKeys } from '../device-signature.js';
import { signedBody } from '../signed-body.js';
import { fail } from '../errors.js';
import { cardSigningInput } from '../../../shared/approval-card.js';
import type { DeviceView } from '../../../shared/device-view.js';

/** What people's controls need from the gate (the runtime implements it). */
export interface GateControl {
  pending(): readonly Approval[];
  answer(id: string, verdict: { approver: Approver; verdict: 'approve' | 'deny'; nonce: string; argHash: string; phrase?: string; message?: string }, remember?: { ttlMs: number; scope: 'session' | 'project' }): Promise<Transition>;
  halt(reason: string, by: string): Promise<unknown>;
  resume(by: string): Promise<boolean>;
  mode(): ShownMode;
  /** The HALT in force, when one is: who (`desktop`, `cli`, `device:ID`), when and why. */
  haltedBy?(): { readonly reason: string; readonly at: string; readonly by: string } | undefined;
  /** Someone read the approval queue (the desktop's tray polls it): who could see a card counts it. */
  queueRead?(caller: Caller): void;
}

export interface DeviceRegistry extends DeviceKeys {
  list(): readonly DeviceView[];
  revoke(id: string): boolean;
}

type Vars = { Variables: { caller: Caller } };

/** How many decided approvals a screen lists as recent decisions. */
const RECENT = 20;
/** Cards per listing unless `limit` says otherwise (1 to 200): oldest first, so the next to expire is on top. */
const PAGE = 10;
const MAX_PAGE = 200;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const byTime = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Approve, deny, HALT, resume and devices (SPEC §8, §9). Profiles are enforced here, on the
 * server, whatever a UI shows: agents approve nothing, phones approve T2 and HALT but never T3
 * and never resume; a device's state-changing request must be signed with its device key.
 */
export function controlRoutes(control: GateControl, devices: DeviceRegistry, clock: { now: () => number; sign: (data: Uint8Array) => Promise<Uint8Array> }): Hono<Vars> {
  const now = clock.now;
  const app = new Hono<Vars>();

  const readSigned = (c: Context<Vars>) => signedBody(c, devices, now());

  // A card is immutable (every change is a new object), so each is signed once, not per listing.
  const signatures = new WeakMap<object, Promise<string>>();
  const signed = (card: ReturnType<GateControl['pending']>[number]) => {
    let sig = signatures.get(card);
    if (sig === undefined) {
      sig = clock.sign(cardSigningInput(card)).then((bytes) => Buffer.from(bytes).toString('base64url'));
      signatures.set(card, sig);
    }
    return sig.then((card_sig) => ({ ...card, card_sig }));
  };

  app.get('/approvals', async (c) => {
    if (c.get('caller').kind === 'agent') return fail(c, 'FORBIDDEN', 'agents do not see approval cards');
    const rawLimit = c.req.query('limit');
    const limit = rawLimit === undefined ? PAGE : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) return fail(c, 'INPUT_INVALID', `\`limit\` is an integer from 1 to ${String(MAX_PAGE)}`);
    control.queueRead?.(c.get('caller'));
    const all = control.pending();
    // ISO-8601 UTC times order as plain strings (no locale collation: a thousand cards sort in microseconds).
    const pending = all.filter((a) => a.state === 'pending').sort((a, b) => byTime(a.requested_at, b.requested_at));
    // Every card is canonical JSON signed by the TLS key; the PWA verifies before offering approve.
    const approvals = await Promise.all(pending.slice(0, limit).map(signed));
    // Recent decisions, newest first: shown, never acted on, so not signed.
    const recent = all
      .filter((a) => a.state !== 'pending')
      .sort((a, b) => byTime(b.decided_at ?? b.requested_at, a.decided_at ?? a.requested_at))
      .slice(0, RECENT);
    const halt = control.haltedBy?.();
    return c.json({ approvals, pending_total: pending.length, recent, mode: control.mode(), ...(halt === undefined ? {} : { halt }) });
  });

  for (const verdict of ['approve', 'deny'] as const) {
    app.post(`/approvals/:id/${verdict}`, async (c) => {
      const approver = approverOf(c.get('caller'));
      if (approver === undefined) return fail(c, 'FORBIDDEN', 'agents cannot approve');
      const read = await readSigned(c);
      if ('error' in read) return read.error;
      const nonce = str(read.body['nonce']);
      const argHash = str(read.body['arg_hash']);
      if (nonce === undefined || argHash === undefined) return fail(c, 'INPUT_INVALID', 'the card’s nonce and arg_hash are required');
      const phrase = str(read.body['phrase']);
      const message = str(read.body['message']);
      const rememberMs = typeof read.body['remember_seconds'] === 'number' ? read.body['remember_seconds'] * 1000 : undefined;
      const scope = read.body['remember_scope'] ?? 'session';
      if (scope !== 'session' && scope !== 'project') return fail(c, 'INPUT_INVALID', '`remember_scope` is `session` or `project`');
      // A whole project, beyond the session the card came from, is the desktop's call only.
      if (scope === 'project' && approver.kind !== 'desktop') return fail(c, 'FORBIDDEN', 'only the desktop remembers an answer for a whole project');
      const result = await control.answer(
        c.req.param('id'),
        { approver, verdict, nonce, argHash, ...(phrase === undefined ? {} : { phrase }), ...(message === undefined ? {} : { message: message.slice(0, 2000) }) },
        rememberMs === undefined ? undefined : { ttlMs: rememberMs, scope },
      );
      if (!result.ok) return c.json({ error: { code: result.code, message: result.reason } }, result.code === 'APPROVAL_UNKNOWN' ? 404 : 409);
      return c.json({ approval: result.approval });
    });
  }

  app.post('/halt', async (c) => {
    const caller = c.get('caller');
    if (caller.kind === 'agent') return fail(c, 'FORBIDDEN', 'HALT is for people, not agents');
    const read = await readSigned(c);
    if ('error' in read) return read.error;
    const reason = str(read.body['reason']) ?? 'halted from a device';
    await control.halt(reason.slice(0, 500), caller.kind === 'desktop' ? 'desktop' : `device:${caller.id}`);
    return c.json({ mode: control.mode() });
  });

  app.post('/resume', async (c) => {
    // Never from a phone, never from an agent: only the desktop lifts a HALT (SPEC §8).
    if (c.get('caller').kind !== 'desktop') return fail(c, 'FORBIDDEN', 'only the desktop resumes');
    await c.req.text();
    await control.resume('desktop');
    return c.json({ mode: control.mode() });
  });

  app.get('/devices', (c) => {
    if (c.get('caller').kind === 'agent') return fail(c, 'FORBIDDEN', 'agents do not list devices');
    return c.json({ devices: devices.list() });
  });

  app.post('/devices/:id/revoke', async (c) => {
    if (c.get('caller').kind !== 'desktop') return fail(c, 'FORBIDDEN', 'devices are revoked from the desktop');
    await c.req.text();
    return devices.revoke(c.req.param('id')) ? c.json({ revoked: c.req.param('id') }) : fail(c, 'NOT_FOUND', 'no such active device');
  });

  return app;
}
