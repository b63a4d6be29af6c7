import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/main.js';
import { runClaude } from '../tests/fixtures/claude-cli.js';
import { startMessagesApi, type Script } from '../tests/fixtures/messages-api.js';
import { summarize, type Figure } from './stats.js';

/**
 * What ORACLE costs Claude Code (SPEC §11, §14): the real CLI runs one scripted 10-call session
 * (reads, writes, edits, searches, Bash) against the Messages API stand-in, without hooks and with
 * each hook kind, in the same run; and one hook call as Claude Code pays it, beside `node -e 0`.
 */
const RUNS = 5;
const CALLS = 40;
const VARIANTS = ['reference, no hook', 'command hook, no gate (headless)', 'command hook, gate running', 'http hook, gate running'] as const;
const ORACLE = join(import.meta.dirname, '..', 'dist', 'server', 'cli', 'oracle.js');
/** What `oracle integrate claude-code` installs as the command hook (server/cli/hook-entry.ts). */
const HOOK = join(import.meta.dirname, '..', 'dist', 'hook', 'oracle-hook.cjs');

/** How Claude Code's own http client reached the gate in the timed sessions (what the per-call figure assumes). */
export interface HookConnections {
  readonly sessions: number;
  readonly hook_calls: number;
  readonly tls_connections: number;
  readonly resumed: number;
}

export async function claudeSessionBench(): Promise<{ figures: Figure[]; connections: HookConnections }> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-claude-'));
  const home = join(root, 'home');
  const project = join(home, 'projects', 'app');
  const oracleHome = join(root, 'oracle-home');
  // A second ORACLE home where no gate ever runs: the command hook there decides headless.
  const idleHome = join(root, 'oracle-idle');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(oracleHome);
  mkdirSync(idleHome);
  writeFileSync(join(project, 'README.md'), '# app\n');
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, readFileSync(join(import.meta.dirname, '..', 'config', 'policy.yaml'), 'utf8').replaceAll('"~/', `"${home}/`));
  const session = (n: number): Script => ({
    marker: `SESSION-${String(n)}`,
    steps: [
      [{ name: 'Read', input: { file_path: `${project}/README.md` } }],
      [{ name: 'Bash', input: { command: 'ls -la', description: 'list' } }],
      [{ name: 'Write', input: { file_path: `${project}/src/f${String(n)}.ts`, content: 'export const v = "a";\n' } }],
      [{ name: 'Read', input: { file_path: `${project}/src/f${String(n)}.ts` } }],
      [{ name: 'Edit', input: { file_path: `${project}/src/f${String(n)}.ts`, old_string: '"a"', new_string: '"b"' } }],
      [{ name: 'Bash', input: { command: 'git status; cat README.md | wc -l', description: 'status' } }],
      [{ name: 'Bash', input: { command: 'grep -rn export src', description: 'search' } }],
      [{ name: 'Write', input: { file_path: `${project}/src/g${String(n)}.ts`, content: 'export {};\n' } }],
      [{ name: 'Read', input: { file_path: `${project}/src/g${String(n)}.ts` } }],
      [{ name: 'Bash', input: { command: 'head -n 3 README.md && echo done', description: 'peek' } }],
    ],
  });
  let n = 0;
  const ROUNDS = RUNS + 1;
  const scripts: Script[] = Array.from({ length: VARIANTS.length * ROUNDS }, (_, i) => session(i));
  const api = await startMessagesApi(scripts);
  const settingsFile = join(home, '.claude', 'settings.json');
  const runSession = async (): Promise<number> => {
    // Every call runs in every variant: without a hook nothing asks; with one, ORACLE allows them.
    const run = await runClaude({ cwd: project, home, api: api.url, prompt: `SESSION-${String(n++)}: work`, mode: 'bypassPermissions' });
    if (run.code !== 0) throw new Error(`claude exited ${String(run.code)}: ${run.stderr}`);
    const denied = (JSON.parse(run.stdout) as { permission_denials?: unknown[] }).permission_denials ?? [];
    if (denied.length > 0) throw new Error(`the session was refused ${String(denied.length)} calls; the figures would not compare like with like`);
    return run.ms * 1000;
  };
  /** The settings each variant runs with, made once by `oracle integrate` itself. */
  const settingsOf = async (args: readonly string[] | undefined, where: string): Promise<string> => {
    writeFileSync(settingsFile, '{}\n');
    if (args !== undefined) await spawnOnce(process.execPath, [ORACLE, 'integrate', 'claude-code', '--home', where, '--policy', policy, ...args], { HOME: home });
    return readFileSync(settingsFile, 'utf8');
  };
  const figures: Figure[] = [];
  const seen = { sessions: 0, hook_calls: 0, tls_connections: 0, resumed: 0 };
  const running = await startServer({ home: oracleHome, policy, port: 0 });
  try {
    mkdirSync(join(home, '.claude'), { recursive: true });
    const settings = [await settingsOf(undefined, oracleHome), await settingsOf([], idleHome), await settingsOf([], oracleHome), await settingsOf(['--http'], oracleHome)];
    // Rounds interleave the variants, so what Claude Code keeps in its HOME between sessions
    // (transcripts, caches) weighs on every variant alike; the first round warms up.
    const samples: number[][] = VARIANTS.map(() => []);
    // What Claude Code's http client does (one connection per session, or one per call?) is counted
    // on the gate's own server during the http variant's sessions, not assumed.
    let counting = false;
    const server = running.listening.server;
    server.on('secureConnection', (socket: TLSSocket) => {
      if (!counting) return;
      seen.tls_connections += 1;
      if (socket.isSessionReused()) seen.resumed += 1;
    });
    server.on('request', (req: { url?: string }) => {
      if (counting && req.url === '/api/v1/hooks/claude-code') seen.hook_calls += 1;
    });
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, text] of settings.entries()) {
        writeFileSync(settingsFile, text);
        counting = VARIANTS[i] === 'http hook, gate running';
        if (counting) seen.sessions += 1;
        const us = await runSession();
        counting = false;
        if (round > 0) samples[i]?.push(us);
      }
    }
    VARIANTS.forEach((name, i) => figures.push(summarize(`claude code 10-call session: ${name}`, samples[i] ?? [])));
    figures.push(...(await perCall(running.url, { gate: oracleHome, idle: idleHome, user: home }, project)));
  } finally {
    await running.close();
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
  return { figures, connections: seen };
}

