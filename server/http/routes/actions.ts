import type { OracleCode } from '../../../shared/outcome-codes.js';
import { Hono, type Context } from 'hono';
import { limitBody } from '../body-limits.js';
import type { Caller } from '../caller.js';
import { PROVENANCE_KINDS, type ProvenanceKind } from '../../../shared/provenance.js';
import { fail } from '../errors.js';
import { CLIENT_PID_HEADER } from '../../../shared/client-process.js';
import type { AgentView } from '../../core/policy/agent-view.js';
import { MAX_ACTION_WAIT_SECONDS } from '../../../shared/action-wait.js';
import { parseJsonWithin } from '../../../shared/json-depth.js';

/** What the actions routes need from the gate (the runtime implements it). */
export interface ActionsService {
  /** `signal` aborts when the caller's connection goes away: the action is withdrawn (a `cancelled` record). */
  submit(action: Record<string, unknown>, waitMs: number, agent: string, signal?: AbortSignal): Promise<ActionOutcome>;
  /** `signal` aborts when the caller hangs up: the wait ends (the card stays), a run it started is withdrawn. */
  continueAction(approvalId: string, waitMs: number, agent: string, signal?: AbortSignal): Promise<ActionOutcome | undefined>;
  /** Claude Code's hook payload (http hook, or forwarded by the command hook): the JSON it reads back. */
  claudeCodeHook(payload: unknown, agent: string, client: ClientProcess): Promise<Readonly<Record<string, unknown>>>;
  /** What this agent may use: scopes, programs, egress hosts, its ceiling (the policy's text), the secrets it may name. */
  allowed(agent: string, session?: string): Promise<AgentView>;
  /** An ORACLE client (`oracle mcp`) says which process it is, so HALT reaches the agent above it. */
  registerClient(client: ClientProcess, session: string): void;
  /** A session read foreign or external content (SPEC §4 taint). */
  taint(session: string, read: readonly { kind: ProvenanceKind; source: string }[]): void;
}

/**
 * Which process is calling, as far as the request tells: an ORACLE client's own pid when it says so
 * (header `x-oracle-client-pid`), else the TCP peer's port (Claude Code's http hook connects
 * itself). The gate finds the agent process from either (issue 13).
 */
export type ClientProcess = { readonly pid: number } | { readonly peerPort: number; readonly connection: object } | undefined;

type ClientPeer = (c: Context) => { readonly port: number; readonly connection: object } | undefined;

export function clientProcess(c: Context, peer: ClientPeer): ClientProcess {
  const claimed = Number(c.req.header(CLIENT_PID_HEADER) ?? Number.NaN);
  if (Number.isSafeInteger(claimed) && claimed > 1) return { pid: claimed };
  const found = peer(c);
  return found === undefined ? undefined : { peerPort: found.port, connection: found.connection };
}

export interface ActionOutcome {
  /** `pending`: a person has not answered yet (202); wait on `approval_id`. */
  readonly status: 'ran' | 'pending' | 'not-run';
  readonly executed: boolean;
  readonly approval_id?: string;
  readonly error?: { readonly code: OracleCode; readonly message: string };
}

const MAX_WAIT_S = MAX_ACTION_WAIT_SECONDS;

function waitMs(raw: string | undefined): number | undefined {
  if (raw === undefined) return 0;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, MAX_WAIT_S) * 1000 : undefined;
}

type Vars = { Variables: { caller: Caller } };

const actionLimit = limitBody(1_048_576, (c) => fail(c, 'PAYLOAD_TOO_LARGE', 'an action is at most 1 MiB'));

/** Claude Code sends a Write's whole content in the payload; the command hook reads at most this too. */
const hookLimit = limitBody(8 * 1_048_576, (c) => c.json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'ORACLE: the hook payload is over 8 MiB' } }));

/**
 * One action from an agent: its credential (never a field of the body) is the principal, `wait`
 * is whole seconds, the body one JSON object.
 */
async function agentAction(c: Context<Vars>, refusal: string): Promise<{ action: Record<string, unknown>; wait: number; agent: string } | { error: Response }> {
  const caller = c.get('caller');
  if (caller.kind !== 'agent') return { error: fail(c, 'FORBIDDEN', refusal) };
  const wait = waitMs(c.req.query('wait'));
  if (wait === undefined) return { error: fail(c, 'INPUT_INVALID', '`wait` is a number of seconds') };
  const parsed = parseJsonWithin(await c.req.text());
  if (!parsed.ok) return { error: fail(c, 'INPUT_INVALID', `the body is not JSON this route takes: ${parsed.reason}`) };
  const body = parsed.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: fail(c, 'INPUT_INVALID', 'the body is one action object') };
  const { agent: _claimed, ...action } = body as Record<string, unknown>;
  return { action, wait, agent: caller.name };
}

