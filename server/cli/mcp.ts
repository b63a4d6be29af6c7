import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { agentCredential } from '../adapters/agent-credential.js';
import { gateAnswers, localGate, localRequest } from '../adapters/local-client.js';
import { watchGate } from './gate-watch.js';
import { resolveHome } from '../adapters/package-root.js';
import { answerMs, GateUnavailable, remoteGate, type GateRequest, type LocalSubmit, type McpGate } from '../mcp/gate.js';
import { requestLocal } from '../adapters/local-socket.js';
import { SpareConnection } from '../adapters/local-spare.js';
import { createMcpServer, type McpOptions } from '../mcp/server.js';
import { openRuntime, type Runtime } from '../app/runtime.js';
import { modeBanner } from './policy-check.js';
import { allowedView } from '../app/allowed-view.js';

/** How long calls still running may take to finish once the client went away. */
const SETTLE_MS = 5000;

/**
 * `oracle mcp` (SPEC §11, §12): a stdio MCP server whose tools are the gated ORACLE tools, run
 * through the whole lifecycle (decide, audit, approve, execute in the toolhost). stdout is the
 * protocol, so everything else goes to stderr. Resolves with the exit status when the client
 * closes stdin or the process is told to stop.
 */
export async function runMcp(options: McpOptions): Promise<number> {
  const home = resolveHome(options.home, process.env);
  // One gate per home (SPEC §12): with one running, this server is its client.
  if (localGate(home) !== undefined) {
    let client: McpGate;
    try {
      client = await gateClient(home, options);
    } catch (e) {
      process.stderr.write(`oracle: mcp cannot start: ${e instanceof Error ? e.message : 'unknown error'}\n`);
      return 1;
    }
    return await serveStdio(client, options, () => Promise.resolve());
  }
  let runtime: Runtime;
  try {
    runtime = await openRuntime({ home, policy: options.policy, actor: 'mcp' });
  } catch (e) {
    const message = e instanceof Error ? e.message : 'unknown error';
    // Another MCP server is this home's gate: it holds the home until it ends.
    const shared = message.includes('another ORACLE process') ? '; with `oracle serve` running on this home, any number of MCP servers share it as its clients' : '';
    process.stderr.write(`oracle: mcp cannot start: ${message}${shared}\n`);
    return 1;
  }
  report(runtime, options.agent);
  write('no ORACLE gate runs with this home: this server is its own gate, so no desktop or phone can approve what needs a person (start `oracle serve` first to have them asked)');
  // Nobody can be asked: what needs a person is kept as a pending approval at once, not waited on.
  const own: McpGate = {
    canAsk: false,
    submit: (action, _waitMs, agent, signal) => runtime.submit(action, 0, agent, signal),
    continueAction: (approvalId, _waitMs, agent) => runtime.continueAction(approvalId, 0, agent),
    allowed: (agent, session) => allowedView(runtime.gate.context.gate.policy, runtime.toolhost.env.secrets, agent, session === undefined ? undefined : { id: session, state: runtime.taintOf(session) }),
    propose: () => Promise.reject(new GateUnavailable('a policy change waits for a person at the desktop of a running gate: start `oracle serve` on this home first')),
  };
  return await serveStdio(own, options, () => runtime.close());
}

