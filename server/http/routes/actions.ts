import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Caller } from '../caller.js';
import { fail } from '../errors.js';

/** What the actions routes need from the gate (the runtime implements it). */
export interface ActionsService {
  submit(action: Record<string, unknown>, waitMs: number, agent: string): Promise<ActionOutcome>;
  continueAction(approvalId: string, waitMs: number, agent: string): Promise<ActionOutcome | undefined>;
}

export interface ActionOutcome {
  readonly executed: boolean;
  readonly approval_id?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

const MAX_WAIT_S = 300;

function waitMs(raw: string | undefined): number | undefined {
  if (raw === undefined) return 0;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, MAX_WAIT_S) * 1000 : undefined;
}

/**
 * `POST /api/v1/actions` runs the lifecycle for an agent; needs-approval waits up to `?wait=`
 * seconds and otherwise answers 202 with the approval id to wait on with
 * `GET /api/v1/actions/:id?wait=` (SPEC §11). The principal is the credential's, never a field.
 */
export function actionsRoutes(service: ActionsService): Hono<{ Variables: { caller: Caller } }> {
  const app = new Hono<{ Variables: { caller: Caller } }>();
  app.post('/', bodyLimit({ maxSize: 1_048_576, onError: (c) => fail(c, 'PAYLOAD_TOO_LARGE', 'an action is at most 1 MiB') }), async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'agent') return fail(c, 'FORBIDDEN', 'only agent credentials submit actions');
    const wait = waitMs(c.req.query('wait'));
    if (wait === undefined) return fail(c, 'INPUT_INVALID', '`wait` is a number of seconds');
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return fail(c, 'INPUT_INVALID', 'the body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(c, 'INPUT_INVALID', 'the body is one action object');
    const { agent: _claimed, ...action } = body as Record<string, unknown>;
    const outcome = await service.submit(action, wait, caller.name);
    return c.json(outcome, outcome.error?.code === 'APPROVAL_PENDING' ? 202 : 200);
  });
  app.get('/:id', async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'agent') return fail(c, 'FORBIDDEN', 'only agent credentials wait on actions');
    const wait = waitMs(c.req.query('wait'));
    if (wait === undefined) return fail(c, 'INPUT_INVALID', '`wait` is a number of seconds');
    const outcome = await service.continueAction(c.req.param('id'), wait, caller.name);
    if (outcome === undefined) return fail(c, 'NOT_FOUND', 'no waiting action with that id for this agent');
    return c.json(outcome, outcome.error?.code === 'APPROVAL_PENDING' ? 202 : 200);
  });
  return app;
}