/**
 * `POST /api/v1/actions` runs the lifecycle for an agent; needs-approval waits up to `?wait=`
 * seconds and otherwise answers 202 with the approval id to wait on with
 * `GET /api/v1/actions/:id?wait=` (SPEC §11). The principal is the credential's, never a field.
 */
export function actionsRoutes(service: ActionsService): Hono<{ Variables: { caller: Caller } }> {
  const app = new Hono<{ Variables: { caller: Caller } }>();
  app.post('/', actionLimit, async (c) => {
    const read = await agentAction(c, 'only agent credentials submit actions');
    if ('error' in read) return read.error;
    // Only a client that names its process registers here: a REST agent's own children are not its tools'.
    const client = clientProcess(c, () => undefined);
    if (client !== undefined && 'pid' in client) service.registerClient(client, `${read.agent}:${String(client.pid)}`);
    // A caller that hangs up withdraws its action (an MCP host's `notifications/cancelled`, a host that quit).
    const outcome = await service.submit(read.action, read.wait, read.agent, c.req.raw.signal);
    return c.json(outcome, outcome.status === 'pending' ? 202 : 200);
  });
  app.get('/:id', async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'agent') return fail(c, 'FORBIDDEN', 'only agent credentials wait on actions');
    const wait = waitMs(c.req.query('wait'));
    if (wait === undefined) return fail(c, 'INPUT_INVALID', '`wait` is a number of seconds');
    const outcome = await service.continueAction(c.req.param('id'), wait, caller.name, c.req.raw.signal);
    if (outcome === undefined) return fail(c, 'NOT_FOUND', 'no waiting or recently finished action with that id for this agent');
    return c.json(outcome, outcome.status === 'pending' ? 202 : 200);
  });
  return app;
}

/**
 * For agents whose own runtime executes the tool (Claude Code): `POST /api/v1/hooks/claude-code`
 * answers its hook, after a person when the call needs one; and
 * `POST /api/v1/sessions/:id/provenance` records what a session has read.
 */
export function hookRoutes(service: ActionsService, peer: ClientPeer): Hono<{ Variables: { caller: Caller } }> {
  const app = new Hono<{ Variables: { caller: Caller } }>();
  // Claude Code's own payload, posted by its http hook or forwarded by `oracle hook claude-code`.
  // Always a hook answer (a deny for anything malformed); only a missing credential is refused
  // outright, and Claude Code's `onFailure: "block"` blocks the call on that too.
  app.post('/hooks/claude-code', hookLimit, async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'agent') return fail(c, 'FORBIDDEN', 'only agent credentials ask for authorisation');
    // Too deep, or not JSON: answered as a malformed payload (a deny).
    const parsed = parseJsonWithin(await c.req.text());
    return c.json(await service.claudeCodeHook(parsed.ok ? parsed.value : undefined, caller.name, clientProcess(c, peer)));
  });
  app.post('/sessions/:id/provenance', async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'agent') return fail(c, 'FORBIDDEN', 'only agents report what they read');
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return fail(c, 'INPUT_INVALID', 'the body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(c, 'INPUT_INVALID', 'the body is one object `{read: [...]}`');
    const read = (body as { read?: unknown }).read;
    if (!Array.isArray(read)) return fail(c, 'INPUT_INVALID', '`read` is a list of {kind, source}');
    const entries = read.flatMap((r: unknown) => {
      const e = r as { kind?: unknown; source?: unknown };
      const kind = PROVENANCE_KINDS.find((k) => k === e.kind);
      return kind !== undefined && typeof e.source === 'string' ? [{ kind, source: e.source.slice(0, 4096) }] : [];
    });
    service.taint(c.req.param('id').slice(0, 256), entries);
    return c.json({ ok: true });
  });
  return app;
}

/** `GET /api/v1/allowed`: an agent asks what it may use (its own view only). */
export function allowedRoutes(service: ActionsService): Hono<{ Variables: { caller: Caller } }> {
  const app = new Hono<{ Variables: { caller: Caller } }>();
  app.get('/allowed', async (c) => {
    const caller = c.get('caller');
    if (caller.kind !== 'agent') return fail(c, 'FORBIDDEN', 'an agent asks what it may use; people see the policy on the desktop');
    // `?session=` adds that session's taint (an MCP server asks for its own).
    const session = c.req.query('session');
    return c.json(await service.allowed(caller.name, session !== undefined && session !== '' && session.length <= 256 ? session : undefined));
  });
  return app;
}