/** The running gate as this server's gate: the agent's own credential, the gate found again per call (it may restart). */
async function gateClient(home: string, options: McpOptions): Promise<McpGate> {
  const gate = localGate(home);
  write(`mcp server on stdio as agent \`${options.agent}\`, a client of the ORACLE gate at ${gate?.url ?? '?'} (pid ${String(gate?.pid ?? '?')}): its policy, approvals (desktop and paired phones), audit log and HALT`);
  if (options.policy !== undefined) write('WARNING: --policy is ignored: the running gate decides with its own policy');
  const token = await agentCredential(home, options.agent);
  if (token === undefined) throw new Error(`\`${options.agent}\` cannot be an agent name here (letters, digits, . _ -)`);
  const kept = join(home, 'data', `agent-${options.agent}.token`);
  const revoked = (): GateUnavailable => new GateUnavailable(`the gate refused this server's credential (revoked?); to have a new one issued on the next start, remove ${kept}`);
  const found = (): NonNullable<ReturnType<typeof localGate>> => {
    const now = localGate(home);
    if (now === undefined) throw new GateUnavailable('no ORACLE gate runs with this home any more; start `oracle serve` and call again');
    return now;
  };
  // Actions go over the gate's local channel when it has one: the hop costs no TLS and no HTTP,
  // and its next connection is opened while the model thinks, not when it asks.
  const spare = new SpareConnection();
  const gateOf = (g: NonNullable<ReturnType<typeof localGate>>): string => `${g.socket ?? ''}#${String(g.pid)}`;
  if (gate?.socket !== undefined) spare.prepare(gate.socket, gateOf(gate));
  // The gate the last call reached. While the connection opened ahead to it is open, that gate
  // still runs (one that stops closes it, one that dies has it closed by the kernel), so its
  // record in the home is not read again for every call.
  let last = gate;
  const local: LocalSubmit = async (action, waitS, signal) => {
    const now = last !== undefined && spare.ready(gateOf(last)) ? last : found();
    last = now;
    const socket = now.socket;
    if (socket === undefined) return http({ method: 'POST', path: `/api/v1/actions?wait=${String(waitS)}`, body: action, timeoutMs: waitS * 1000 + answerMs(action), ...(signal === undefined ? {} : { signal }) });
    let answer: Record<string, unknown>;
    try {
      const connection = spare.take(gateOf(now));
      answer = await requestLocal(socket, { authorization: `Bearer ${token}`, body: Buffer.from(JSON.stringify(action)), timeoutMs: waitS * 1000 + answerMs(action), route: { kind: 'action', waitS }, connection, ...(signal === undefined ? {} : { signal }) });
    } catch (e) {
      if (signal?.aborted === true) throw new GateUnavailable('the call was withdrawn');
      const why = e instanceof Error ? e.message : 'unknown';
      // The gate stopped just before or while this call went out: said as such.
      if (localGate(home)?.pid !== now.pid) throw new GateUnavailable(`no ORACLE gate runs with this home any more (${why}); whether the action ran is in its audit log; start \`oracle serve\` and call again`);
      throw new GateUnavailable(`the ORACLE gate at ${now.url} did not answer (${why}); whether the action ran is in its audit log`);
    } finally {
      // The next connection is opened once this answer is on its way to the host, not before it.
      setImmediate(() => {
        spare.prepare(socket, gateOf(now));
      });
    }
    const refused = answer['refused'] as { code?: unknown; message?: unknown } | undefined;
    // As over HTTPS, a revoked credential stays revoked.
    if (refused?.code === 'UNAUTHENTICATED') throw revoked();
    if (refused !== undefined) throw new GateUnavailable(`the gate refused the request: ${String(refused.code)}: ${String(refused.message)}`);
    if (typeof answer['error'] === 'string') throw new GateUnavailable(`the gate refused the request: ${answer['error']}`);
    const result = answer['outcome'] as Record<string, unknown> | undefined;
    if (result === undefined) throw new GateUnavailable('the gate answered without an outcome');
    // remoteGate reads 200 and 202 alike: the outcome itself says whether it waits for a person.
    return { status: 200, body: result };
  };
  const http: GateRequest = async (call) => {
    const now = found();
    let answer: Awaited<ReturnType<typeof localRequest>>;
    try {
      answer = await localRequest(home, now, { ...call, authorization: `Bearer ${token}` });
    } catch (e) {
      throw new GateUnavailable(`the ORACLE gate at ${now.url} did not answer (${e instanceof Error ? e.message : 'unknown'}); whether the action ran is in its audit log`);
    }
    // A revoked credential stays revoked: this server never issues itself a new one behind the person's back.
    if (answer.status === 401) throw revoked();
    return answer;
  };
  // A gate gone from the home (stopped, another started) counts as not answering.
  const answers = (): Promise<boolean> => {
    const now = localGate(home);
    return now === undefined ? Promise.resolve(false) : gateAnswers(home, now);
  };
  return remoteGate(http, local, () => watchGate(answers));
}

/** Serves MCP on stdio until the client closes stdin or the process is told to stop. */
async function serveStdio(gate: McpGate, options: McpOptions, close: () => Promise<void>): Promise<number> {
  const { server, settle, withdrawAll } = createMcpServer(gate, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  const stop = (): void => {
    void transport.close();
  };
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await server.connect(transport);
    await closed;
    return 0;
  } finally {
    process.stdin.off('end', stop);
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    // The host is gone, so nobody will read what a running call returns: each is withdrawn (its job
    // killed, a `cancelled` record) and has its terminal record written before the log closes.
    withdrawAll();
    await settle(SETTLE_MS);
    await close();
    // stdin stays referenced after the transport pauses it; let the process end.
    process.stdin.destroy();
  }
}

/** Loud lines on stderr: the mode, the principal, and the isolation children really get. */
function write(line: string): void {
  process.stderr.write(`oracle: ${line}\n`);
}

function report(runtime: Runtime, agent: string): void {
  if (runtime.mode() === 'halted') write('ORACLE IS HALTED: every action is denied until `oracle resume`');
  const banner = modeBanner(runtime.gate);
  if (banner !== undefined) write(banner);
  if (!runtime.gate.context.gate.policy.agents.has(agent)) write(`WARNING: agent \`${agent}\` is not in the policy's principals.agents: every call will be denied`);
  const sandbox = runtime.toolhost.sandbox;
  write(sandbox.kind === 'bubblewrap' ? `children run under bubblewrap (${sandbox.detail})` : `WARNING: children run WITHOUT isolation: ${sandbox.reason}`);
  write(`mcp server on stdio as agent \`${agent}\`, home ${runtime.gate.home}`);
}
