import { OracleError } from '../../shared/oracle-error.js';
import type { RunResult } from '../core/lifecycle/run-action.js';
import type { AgentView } from '../core/policy/agent-view.js';
import { MAX_ACTION_WAIT_SECONDS } from '../../shared/action-wait.js';
import { EXEC_TIMEOUT_S } from '../core/tools/registry.js';

/**
 * What the MCP server asks of a gate (SPEC §11, §12): the runtime of this process, or, when one
 * runs with the home, the running gate (`oracle serve`) over its HTTPS API with the agent's own
 * credential. Through the running gate, every MCP host shares its decisions, approvals (the
 * desktop and the paired phones), audit chain and HALT.
 */
export interface McpGate {
  /** `signal` withdraws the call (the host cancelled it or went away): a running job is killed. */
  submit(action: Record<string, unknown>, waitMs: number, agent: string, signal?: AbortSignal): Promise<RunResult>;
  /** `signal` ends the wait (the card stays for the person) and withdraws a run the answer started. */
  continueAction(approvalId: string, waitMs: number, agent: string, signal?: AbortSignal): Promise<RunResult | undefined>;
  /** What the agent may use (scopes, programs, egress hosts, its ceiling), and its session's taint when named. */
  allowed(agent: string, session?: string): Promise<AgentView>;
  /** Whether a person can be asked at all: false for a gate of this process alone, which has no screen or phone. */
  readonly canAsk: boolean;
  /** Proposes a whole policy file as a candidate (issue 16): kept until a person activates it at the desktop. */
  propose(policy: string, reason: string): Promise<Record<string, unknown>>;
}

/** The running gate refused or failed the request itself (not a decision): the message says why. */
export class GateUnavailable extends OracleError<'GATE_UNREACHABLE'> {
  constructor(message: string) {
    super('GATE_UNREACHABLE', message);
  }
}

/** One request to the running gate: status and JSON body (status 0 when it did not answer with JSON). */
export type GateRequest = (call: { method: 'GET' | 'POST'; path: string; body?: unknown; timeoutMs: number; signal?: AbortSignal }) => Promise<{ status: number; body: Record<string, unknown> }>;

/** The REST API waits whole seconds, at most this long (server/http/routes/actions.ts). */
const MAX_WAIT_S = MAX_ACTION_WAIT_SECONDS;
/** Beyond the wait and the action's own run time, how long the gate may take to answer. */
const ANSWER_MS = 30_000;
/** The longest run time an action can be given (exec.run's `timeout`). */
const LONGEST_RUN_S = EXEC_TIMEOUT_S.max;
/** What the gate's own jobs may take: up to four git runs of 120 s (a commit). */
const GATE_JOBS_S = 600;

/**
 * How long an answer to `action` may take once a person said yes (or none was needed): its run
 * time, which the gate enforces itself, and a margin. A fixed 30 s had withdrawn every `npm test`
 * longer than that, whatever its `timeout` said (MCP probe, session 36). An answer that resumes an
 * approval (`oracle_await`) does not know its action: it allows the longest run there is.
 */
export function answerMs(action: Record<string, unknown> | undefined): number {
  if (action === undefined) return (LONGEST_RUN_S + GATE_JOBS_S) * 1000 + ANSWER_MS;
  const args = action['args'];
  const timeout = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)['timeout'] : undefined;
  if (typeof action['tool'] === 'string' && action['tool'].startsWith('exec.')) {
    return (typeof timeout === 'number' && timeout > 0 ? Math.min(timeout, LONGEST_RUN_S) : EXEC_TIMEOUT_S.default) * 1000 + ANSWER_MS;
  }
  // A delegate runs for as long as the policy's `delegate.timeout` says, up to the longest run.
  if (action['tool'] === 'agent.delegate') return LONGEST_RUN_S * 1000 + ANSWER_MS;
  return GATE_JOBS_S * 1000 + ANSWER_MS;
}

