import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { CredentialStore } from '../adapters/credentials-store.js';
import { ensureDir, ensurePrivateDir, fileExists, readOperatorFile, writePrivateFile } from '../adapters/files.js';
import { hookEntryPath } from '../adapters/hook-bundle.js';
import { hookToken, localGate } from '../adapters/local-client.js';
import { postHttpHook, runCommandHook } from '../adapters/hook-probe.js';
import { HOOK_ROUTE, withOracleHooks, withoutOracleHooks, type OracleHook } from '../core/hook/settings-merge.js';
import { HOOK_TIMEOUT_S } from '../hook/answer.js';
import type { GateState } from '../app/gate-policy.js';
import { keepOutOfGit, LOCAL_SETTINGS, reloadForScope, SHARED_SETTINGS } from './integrate-project.js';
import { scopeProject } from './project-scope.js';

/**
 * `oracle integrate claude-code [--project DIR] [--http] [--remove]`: puts ORACLE's PreToolUse, PreSkillShellCommand and
 * PostToolUse hooks into the user's Claude Code settings (or a project's personal, git-ignored
 * ones), keeping what is there, gives the hook its own agent credential (principal `claude-code`,
 * stored 0600 in ORACLE's home), then runs what it installed once and says what it answered. The
 * command hook runs ORACLE by absolute path (PATH is never trusted); `--http` makes Claude Code post
 * to the running gate instead, with no process per tool call, and blocks every call while no gate
 * runs. With `--project`, DIR is put in scope and a running gate reloads its policy.
 */
export async function runIntegrate(given: GateState, options: { project: string | undefined; remove: boolean; http: boolean }, out: Writable): Promise<number> {
  let gate = given;
  const project = options.project === undefined ? undefined : resolve(options.project);
  const settingsPath = project === undefined ? join(homedir(), '.claude', 'settings.json') : join(project, LOCAL_SETTINGS);
  // Where an older ORACLE put a project's hooks: the shared file its repository commits.
  const sharedPath = project === undefined ? undefined : join(project, SHARED_SETTINGS);
  const settings = readSettings(settingsPath, out);
  const shared = sharedPath === undefined ? undefined : readSettings(sharedPath, out);
  if (settings === undefined || (sharedPath !== undefined && shared === undefined)) return 1;
  const caFile = join(gate.home, 'certs', 'ca.crt');
  if (options.remove) {
    let removed = false;
    const files: [string, SettingsRead][] = [[settingsPath, settings]];
    if (sharedPath !== undefined && shared !== undefined) files.push([sharedPath, shared]);
    for (const [path, read] of files) {
      const kept = withoutOracleHooks(read.json, caFile);
      if (!read.exists || JSON.stringify(kept) === JSON.stringify(read.json)) continue;
      writePrivateFile(path, `${JSON.stringify(kept, null, 2)}\n`);
      out.write(`removed ORACLE's hooks from ${path}\n`);
      removed = true;
    }
    if (!removed) out.write(`ORACLE's hooks are not in ${settingsPath}${sharedPath === undefined ? '' : ` or ${sharedPath}`}; nothing to remove\n`);
    return 0;
  }
  let reloaded = true;
  if (project !== undefined) {
    if (!(await keepOutOfGit(gate, project, out))) return 1;
    const scoped = scopeProject(gate, project, out);
    if (scoped === undefined) return 1;
    gate = scoped;
    reloaded = await reloadForScope(gate, project, out);
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
    : { kind: 'command', command: commandHookLine(entry, gate.home), timeoutS: HOOK_TIMEOUT_S };
  const next = withOracleHooks(settings.json, hook);
  if ('error' in next && typeof next['error'] === 'string') {
    out.write(`oracle: ${next['error']} (nothing was changed)\n`);
    return 1;
  }
  ensureDir(join(settingsPath, '..'));
  writePrivateFile(settingsPath, `${JSON.stringify(next, null, 2)}\n`);
  out.write(`ORACLE's hooks are in ${settingsPath}\n  ${hook.kind === 'http' ? `http: ${hook.url}` : `command: ${hook.command} || exit 2`}\n`);
  if (sharedPath !== undefined && shared !== undefined) moveOutOfShared(sharedPath, shared, { caFile, token, tokenFile }, out);
  if (project !== undefined) noteUserHooks(join(homedir(), '.claude', 'settings.json'), caFile, out);
  const checked = await checkInstalled(hook, { argv, home: gate.home, gateRuns: running !== undefined }, out);
  return reloaded ? checked : Math.max(checked, 1);
}

/**
 * Claude Code runs the hooks of every settings file it reads: ORACLE's hooks left in the user's
 * own settings by an integrate without --project run as well, and an http hook there blocks
 * every call whenever the gate is down, whatever the project's hook says (newcomer probe, session
 * 37). Said, with how to take them out; never changed behind the person's back.
 */
function noteUserHooks(path: string, caFile: string, out: Writable): void {
  // Quietly: a user file that cannot be read is not this command's to report.
  const user = readSettings(path, new Writable({ write: (_chunk, _encoding, done) => { done(); } }));
  if (user === undefined || !user.exists || JSON.stringify(withoutOracleHooks(user.json, caFile)) === JSON.stringify(user.json)) return;
  out.write(`  note: ${path} also holds ORACLE's hooks (from an integrate without --project); Claude Code runs those too, and an http hook there blocks every call while no gate runs: \`oracle integrate claude-code --remove\` takes them out of that file\n`);
}

interface SettingsRead {
  readonly exists: boolean;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

/** A Claude Code settings file as JSON (empty when there is none); undefined, said why, when unreadable. */
function readSettings(path: string, out: Writable): SettingsRead | undefined {
  if (!fileExists(path)) return { exists: false, text: '', json: {} };
  const read = readOperatorFile(path);
  if (!read.ok) {
    out.write(`oracle: cannot read ${path}: ${read.reason}\n`);
    return undefined;
  }
  const text = read.bytes.toString('utf8');
  try {
    return { exists: true, text, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    out.write(`oracle: ${path} is not valid JSON; fix it first (nothing was changed)\n`);
    return undefined;
  }
}

/**
 * Takes the hooks an older ORACLE left in a project's shared settings out of it (they are in the
 * personal file now). One that carried the credential may be in the repository's history already.
 */
function moveOutOfShared(path: string, shared: SettingsRead, credential: { caFile: string; token: string; tokenFile: string }, out: Writable): void {
  const kept = withoutOracleHooks(shared.json, credential.caFile);
  if (!shared.exists || JSON.stringify(kept) === JSON.stringify(shared.json)) return;
  writePrivateFile(path, `${JSON.stringify(kept, null, 2)}\n`);
  out.write(`  moved ORACLE's hooks out of ${path}, the project's shared settings (a repository commits that file)\n`);
  if (credential.token !== '' && shared.text.includes(credential.token)) {
    out.write(`  it held the hook's credential: if it was ever committed, revoke it (\`oracle agents list\`, \`oracle agents revoke ID\`), delete ${credential.tokenFile} and run integrate again\n`);
  }
}

/** Claude Code runs a command hook through `sh -c`: each path as one single-quoted word. */
const shQuote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

/** The command hook's line as integrate writes it (before `|| exit 2`): this node, the hook's entry, the home. */
export function commandHookLine(entry: string, home: string): string {
  return `${shQuote(process.execPath)} ${shQuote(entry)} hook claude-code --home ${shQuote(home)}`;
}

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
