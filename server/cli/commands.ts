import { parseArgs } from 'node:util';
import { loadGatePolicy } from '../app/gate-policy.js';
import { runCheck } from './check.js';
import { modeBanner, reportPolicy } from './policy-check.js';
import { runServe } from './serve.js';
import { openRuntime, type Runtime } from '../app/runtime.js';
import { runLines } from './run.js';
import { runUndo, runUndoViaGate } from './undo.js';
import { localGate } from '../adapters/local-client.js';
import { runSecrets, runSecretsViaGate } from './secrets.js';
import { runAudit } from './audit.js';
import { resolveHome } from '../app/gate-policy.js';
import { runHalt } from './halt.js';
import { runCredentials } from './credentials.js';
import { runPair } from './pair.js';
import { runIntegrate } from './integrate.js';
import { runMcp } from './mcp.js';
import { MAX_WAIT_SECONDS, parseWaitMs } from '../mcp/options.js';
import { runAcceptance } from './acceptance.js';
import { runService } from './service.js';
import { runPolicyReload } from './policy-reload.js';
import { runDesktop } from './desktop.js';
import { runTerm } from './term.js';
import { runTray } from './tray.js';
import { HaltFile } from '../adapters/halt-file.js';
import { join } from 'node:path';

export const USAGE = `usage: oracle <command> [options]

  serve [--lan] [--port N] [--home DIR] [--policy FILE] [--push-origin URL]...
                                                          run the gate over HTTPS (default 127.0.0.1:8443);
                                                          --push-origin: a self-hosted Web Push service phones may use
  check [--policy FILE] [--home DIR]                      decide only: JSON lines on stdin, decisions on stdout
  run [--policy FILE] [--home DIR]                        full lifecycle, headless: T0/T1 run, the rest is refused
  undo list | undo ID [--home DIR]                        list undoable T1 actions, or undo one (once)
  secrets list | set NAME | delete NAME [--home DIR]      named secrets (value on stdin); agents never see values
  halt --reason TEXT | resume [--home DIR]                stop everything (persists across restarts) / lift it
  agents add NAME | list | revoke ID [--home DIR]         agent credentials for the HTTPS API (token printed once)
  pair [--typed] [--home DIR]                             pair a phone with the running gate (QR in the terminal)
  hook claude-code [--home DIR] [--policy FILE]           Claude Code hook: PreToolUse/PostToolUse payload on stdin
  integrate claude-code [--project DIR] [--http] [--remove]
                                                          add (or remove) the hooks in Claude Code's settings
  devices list | revoke ID [--home DIR]                   paired devices
  policy check [FILE] [--home DIR]                        validate a policy, print its digest and every error
  policy reload [--home DIR]                              the running gate reads its policy again (also: SIGHUP);
                                                          a file with errors is refused, the running policy kept
  audit verify [--home DIR] [--json]                      check the audit chain and its signed checkpoint (exit 1: broken)
  mcp [--home DIR] [--policy FILE] [--agent NAME] [--wait SECONDS]
                                                          MCP server on stdio (own home: not beside a running serve)
  service install [--port N] [--lan] | uninstall | status [--home DIR]
                                                          run the gate as your systemd user service (Linux)
  term open NAME [--cwd DIR] [-- PROGRAM ARGS…] | list | show NAME | attach NAME | close NAME [--home DIR]
                                                          the gate's terminals: sandboxed, you type freely (attach),
                                                          agents write one approved line at a time (term.write)
  tray [--hotkey COMBO] [--home DIR]                      the gate's mode in the system tray, HALT in its menu and on a
                                                          global hotkey (default ctrl+alt+shift+h); exit 3: not on this desktop
  desktop [--home DIR]                                    a fresh one-time link to the running gate's desktop screen
  acceptance [--json] [--home DIR]                        host battery (SPEC §13) in a fresh home (DIR: empty; exit 1 on any FAIL)
`;

const OPTIONS = {
  home: { type: 'string' },
  policy: { type: 'string' },
  port: { type: 'string' },
  lan: { type: 'boolean' },
  reason: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  typed: { type: 'boolean' },
  project: { type: 'string' },
  remove: { type: 'boolean' },
  http: { type: 'boolean' },
  agent: { type: 'string' },
  wait: { type: 'string' },
  'push-origin': { type: 'string', multiple: true },
  cwd: { type: 'string' },
  hotkey: { type: 'string' },
} as const;

