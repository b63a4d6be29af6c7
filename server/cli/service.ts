import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { ensureDir, fileExists, readOperatorFile, removeFile, writePrivateFile } from '../adapters/files.js';
import { localGate, localRequest, type LocalGate } from '../adapters/local-client.js';
import { ORACLE_BIN_PATH } from '../adapters/package-root.js';
import { userSystemctl, type Systemctl } from '../adapters/systemctl.js';
import { activeState, enabledState } from '../core/service/systemctl-answer.js';
import { systemdUnit, UNIT_NAME } from '../core/service/systemd-unit.js';

/**
 * `oracle service install | uninstall | status` (issue 13): the gate as the user's systemd service,
 * so the hooks and `oracle mcp` always have a gate to ask and a phone to reach. Linux with a systemd
 * user manager only; elsewhere it says so and changes nothing.
 */
export interface ServiceOptions {
  readonly home: string;
  readonly port: number | undefined;
  readonly lan: boolean;
  readonly env: NodeJS.ProcessEnv;
}

/** How long install waits for the started gate to answer. */
const START_MS = 15_000;

export function unitPath(env: NodeJS.ProcessEnv): string {
  const config = env['XDG_CONFIG_HOME'] !== undefined && env['XDG_CONFIG_HOME'] !== '' ? env['XDG_CONFIG_HOME'] : join(env['HOME'] ?? homedir(), '.config');
  return join(config, 'systemd', 'user', UNIT_NAME);
}

export async function runService(sub: string | undefined, options: ServiceOptions, out: Writable): Promise<number> {
  const say = (line: string): void => {
    out.write(`${line}\n`);
  };
  if (process.platform !== 'linux') {
    say(`oracle service: runs the gate as a systemd user service, on Linux only; on ${process.platform} start \`oracle serve --home ${options.home}\` from a login item`);
    return 2;
  }
  const systemctl = userSystemctl;
  const path = unitPath(options.env);
  switch (sub ?? '') {
    case 'install':
      return install(options, { systemctl, path, say });
    case 'uninstall':
      return uninstall({ systemctl, path, say });
    case 'status': {
      const installed = fileExists(path);
      const active = activeState(await systemctl(['is-active', UNIT_NAME]));
      const enabled = enabledState(await systemctl(['is-enabled', UNIT_NAME]));
      const gate = localGate(options.home);
      say(`unit: ${installed ? path : 'not installed (`oracle service install`)'}`);
      // is-enabled reads unit files from disk and answers without a manager; is-active needs one.
      // A manager that could not be asked is said as such, never as "inactive" or "disabled".
      if (active.known) say(`service: ${active.state}, ${enabled.known ? enabled.state : `enablement unknown (${enabled.reason})`}`);
      else say(`service: unknown: could not ask the systemd user manager (${active.reason})${enabled.known ? `; its unit file is ${enabled.state}` : ''}`);
      // A process holding the home is not a gate that answers (a stopped or hung one): asked, not assumed.
      const health = gate === undefined ? undefined : await answering(options.home, gate);
      say(health?.line ?? `gate: none running with home ${options.home}`);
      // LSB status codes, as systemctl's own: 1 a process holds the home but does not answer (even if
      // systemd calls the unit active: a stopped process is active to it), 3 not running, 4 unknown.
      if (health !== undefined && !health.ok) return 1;
      if (!active.known) return 4;
      return active.state === 'active' ? 0 : 3;
    }
    default:
      say('usage: oracle service install [--port N] [--lan] | uninstall | status [--home DIR]');
      return 2;
  }
}

/**
 * Stops and disables the service, then removes the unit file whatever systemctl said (the file is
 * ours; a unit left behind would start the gate again at the next login). A systemctl that failed
 * is reported with its words and exit 1: the service may still be running.
 */
async function uninstall(ctx: { systemctl: Systemctl; path: string; say: (line: string) => void }): Promise<number> {
  const { systemctl, path, say } = ctx;
  const had = fileExists(path);
  const disabled = await systemctl(['disable', '--now', UNIT_NAME]);
  removeFile(path);
  const reload = await systemctl(['daemon-reload']);
  if (!had) {
    say(`no ORACLE unit at ${path}`);
    return 0;
  }
  const words = (answer: { code: number; out: string }): string => (answer.out === '' ? `exit ${String(answer.code)}` : answer.out.split('\n').join('; '));
  if (disabled.code !== 0) {
    say(`removed ${path}, but systemctl could not stop and disable the service (${words(disabled)}); a gate it started may still run: check with \`systemctl --user status ${UNIT_NAME}\` where a user manager answers`);
    return 1;
  }
  if (reload.code !== 0) {
    say(`removed ${path}; the gate service is stopped and disabled, but systemctl could not reload the user manager (${words(reload)})`);
    return 1;
  }
  say(`removed ${path}; the gate service is stopped and disabled`);
  return 0;
}

