import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { CredentialStore } from '../adapters/credentials-store.js';
import { ensureDir, ensurePrivateDir, fileExists, readOperatorFile, writePrivateFile } from '../adapters/files.js';
import { hookEntryPath } from '../adapters/hook-bundle.js';
import { hookToken, localGate } from '../adapters/local-client.js';
import { postHttpHook, runCommandHook } from '../adapters/hook-probe.js';
import { HOOK_ROUTE, withOracleHooks, withoutOracleHooks, type OracleHook } from '../core/hook/settings-merge.js';
import { HOOK_TIMEOUT_S } from '../hook/answer.js';
import type { GateState } from '../app/gate-policy.js';
import { scopeProject } from './project-scope.js';

/**
 * `oracle integrate claude-code [--project DIR] [--http] [--remove]`: puts ORACLE's PreToolUse and
 * PostToolUse hooks into the user's (or a project's) Claude Code settings, keeping what is there,
 * gives the hook its own agent credential (principal `claude-code`, stored 0600 in ORACLE's home),
 * then runs what it installed once and says what it answered. The command hook runs ORACLE by
 * absolute path (PATH is never trusted); `--http` makes Claude Code post to the running gate
 * instead, with no process per tool call, and blocks every call while no gate runs.
 */
export async function runIntegrate(given: GateState, options: { project: string | undefined; remove: boolean; http: boolean }, out: Writable): Promise<number> {
  let gate = given;
  const settingsPath = options.project === undefined ? join(homedir(), '.claude', 'settings.json') : join(options.project, '.claude', 'settings.json');
  let settings: Record<string, unknown> = {};
  if (fileExists(settingsPath)) {
    const read = readOperatorFile(settingsPath);
    if (!read.ok) {
      out.write(`oracle: cannot read ${settingsPath}: ${read.reason}\n`);
      return 1;
    }
    try {
      settings = JSON.parse(read.bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      out.write(`oracle: ${settingsPath} is not valid JSON; fix it first (nothing was changed)\n`);
      return 1;
    }
  }
  const caFile = join(gate.home, 'certs', 'ca.crt');
  if (options.remove) {
    writePrivateFile(settingsPath, `${JSON.stringify(withoutOracleHooks(settings, caFile), null, 2)}\n`);
    out.write(`removed ORACLE's hooks from ${settingsPath}\n`);
    return 0;
  }
  if (options.project !== undefined) {
    const scoped = scopeProject(gate, options.project, out);
    if (scoped === undefined) return 1;
    gate = scoped;
  }
  if (gate.context.gate.policy.agents.get('claude-code') === undefined) {
    out.write(`oracle: the policy ${gate.policyFile} has no principals.agents.claude-code; add it (its capabilities are the hook's ceiling)\n`);
    return 2;
  }
  const data = join(gate.home, 'data');
  ensurePrivateDir(data);
  const tokenFile = join(data, 'hook-claude-code.token');
  if (!fileExists(tokenFile)) {
    const { token } = await CredentialStore.open(data).issue('ag', 'claude-code');
    writePrivateFile(tokenFile, `${token}\n`);
  }
  const entry = hookEntryPath();
  const argv = [process.execPath, entry, 'hook', 'claude-code', '--home', gate.home];
  const running = localGate(gate.home);
  const token = hookToken(gate.home, 'claude-code') ?? '';
  const hook: OracleHook = options.http
    ? { kind: 'http', url: `${running?.url ?? 'https://127.0.0.1:8443'}${HOOK_ROUTE}`, token, caFile, timeoutS: HOOK_TIMEOUT_S }
    : { kind: 'command', command: `${shQuote(process.execPath)} ${shQuote(entry)} hook claude-code --home ${shQuote(gate.home)}`, timeoutS: HOOK_TIMEOUT_S };
  const next = withOracleHooks(settings, hook);
  if ('error' in next && typeof next['error'] === 'string') {
    out.write(`oracle: ${next['error']} (nothing was changed)\n`);
    return 1;
  }
  ensureDir(join(settingsPath, '..'));
  writePrivateFile(settingsPath, `${JSON.stringify(next, null, 2)}\n`);
  out.write(`ORACLE's hooks are in ${settingsPath}\n  ${hook.kind === 'http' ? `http: ${hook.url}` : `command: ${hook.command} || exit 2`}\n`);
  return checkInstalled(hook, { argv, home: gate.home, gateRuns: running !== undefined }, out);
}

/** Claude Code runs a command hook through `sh -c`: each path as one single-quoted word. */
const shQuote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Runs the installed hook once with a call it must refuse (reading ORACLE's own home) and says
 * what came back. A hook that does not answer is reported, and the exit status says so.
 */
async function checkInstalled(hook: OracleHook, where: { argv: readonly string[]; home: string; gateRuns: boolean }, out: Writable): Promise<number> {
  const { argv, home, gateRuns } = where;
  const probe = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'oracle-integrate-check', cwd: home, tool_name: 'Read', tool_input: { file_path: join(home, 'data', 'hook-claude-code.token') } });
  let text: string;
  if (hook.kind === 'http') {
    if (!gateRuns) {
      out.write('  check: no gate runs on this home yet, so Claude Code blocks every tool call until `oracle serve` runs (the hook fails closed)\n');
      out.write(SERVICE_HINT);
      return 0;
    }
    const reply = await postHttpHook(hook.url, { Authorization: `Bearer ${hook.token}` }, hook.caFile, probe);
    if (reply.status !== 200) {
      out.write(`oracle: the installed http hook did not answer (${reply.status === 0 ? reply.body : `HTTP ${String(reply.status)}`}); Claude Code will block every tool call until it does\n`);
      return 1;
    }
    text = reply.body;
  } else {
    const ran = await runCommandHook(argv, probe);
    if (ran.code !== 0) {
      out.write(`oracle: the installed hook exited ${String(ran.code)} (${ran.stderr.trim()}); Claude Code will block every tool call until it answers\n`);
      return 1;
    }
    text = ran.stdout;
  }
  let decision: unknown;
  try {
    decision = (JSON.parse(text) as { hookSpecificOutput?: { permissionDecision?: unknown } }).hookSpecificOutput?.permissionDecision;
  } catch {
    decision = undefined;
  }
  if (decision !== 'deny') {
    out.write(`oracle: the installed hook answered ${JSON.stringify(text.trim().slice(0, 200))} to a read of ORACLE's own home, not a deny; check the policy\n`);
    return 1;
  }
  out.write(`  check: ran the installed hook once; it refused a read of ORACLE's home as it must${gateRuns ? ' (answered by the running gate)' : ' (no gate running: decided here, headless)'}\n`);
  if (!gateRuns) out.write(SERVICE_HINT);
  return 0;
}

/** Without a gate nobody can be asked: what needs a person is denied. The service keeps one running. */
const SERVICE_HINT = '  no gate runs now, so what needs a person is denied; `oracle service install` keeps a gate running (Linux, systemd), or run `oracle serve`\n';
