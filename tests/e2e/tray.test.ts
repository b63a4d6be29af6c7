import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { trayController } from '../../server/app/tray-controller.js';
import { trayGate } from '../../server/cli/tray.js';
import { ORACLE_BIN, runOracle } from '../cli/run-oracle.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { call } from '../fixtures/https-client.js';
import { until } from '../fixtures/processes.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DISPLAY = `:${String(40 + (process.pid % 50))}`;

/**
 * The X window tree of the virtual display, as xwininfo prints it; empty when a window it was
 * walking went away meanwhile ("Bad Window": the panel and the icon come and go as they start),
 * so a caller polling for a window asks again.
 */
const windows = (): string => {
  try {
    return execFileSync('xwininfo', ['-root', '-tree'], { env: { ...process.env, DISPLAY }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return '';
  }
};

/**
 * `oracle tray` (issue 16, seed 001) under a virtual X server (Xvfb): with no tray host it says
 * exactly why and exits 3; with one (trayer, an XEmbed system tray) its icon is embedded in the
 * panel, its status follows the gate, and the global hotkey, pressed through XTEST (xdotool), halts
 * the running gate. Its HALT menu action and the hotkey's handler, called directly, halt it too.
 */
describe.runIf(process.platform === 'linux')('oracle tray under Xvfb', () => {
  let tree: TempTree;
  let running: Running;
  let xvfb: ChildProcess;
  let home = '';
  let ca = '';
  const trayEnv = (): NodeJS.ProcessEnv => {
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...rest } = process.env;
    return { ...rest, DISPLAY };
  };
  const halts = () => auditRecords(home).filter((r) => r.kind === 'halt').map((r) => (r.detail as { reason?: string }).reason);

  beforeAll(async () => {
    tree = tempTree('oracle-tray-');
    home = tree.dir('home');
    xvfb = spawn('Xvfb', [DISPLAY, '-screen', '0', '1024x768x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    const socket = `/tmp/.X11-unix/X${DISPLAY.slice(1)}`;
    if (!(await until(() => existsSync(socket), 10_000))) throw new Error(`Xvfb did not start on ${DISPLAY}`);
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.delete] }\n`);
    running = await startServer({ home, policy, port: 0 });
    ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
  });

  afterAll(async () => {
    await running.close();
    xvfb.kill();
    tree.dispose();
  });

  it('says exactly why it cannot show an icon and exits 3: no tray host, no display', async () => {
    const none = await runOracle(['tray', '--home', home], '', trayEnv());
    expect(none.code).toBe(3);
    expect(none.stderr).toBe(`oracle: the tray cannot start: no tray host: nothing owns _NET_SYSTEM_TRAY_S0 on ${DISPLAY} and the session bus cannot be asked (DBUS_SESSION_BUS_ADDRESS is not set) (GNOME: install the AppIndicator extension; or run a panel with a system tray)\n`);
    // A session bus without a StatusNotifierWatcher on it is no tray host either.
    const bus = execFileSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], { encoding: 'utf8' }).trim().split('\n');
    try {
      const noWatcher = await runOracle(['tray', '--home', home], '', { ...trayEnv(), DBUS_SESSION_BUS_ADDRESS: bus[0] ?? '' });
      expect(noWatcher.code).toBe(3);
      expect(noWatcher.stderr).toContain(`no tray host: nothing owns _NET_SYSTEM_TRAY_S0 on ${DISPLAY} and no org.kde.StatusNotifierWatcher is on the session bus`);
    } finally {
      process.kill(Number(bus[1]));
    }
    const { DISPLAY: _d, WAYLAND_DISPLAY: _w, ...headless } = trayEnv();
    const noDisplay = await runOracle(['tray', '--home', home], '', headless);
    expect(noDisplay.code).toBe(3);
    expect(noDisplay.stderr).toBe('oracle: the tray cannot start: no X display: DISPLAY is not set (no graphical session)\n');
    expect(running.runtime.mode()).toBe('normal');
  });

  it('shows its icon in a tray host, follows the gate, and halts it from the global hotkey', async () => {
    const trayer = spawn('trayer', ['--edge', 'top', '--align', 'right', '--widthtype', 'pixel', '--width', '200', '--height', '24'], { env: trayEnv(), stdio: 'ignore' });
    let out = '';
    let tray: ChildProcess | undefined;
    try {
      expect(await until(() => /"panel": \("panel" "trayer"\)/u.test(windows()), 10_000), 'trayer runs').toBe(true);
      tray = spawn(process.execPath, [ORACLE_BIN, 'tray', '--home', home], { env: trayEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      tray.stdout?.on('data', (b: Buffer) => (out += b.toString('utf8')));
      tray.stderr?.on('data', (b: Buffer) => (out += b.toString('utf8')));
      expect(await until(() => out.includes('tray: ORACLE: running, nothing waiting'), 15_000), out).toBe(true);
      expect(out).toContain(`tray: icon shown in the XEmbed system tray on ${DISPLAY}; HALT hotkey Ctrl+Alt+Shift+H (the X RECORD extension on ${DISPLAY})`);
      // The icon is a window embedded in trayer's panel (XEmbed), not a window of its own on the root.
      expect(await until(() => /"panel": \("panel" "trayer"\)[\s\S]*\("systray" "systray"\)/u.test(windows()), 10_000), windows()).toBe(true);

      // A request waiting for a person shows in the tray.
      const token = (await running.credentials.issue('ag', 'claude-code')).token;
      const target = tree.file('projects/app/old.txt', 'x');
      const asked = await call(`${running.url}/api/v1/actions?wait=0`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ tool: 'fs.delete', args: { path: target } }) });
      expect(asked.body).toMatchObject({ decision: 'needs-approval' });
      expect(await until(() => out.includes('tray: ORACLE: 1 waiting for you'), 10_000), out).toBe(true);

      // The hotkey, typed on the X display, halts the gate.
      execFileSync('xdotool', ['key', 'ctrl+alt+shift+h'], { env: trayEnv() });
      expect(await until(() => running.runtime.mode() === 'halted', 10_000), out).toBe(true);
      expect(await until(() => out.includes('tray: ORACLE: HALTED'), 10_000), out).toBe(true);
      expect(halts()).toContain('HALT from the hotkey Ctrl+Alt+Shift+H');
      expect(await running.runtime.resume('desktop')).toBe(true);
      // Resumed: the cancelled card is gone, and the tray says so.
      expect(await until(() => out.trimEnd().endsWith('tray: ORACLE: running, nothing waiting'), 10_000), out).toBe(true);

      tray.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => tray?.once('exit', resolve));
      expect(code).toBe(0);
      expect(await until(() => !/\("systray" "systray"\)/u.test(windows()), 10_000), 'the icon is gone with the tray').toBe(true);
    } finally {
      tray?.kill('SIGKILL');
      trayer.kill();
    }
  });

  it('halts a running gate from its HALT menu action and from the hotkey’s handler, called directly', async () => {
    const shown: string[] = [];
    const opened: string[] = [];
    const controller = trayController({
      gate: trayGate(home),
      show: (mode, status) => shown.push(`${mode}: ${status}`),
      open: (url) => {
        opened.push(url);
        return Promise.resolve(undefined);
      },
      log: () => undefined,
      quit: () => undefined,
      hotkey: 'Ctrl+Alt+Shift+H',
    });
    expect(await controller.refresh()).not.toBe('halted');
    await controller.menu('halt');
    expect(running.runtime.mode()).toBe('halted');
    expect(shown.at(-1)).toBe('halted: ORACLE: HALTED (resume from the desktop screen or `oracle resume`)');
    expect(await until(() => halts().includes('HALT from the tray menu'), 5000), 'the menu’s HALT is audited with where it came from').toBe(true);
    expect(await running.runtime.resume('desktop')).toBe(true);
    await controller.hotkey();
    expect(running.runtime.mode()).toBe('halted');
    expect(await running.runtime.resume('desktop')).toBe(true);
    // "Open the desktop screen" opens a one-time login link that works.
    await controller.menu('open-desktop');
    expect(opened).toHaveLength(1);
    const link = opened[0] ?? '';
    expect(link.startsWith(`${running.url}/login?code=`)).toBe(true);
    expect((await call(link, { ca })).status).toBe(200);
  });
});
