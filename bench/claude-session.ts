import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/main.js';
import { runClaude } from '../tests/fixtures/claude-cli.js';
import { startMessagesApi, type Script } from '../tests/fixtures/messages-api.js';
import { measure, summarize, type Figure } from './stats.js';

/**
 * What ORACLE costs Claude Code (SPEC §11, §14): the real CLI runs one scripted 10-call session
 * (reads, writes, edits, searches, Bash) against the Messages API stand-in, without hooks and with
 * each hook kind, in the same run; and one hook call as Claude Code pays it, beside `node -e 0`.
 */
const RUNS = 3;
const CALLS = 40;
const ORACLE = join(import.meta.dirname, '..', 'dist', 'server', 'cli', 'oracle.js');

export async function claudeSessionBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-claude-'));
  const home = join(root, 'home');
  const project = join(home, 'projects', 'app');
  const oracleHome = join(root, 'oracle-home');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(oracleHome);
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
  const scripts: Script[] = Array.from({ length: 4 * (RUNS + 1) }, (_, i) => session(i));
  const api = await startMessagesApi(scripts);
  const runSession = async (): Promise<number> => {
    // Every call runs in every variant: without a hook nothing asks; with one, ORACLE allows them.
    const run = await runClaude({ cwd: project, home, api: api.url, prompt: `SESSION-${String(n++)}: work`, mode: 'bypassPermissions' });
    if (run.code !== 0) throw new Error(`claude exited ${String(run.code)}: ${run.stderr}`);
    const denied = (JSON.parse(run.stdout) as { permission_denials?: unknown[] }).permission_denials ?? [];
    if (denied.length > 0) throw new Error(`the session was refused ${String(denied.length)} calls; the figures would not compare like with like`);
    return run.ms * 1000;
  };
  const sessions = async (name: string): Promise<Figure> => {
    await runSession(); // warm up
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await runSession());
    return summarize(name, samples);
  };
  const integrate = (args: readonly string[]) => spawnOnce(process.execPath, [ORACLE, 'integrate', 'claude-code', '--home', oracleHome, '--policy', policy, ...args], { HOME: home });
  const figures: Figure[] = [];
  try {
    figures.push(await sessions('claude code 10-call session: reference, no hook'));
    await integrate([]);
    figures.push(await sessions('claude code 10-call session: command hook, no gate (headless)'));
    const running = await startServer({ home: oracleHome, policy, port: 0 });
    try {
      await integrate([]);
      figures.push(await sessions('claude code 10-call session: command hook, gate running'));
      await integrate(['--http']);
      figures.push(await sessions('claude code 10-call session: http hook, gate running'));
      figures.push(...(await perCall(running.url, oracleHome, project)));
    } finally {
      await running.close();
    }
  } finally {
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}

/** One PreToolUse call as Claude Code pays it, per kind, beside starting Node itself. */
async function perCall(url: string, oracleHome: string, project: string): Promise<Figure[]> {
  const payload = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'bench', cwd: project, tool_name: 'Bash', tool_input: { command: 'ls -la && cat README.md' } });
  const token = readFileSync(join(oracleHome, 'data', 'hook-claude-code.token'), 'utf8').trim();
  const ca = readFileSync(join(oracleHome, 'certs', 'ca.crt'), 'utf8');
  return [
    await measure('hook call (Bash): reference, node -e 0', CALLS, () => spawnOnce(process.execPath, ['-e', '0'])),
    await measure('hook call (Bash): command hook, gate running', CALLS, () => spawnOnce(process.execPath, [ORACLE, 'hook', 'claude-code', '--home', oracleHome], {}, payload)),
    // A new TLS connection per call, as a hook client without keep-alive pays it.
    await measure('hook call (Bash): http hook, one HTTPS POST to the gate', CALLS, () => post(`${url}/api/v1/hooks/claude-code`, token, ca, payload)),
  ];
}

function spawnOnce(file: string, args: readonly string[], env: Readonly<Record<string, string>> = {}, input = ''): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, ...env } });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${args.join(' ')} exited ${String(code)}`));
    });
    child.stdin.end(input);
  });
}

function post(url: string, token: string, ca: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) resolve();
        else reject(new Error(`hook answered ${String(res.statusCode)}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