async function install(options: ServiceOptions, ctx: { systemctl: Systemctl; path: string; say: (line: string) => void }): Promise<number> {
  const { systemctl, path, say } = ctx;
  let unit: string;
  try {
    unit = systemdUnit({ node: process.execPath, entry: ORACLE_BIN_PATH, home: options.home, path: options.env['PATH'] ?? '/usr/bin:/bin', lan: options.lan, ...(options.port === undefined ? {} : { port: options.port }) });
  } catch (e) {
    say(`oracle service: ${e instanceof Error ? e.message : 'the unit cannot be written'}`);
    return 2;
  }
  const old = readOperatorFile(path);
  const changed = !old.ok || old.bytes.toString('utf8') !== unit;
  ensureDir(join(path, '..'));
  if (changed) writePrivateFile(path, unit);
  say(`${changed ? (old.ok ? 'updated' : 'wrote') : 'kept'} ${path}`);
  const reload = await systemctl(['daemon-reload']);
  if (reload.code !== 0) {
    say(`no systemd user manager answered (${reload.out}); the unit is written: run \`systemctl --user enable --now ${UNIT_NAME}\` in a session that has one`);
    return 1;
  }
  // A gate already running on this home (started by hand) holds its lock: enabling is enough,
  // and starting now would only fail against that lock.
  const mainPid = Number((await systemctl(['show', '--property=MainPID', '--value', UNIT_NAME])).out);
  const gate0 = localGate(options.home);
  const running = gate0 !== undefined && gate0.pid !== mainPid ? gate0 : undefined;
  const enabled = await systemctl(running === undefined ? ['enable', '--now', UNIT_NAME] : ['enable', UNIT_NAME]);
  if (enabled.code !== 0) {
    say(`systemctl could not enable the service: ${enabled.out}`);
    return 1;
  }
  if (running !== undefined) {
    say(`enabled; a gate already runs on this home (pid ${String(running.pid)}): stop it, then \`systemctl --user start ${UNIT_NAME}\``);
    return 0;
  }
  if (changed) await systemctl(['restart', UNIT_NAME]);
  const gate = await waitForGate(options.home, START_MS);
  if (gate === undefined) {
    const status = await systemctl(['status', '--no-pager', '--lines=5', UNIT_NAME]);
    say(`the service did not bring a gate up on ${options.home}:\n${status.out}\n(see \`journalctl --user -u ${UNIT_NAME}\`)`);
    return 1;
  }
  say(`ORACLE runs as your systemd user service at ${gate.url} (pid ${String(gate.pid)}), restarted if it fails and started at login`);
  say('to start it at boot without logging in: `loginctl enable-linger`; the desktop screen: `oracle desktop`');
  return 0;
}

async function waitForGate(home: string, ms: number): Promise<ReturnType<typeof localGate>> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const gate = localGate(home);
    if (gate !== undefined) return gate;
  }
  return localGate(home);
}

/** How long `status` waits for the gate's health answer. */
const HEALTH_WAIT_MS = 3000;

async function answering(home: string, gate: LocalGate): Promise<{ readonly line: string; readonly ok: boolean }> {
  const health: { status: number; body: Record<string, unknown> } = await localRequest(home, gate, { method: 'GET', path: '/api/v1/health', authorization: `Desktop ${gate.token}`, timeoutMs: HEALTH_WAIT_MS }).catch((e: unknown) => ({ status: 0, body: { error: e instanceof Error ? e.message : 'no answer' } }));
  const text = (v: unknown, otherwise: string): string => (typeof v === 'string' ? v : otherwise);
  if (health.status === 200) return { ok: true, line: `gate: running at ${gate.url} (pid ${String(gate.pid)}), answering, mode ${text(health.body['mode'], 'unknown')}` };
  return { ok: false, line: `gate: process ${String(gate.pid)} holds the home but ${gate.url} did not answer its health check within ${String(HEALTH_WAIT_MS / 1000)} s (${text(health.body['error'], `status ${String(health.status)}`)}): stopped or hung` };
}