export async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  // What follows `--` is a program and its arguments (`oracle term open NAME -- PROGRAM ARGS…`), never options of ours.
  const dashes = argv.indexOf('--');
  const program = dashes < 0 ? [] : argv.slice(dashes + 1);
  try {
    parsed = parseArgs({ args: dashes < 0 ? [...argv] : argv.slice(0, dashes), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    process.stderr.write(`oracle: ${e instanceof Error ? e.message : 'bad arguments'}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub, ...rest] = positionals;
  if (values.help === true || command === undefined || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  switch (command) {
    case 'check': {
      const gate = loadGatePolicy({ home: values.home, policy: values.policy });
      const banner = modeBanner(gate);
      if (banner !== undefined) process.stderr.write(`oracle: ${banner}\n`);
      // HALT is a file of the home (SPEC §8): a halted home answers deny here too, as the gate would.
      const halted = new HaltFile(join(gate.home, 'data')).read();
      if (halted !== undefined) process.stderr.write(`oracle: HALTED since ${halted.at} (${halted.reason}); every decision is deny until \`oracle resume\`\n`);
      return runCheck(halted === undefined ? gate.context : { ...gate.context, mode: 'halted' }, process.stdin, process.stdout);
    }
    case 'policy': {
      if (sub === 'reload' && rest.length === 0) return runPolicyReload(resolveHome(values.home, process.env), process.stdout, process.stderr);
      if (sub !== 'check' || rest.length > 1) break;
      const gate = loadGatePolicy({ home: values.home, policy: rest[0] ?? values.policy });
      return reportPolicy(gate, process.stdout);
    }
    case 'run': {
      const runtime = await openRuntime({ home: values.home, policy: values.policy, actor: 'cli' });
      reportRuntime(runtime);
      try {
        return await runLines(runtime, process.stdin, process.stdout);
      } finally {
        await runtime.close();
      }
    }
    case 'undo': {
      if (sub === undefined || rest.length > 0) break;
      const home = resolveHome(values.home, process.env);
      const gate = localGate(home);
      if (gate !== undefined) return runUndoViaGate(home, gate, sub, process.stdout);
      const runtime = await openRuntime({ home: values.home, policy: values.policy, actor: 'cli' });
      try {
        return await runUndo(runtime, sub, process.stdout);
      } finally {
        await runtime.close();
      }
    }
    case 'secrets': {
      // One gate per home: with one running, it holds the store and the audit log.
      const home = resolveHome(values.home, process.env);
      const gate = localGate(home);
      if (gate !== undefined) return runSecretsViaGate(home, gate, positionals.slice(1), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
      const runtime = await openRuntime({ home: values.home, policy: values.policy, actor: 'cli' });
      try {
        return await runSecrets(runtime.gate.home, runtime.audit, positionals.slice(1), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
      } finally {
        await runtime.close();
      }
    }
    case 'integrate': {
      if (sub !== 'claude-code' || rest.length > 0) break;
      const gate = loadGatePolicy({ home: values.home, policy: values.policy });
      return runIntegrate(gate, { project: values.project, remove: values.remove === true, http: values.http === true }, process.stdout);
    }
    case 'pair':
      if (sub !== undefined) break;
      return runPair(resolveHome(values.home, process.env), { stdin: process.stdin, stdout: process.stdout, typed: values.typed === true });
    case 'agents':
    case 'devices': {
      const gate = loadGatePolicy({ home: values.home, policy: values.policy });
      return runCredentials(gate, command, positionals.slice(1), process.stdout);
    }
    case 'halt':
    case 'resume':
      if (sub !== undefined) break;
      return runHalt({ home: values.home, policy: values.policy, reason: values.reason, resume: command === 'resume' }, process.stdout);
    case 'audit': {
      const code = await runAudit(positionals.slice(1), { home: resolveHome(values.home, process.env), json: values.json === true }, process.stdout);
      if (code === undefined) break;
      return code;
    }
    case 'mcp': {
      if (sub !== undefined) break;
      const waitMs = parseWaitMs(values.wait);
      if (waitMs === undefined) {
        process.stderr.write(`oracle: --wait takes seconds from 0 to ${String(MAX_WAIT_SECONDS)}\n${USAGE}`);
        return 2;
      }
      return runMcp({ home: values.home, policy: values.policy, agent: values.agent ?? 'mcp', waitMs });
    }
    case 'acceptance':
      if (sub !== undefined) break;
      return runAcceptance({ json: values.json === true, home: values.home }, { stdout: process.stdout, stderr: process.stderr });
    case 'service': {
      if (rest.length > 0) break;
      const port = values.port === undefined ? undefined : Number(values.port);
      if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65_535)) {
        process.stderr.write(`oracle: --port takes a port number from 1 to 65535\n${USAGE}`);
        return 2;
      }
      return runService(sub, { home: resolveHome(values.home, process.env), port, lan: values.lan === true, env: process.env }, process.stdout);
    }
    case 'term':
      return runTerm(resolveHome(values.home, process.env), positionals.slice(1), { cwd: values.cwd, program, json: values.json === true }, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
    case 'tray':
      if (sub !== undefined) break;
      return runTray(resolveHome(values.home, process.env), { hotkey: values.hotkey }, { stdout: process.stdout, stderr: process.stderr });
    case 'desktop':
      if (sub !== undefined) break;
      return runDesktop(resolveHome(values.home, process.env), process.stdout);
    case 'serve':
      return runServe({ home: values.home, policy: values.policy, port: values.port, lan: values.lan === true, pushOrigins: values['push-origin'] ?? [] });
    default:
      break;
  }
  process.stderr.write(`oracle: unknown command \`${positionals.join(' ')}\`\n${USAGE}`);
  return 2;
}

/** Loud lines on stderr: the mode, and the isolation this host really gives children. */
function reportRuntime(runtime: Runtime): void {
  if (runtime.mode() === 'halted') process.stderr.write('oracle: ORACLE IS HALTED: every action is denied until `oracle resume`\n');
  const banner = modeBanner(runtime.gate);
  if (banner !== undefined) process.stderr.write(`oracle: ${banner}\n`);
  const sandbox = runtime.toolhost.sandbox;
  process.stderr.write(
    sandbox.kind === 'bubblewrap'
      ? `oracle: children run under bubblewrap (${sandbox.detail})\n`
      : `oracle: WARNING: children run WITHOUT isolation: ${sandbox.reason}\n`,
  );
}