/** An action sent over the gate's local channel instead (no TLS, no HTTP): the same answer shape. */
export type LocalSubmit = (action: Record<string, unknown>, waitS: number, signal: AbortSignal | undefined) => Promise<{ status: number; body: Record<string, unknown> }>;

/**
 * `watch`: a look at the gate's health while a long answer is awaited (cli/gate-watch.ts): a gate
 * that stops answering ends the wait with GATE_UNREACHABLE and why, instead of at the answer's
 * full budget (up to 70 minutes for `oracle_await`).
 */
export function remoteGate(request: GateRequest, local?: LocalSubmit, watch?: () => { readonly signal: AbortSignal; readonly reason: () => string | undefined; stop(): void }): McpGate {
  /** Runs `call` with the watch's signal joined to the caller's; a gone gate is said as such. */
  const watched = async <T>(signal: AbortSignal | undefined, call: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> => {
    const looking = watch?.();
    if (looking === undefined) return call(signal);
    try {
      return await call(signal === undefined ? looking.signal : AbortSignal.any([signal, looking.signal]));
    } catch (e) {
      const gone = looking.reason();
      throw gone === undefined ? e : new GateUnavailable(`${gone}; whether the action ran is in its audit log, and a card that waited stays for the person (ask again with oracle_await once the gate answers)`);
    } finally {
      looking.stop();
    }
  };
  const seconds = (ms: number): number => Math.min(MAX_WAIT_S, Math.max(0, Math.ceil(ms / 1000)));
  const refusal = (answer: { status: number; body: Record<string, unknown> }): GateUnavailable => {
    const error = answer.body['error'];
    const text = (v: unknown, otherwise: string): string => (typeof v === 'string' ? v : otherwise);
    const said = typeof error === 'object' && error !== null ? `${text((error as { code?: unknown }).code, 'ERROR')}: ${text((error as { message?: unknown }).message, 'no reason given')}` : text(error, 'no reason given');
    return new GateUnavailable(`the gate refused the request (HTTP ${String(answer.status)}): ${said}`);
  };
  const outcome = (answer: { status: number; body: Record<string, unknown> }): RunResult => {
    if (answer.status === 200 || answer.status === 202) return answer.body as unknown as RunResult;
    throw refusal(answer);
  };
  return {
    canAsk: true,
    // A withdrawn call hangs up on the gate, which withdraws the action: its job killed, a `cancelled` record.
    submit: (action, waitMs, _agent, given) =>
      watched(given, async (signal) => {
        const wait = seconds(waitMs);
        if (local !== undefined) return outcome(await local(action, wait, signal));
        return outcome(await request({ method: 'POST', path: `/api/v1/actions?wait=${String(wait)}`, body: action, timeoutMs: wait * 1000 + answerMs(action), ...(signal === undefined ? {} : { signal }) }));
      }),
    allowed: async (_agent, session) => {
      const answer = await request({ method: 'GET', path: `/api/v1/allowed${session === undefined ? '' : `?session=${encodeURIComponent(session)}`}`, timeoutMs: ANSWER_MS });
      if (answer.status !== 200) throw refusal(answer);
      return answer.body as unknown as AgentView;
    },
    propose: async (policy, reason) => {
      const answer = await request({ method: 'POST', path: '/api/v1/policy/candidates', body: { policy, reason }, timeoutMs: ANSWER_MS });
      if (answer.status === 201) return answer.body;
      // A proposal with errors is an answer for the agent (it says which lines), not a gate failure.
      if (answer.status === 400) return answer.body;
      throw refusal(answer);
    },
    continueAction: (approvalId, waitMs, _agent, given) =>
      watched(given, async (signal) => {
        const wait = seconds(waitMs);
        const answer = await request({ method: 'GET', path: `/api/v1/actions/${encodeURIComponent(approvalId)}?wait=${String(wait)}`, timeoutMs: wait * 1000 + answerMs(undefined), ...(signal === undefined ? {} : { signal }) });
        return answer.status === 404 ? undefined : outcome(answer);
      }),
  };
}