/** A hook that answers allow and does nothing else: what any command hook pays at least. */
const MINIMAL_HOOK = `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }))`;
/** Without a gate each call opens one, so it is sampled every other round to keep the bench short. */
const HEADLESS_EVERY = 2;

/**
 * One PreToolUse call as Claude Code pays it, for each payload kind (Bash, Read, Edit, Write):
 * `node -e 0` and a minimal hook that prints allow, beside ORACLE's command hook with a gate
 * running (over the local socket) and without one, and the http hook's one HTTPS POST: on a
 * kept-alive connection, as Claude Code sends its hook calls (counted in the sessions above), and
 * on a new connection resuming its TLS session, as it reconnects after the gate closed an idle one.
 *
 * Round-robin: each round takes one sample of every variant in turn, so a burst of load on this
 * (shared, noisy) machine weighs on the reference and on ORACLE alike instead of on whichever
 * block of samples it happened to fall in. The first round warms up and is not counted.
 */
async function perCall(url: string, homes: { gate: string; idle: string; user: string }, project: string): Promise<Figure[]> {
  writeFileSync(join(project, 'src', 'hook-bench.ts'), 'export const v = 1;\n');
  const pre = (tool: string, input: Record<string, unknown>) => JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'bench', cwd: project, tool_name: tool, tool_input: input });
  const kinds: [string, string][] = [
    ['Bash', pre('Bash', { command: 'ls -la && cat README.md' })],
    ['Read', pre('Read', { file_path: `${project}/README.md` })],
    ['Edit', pre('Edit', { file_path: `${project}/src/hook-bench.ts`, old_string: '= 1', new_string: '= 2' })],
    ['Write', pre('Write', { file_path: `${project}/src/hook-bench-w.ts`, content: 'export {};\n' })],
  ];
  const token = readFileSync(join(homes.gate, 'data', 'hook-claude-code.token'), 'utf8').trim();
  const ca = readFileSync(join(homes.gate, 'certs', 'ca.crt'), 'utf8');
  const kept = new Agent({ keepAlive: true, maxSockets: 1, ca });
  const reconnecting = new Agent({ keepAlive: false, ca });
  // The hooks run as Claude Code starts them, with its HOME (the default policy's `~`), and every
  // measured call must come back allowed: a figure of a refusal would measure the wrong path.
  const env = { HOME: homes.user };
  const allowed = (once: () => Promise<string>) => async () => {
    const answer = await once();
    if (!answer.includes('"permissionDecision":"allow"')) throw new Error(`the hook did not allow the bench's call: ${answer.slice(0, 300)}`);
  };
  const hook = `${url}/api/v1/hooks/claude-code`;
  const variants: { name: string; once: () => Promise<unknown>; every: number }[] = [
    { name: 'hook call: reference, node -e 0', once: () => spawnOnce(process.execPath, ['-e', '0']), every: 1 },
    { name: 'hook call: reference, a minimal hook that prints allow', once: () => spawnOnce(process.execPath, ['-e', MINIMAL_HOOK]), every: 1 },
  ];
  for (const [kind, payload] of kinds) {
    variants.push(
      { name: `hook call (${kind}): command hook, gate running`, once: allowed(() => spawnOnce(process.execPath, [HOOK, 'hook', 'claude-code', '--home', homes.gate], env, payload)), every: 1 },
      { name: `hook call (${kind}): http hook, one HTTPS POST to the gate`, once: allowed(() => post(hook, { token, agent: kept }, payload)), every: 1 },
      { name: `hook call (${kind}): http hook, on a new TLS connection (session resumed)`, once: allowed(() => post(hook, { token, agent: reconnecting }, payload)), every: 1 },
      { name: `hook call (${kind}): command hook, no gate (headless)`, once: allowed(() => spawnOnce(process.execPath, [HOOK, 'hook', 'claude-code', '--home', homes.idle], env, payload)), every: HEADLESS_EVERY },
    );
  }
  const samples = variants.map((): number[] => []);
  for (let round = 0; round <= CALLS; round++) {
    for (const [i, v] of variants.entries()) {
      if (round % v.every !== 0) continue;
      const t = process.hrtime.bigint();
      await v.once();
      if (round > 0) samples[i]?.push(Number(process.hrtime.bigint() - t) / 1000);
    }
  }
  kept.destroy();
  reconnecting.destroy();
  return variants.map((v, i) => summarize(v.name, samples[i] ?? []));
}

/** Runs one process to its end; resolves with what it printed (refuses a non-zero exit). */
function spawnOnce(file: string, args: readonly string[], env: Readonly<Record<string, string>> = {}, input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, ...env } });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${args.join(' ')} exited ${String(code)}`));
    });
    child.stdin.end(input);
  });
}

/** One hook call over HTTPS; resolves with the answer's body. */
function post(url: string, how: { token: string; agent: Agent }, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: how.agent, headers: { authorization: `Bearer ${how.token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`hook answered ${String(res.statusCode)}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
