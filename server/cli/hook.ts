import type { Readable, Writable } from 'node:stream';
import { hookToken, localGate, localRequest } from '../adapters/local-client.js';
import { loadBashParser, parseBash } from '../adapters/bash-parser.js';
import { bashVerdict } from '../core/hook/bash-actions.js';
import { mapToolCall, readProvenance, type GateAction, type HookPayload } from '../core/hook/claude-code-map.js';
import { resolveHome } from '../gate.js';
import { openRuntime, type Runtime } from '../runtime.js';

const AGENT = 'claude-code';
/** Within Claude Code's hook timeout (integrate sets 120 s): long enough for a phone. */
const WAIT_S = 100;
const MAX_INPUT = 8 * 1024 * 1024;

type Verdict = { readonly decision: 'allow' | 'deny' | 'ask'; readonly reason: string };

/**
 * `oracle hook claude-code` (SPEC §11): a PreToolUse payload on stdin, the hook answer on stdout.
 * Every action the call implies is judged; the strictest answer wins; needs-approval waits for a
 * person through the running gate. No gate, no answer in time, HALT or any error: deny.
 */
export async function runHook(options: { home: string | undefined; policy: string | undefined }, io: { stdin: Readable; stdout: Writable }): Promise<number> {
  const home = resolveHome(options.home, process.env);
  let payload: HookPayload;
  try {
    payload = JSON.parse(await readAll(io.stdin)) as HookPayload;
  } catch {
    return answer(io.stdout, { decision: 'deny', reason: 'ORACLE could not read the hook payload' });
  }
  const session = typeof payload.session_id === 'string' ? payload.session_id : undefined;
  if (payload.hook_event_name === 'PostToolUse') {
    const read = readProvenance(payload);
    if (read.length > 0 && session !== undefined) await report(home, options.policy, session, read).catch(() => undefined);
    io.stdout.write('{}\n');
    return 0;
  }
  try {
    return answer(io.stdout, await judge(home, options.policy, payload, session));
  } catch (e) {
    return answer(io.stdout, { decision: 'deny', reason: `ORACLE failed closed: ${e instanceof Error ? e.message : 'unknown error'}` });
  }
}

async function judge(home: string, policy: string | undefined, payload: HookPayload, session: string | undefined): Promise<Verdict> {
  const cwd = typeof payload.cwd === 'string' ? payload.cwd : undefined;
  const mapped = mapToolCall(payload);
  let actions: readonly GateAction[];
  switch (mapped.kind) {
    case 'allow':
      return { decision: 'allow', reason: mapped.reason };
    case 'deny':
      return { decision: 'deny', reason: mapped.reason };
    case 'actions':
      actions = mapped.actions;
      break;
    case 'bash': {
      const tree = await parseBash(mapped.command);
      if ('error' in tree) return { decision: 'ask', reason: `ORACLE could not parse this command (${tree.error}); look at it yourself` };
      // `bash -c "…"` is parsed again with the same parser, so its commands are judged too.
      const verdict = bashVerdict(tree, { cwd: cwd ?? '/', parse: await loadBashParser() });
      if (verdict.kind === 'deny') return { decision: 'deny', reason: verdict.reason };
      if (verdict.kind === 'ask') return { decision: 'ask', reason: `ORACLE cannot account for all of this command: ${verdict.reason}` };
      actions = verdict.actions;
      if (actions.length === 0) return { decision: 'allow', reason: 'no side effect beyond printing' };
      break;
    }
  }
  const reasons: string[] = [];
  for (const action of actions) {
    const full = { ...action, ...(cwd === undefined ? {} : { cwd }), ...(session === undefined ? {} : { session }) };
    const result = await authorize(home, policy, full);
    if (!result.allowed) return { decision: 'deny', reason: `ORACLE: ${result.reason}` };
    reasons.push(`${action.tool}: ${result.reason}`);
  }
  return { decision: 'allow', reason: `ORACLE: ${reasons.join(' | ')}` };
}

/** Through the running gate (a person can be asked), else a gate opened here (nobody to ask). */
async function authorize(home: string, policy: string | undefined, action: Record<string, unknown>): Promise<{ allowed: boolean; reason: string }> {
  const gate = localGate(home);
  if (gate !== undefined) {
    const token = hookToken(home, AGENT);
    if (token === undefined) return { allowed: false, reason: 'no hook credential; run `oracle integrate claude-code`' };
    const reply = await localRequest(home, gate, { method: 'POST', path: `/api/v1/authorize?wait=${String(WAIT_S)}`, body: action, authorization: `Bearer ${token}` });
    if (reply.status !== 200) return { allowed: false, reason: `the gate answered ${String(reply.status)}` };
    const reason = reply.body['reason'];
    return { allowed: reply.body['allowed'] === true, reason: typeof reason === 'string' ? reason : '' };
  }
  const runtime = await openWithRetry(home, policy);
  try {
    const result = await runtime.authorize(action, 0, AGENT);
    return result.allowed || result.decision.decision !== 'needs-approval'
      ? result
      : { allowed: false, reason: `${result.decision.tier} needs a person and no ORACLE server is running to ask one (start \`oracle serve --lan\`)` };
  } finally {
    await runtime.close();
  }
}

/** Parallel tool calls each open the gate briefly; one at a time per home (the audit chain). */
async function openWithRetry(home: string, policy: string | undefined): Promise<Runtime> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openRuntime({ home, policy, actor: AGENT });
    } catch (e) {
      if (attempt >= 40 || !(e instanceof Error) || !e.message.includes('another ORACLE process')) throw e;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 100));
    }
  }
}

async function report(home: string, policy: string | undefined, session: string, read: readonly { kind: 'external' | 'local_foreign' | 'user' | 'local_trusted'; source: string }[]): Promise<void> {
  const gate = localGate(home);
  const token = hookToken(home, AGENT);
  if (gate !== undefined && token !== undefined) {
    await localRequest(home, gate, { method: 'POST', path: `/api/v1/sessions/${encodeURIComponent(session)}/provenance`, body: { read }, authorization: `Bearer ${token}` });
    return;
  }
  const runtime = await openWithRetry(home, policy);
  try {
    runtime.taint(session, read);
  } finally {
    await runtime.close();
  }
}

function answer(out: Writable, verdict: Verdict): number {
  out.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: verdict.decision, permissionDecisionReason: verdict.reason } })}\n`);
  return 0;
}

async function readAll(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_INPUT) throw new Error('the payload is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
