import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { resolveHome } from '../adapters/package-root.js';
import { gateAnswers, hookToken, localGate, localRequest } from '../adapters/local-client.js';
import { watchGate } from './gate-watch.js';
import { readStdin } from '../adapters/stdin.js';
import { HOOK_BUDGET_MS, preToolAnswer, type DecidedEvent, type HookAnswer } from '../hook/answer.js';

const AGENT = 'claude-code';
const MAX_INPUT = 8 * 1024 * 1024;
/** The gate answers within the hook budget; this only bounds a gate that stopped answering. */
const GATE_TIMEOUT_MS = HOOK_BUDGET_MS + 10_000;

interface HookOptions {
  readonly home: string | undefined;
  readonly policy: string | undefined;
}

/**
 * `oracle hook claude-code` (SPEC §11): a thin client. With a gate running on the home it forwards
 * the payload to the gate's hook endpoint (the same answer the http hook gets) and prints the
 * answer; with none it judges here, headless (nobody can be asked). It never fails open: every
 * payload gets a decision on stdout and exit 0, and anything that prevents one exits 2 (which
 * Claude Code treats as blocking), as does the `|| exit 2` that `oracle integrate` appends.
 */
export async function runHookCommand(argv: readonly string[], io: { stdout: Writable; stderr: Writable } = process): Promise<number> {
  const blocked = (why: string): number => {
    io.stderr.write(`oracle hook: ${why}\n`);
    return 2;
  };
  let options: HookOptions;
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: { home: { type: 'string' }, policy: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 1 || positionals[0] !== 'claude-code') return blocked('usage: oracle hook claude-code [--home DIR] [--policy FILE]');
    options = { home: values.home, policy: values.policy };
  } catch (e) {
    return blocked(e instanceof Error ? e.message : 'bad arguments');
  }
  try {
    const answer = await hookAnswer(options);
    io.stdout.write(`${JSON.stringify(answer.output)}\n`);
    return 0;
  } catch (e) {
    return blocked(`failed closed: ${e instanceof Error ? e.message : 'unknown error'}`);
  }
}

async function hookAnswer(options: HookOptions): Promise<HookAnswer> {
  const raw = await readStdin(MAX_INPUT);
  if (raw === undefined) return preToolAnswer('deny', `ORACLE: the hook payload is over ${String(MAX_INPUT)} bytes`);
  const resolved = resolveHome(options.home, process.env);
  const gate = localGate(resolved);
  // A refusal names the event it answers (Claude Code rejects any other name); a payload that only
  // pretends to be a skill's command is refused all the same.
  const event = (): DecidedEvent => (/"hook_event_name"\s*:\s*"PreSkillShellCommand"/u.test(raw.toString('utf8')) ? 'PreSkillShellCommand' : 'PreToolUse');
  if (gate !== undefined) {
    const token = hookToken(resolved, AGENT);
    if (token === undefined) return preToolAnswer('deny', 'ORACLE: no hook credential in this home; run `oracle integrate claude-code`', event());
    const authorization = `Bearer ${token}`;
    // A wait for a person may take the whole budget; a gate that stopped answering is not waited for (gate-watch.ts).
    const watch = watchGate(() => gateAnswers(resolved, gate));
    const { signal } = watch;
    // The local channel when the gate has one (no TLS handshake per call), else its HTTPS API.
    const reply =
      gate.socket === undefined
        ? await localRequest(resolved, gate, { method: 'POST', path: '/api/v1/hooks/claude-code', body: raw, authorization, timeoutMs: GATE_TIMEOUT_MS, signal }).catch((e: unknown) => ({ status: 0, body: { error: e instanceof Error ? e.message : 'unreachable' } }))
        : await (await import('../adapters/local-socket.js')).requestLocal(gate.socket, { authorization, body: raw, timeoutMs: GATE_TIMEOUT_MS, signal }).then(
            (body) => ({ status: 'error' in body ? 0 : 200, body }),
            (e: unknown) => ({ status: 0, body: { error: e instanceof Error ? e.message : 'unreachable' } }),
          );
    watch.stop();
    const gone = watch.reason();
    if (gone !== undefined) return preToolAnswer('deny', `ORACLE: ${gone}; denied`, event());
    if (reply.status === 200) return { output: reply.body };
    return preToolAnswer('deny', `ORACLE: the running gate did not answer (${reply.status === 0 ? String(reply.body['error']) : `HTTP ${String(reply.status)}`}); denied`, event());
  }
  // No gate: judge here (the gate parses what it is sent itself, so the bytes went there as they came).
  // Loaded only now, so the forwarding path above stays small.
  let payload: unknown;
  try {
    payload = JSON.parse(raw.toString('utf8'));
  } catch {
    payload = undefined; // answered as "not a JSON object", and audited like every answer
  }
  const { loadHeadless } = await import('./headless-loader.js');
  const headless = await loadHeadless();
  try {
    return await headless.answerHeadless(payload, { home: resolved, policy: options.policy, agent: AGENT });
  } finally {
    headless.keep();
  }
}
