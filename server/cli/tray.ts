import { Writable } from 'node:stream';
import { desktopRequest, localGate } from '../adapters/local-client.js';
import { openUrl } from '../adapters/open-url.js';
import { probeDesktop } from '../adapters/tray/desktop-probe.js';
import { registerHotkey } from '../adapters/tray/hotkey-hook.js';
import { startTray, type TrayIcon } from '../adapters/tray/systray.js';
import { trayController, type TrayGate } from '../app/tray-controller.js';
import { DEFAULT_HOTKEY, hotkeyText, parseHotkey } from '../core/tray/hotkey.js';
import { runHalt } from './halt.js';

/** How often the tray asks the gate for its mode (a HALT from the tray itself shows at once). */
const POLL_MS = 1500;

/** Exit status when this desktop cannot show the icon or deliver the hotkey. */
export const TRAY_UNSUPPORTED = 3;

/**
 * `oracle tray [--hotkey COMBO]` (issue 16, seed 001): the gate's mode in the system tray (normal,
 * waiting for you, halted, no gate), a menu with HALT and the desktop screen, and a global HALT
 * hotkey. It talks to the gate like the CLI: the home's local desktop token for reading, `oracle
 * halt` for HALT (so a HALT with no gate running is kept for its next start). Where the desktop has
 * no tray host, or the hotkey cannot be registered, it says exactly why and exits 3.
 */
export async function runTray(home: string, options: { readonly hotkey: string | undefined }, io: { readonly stdout: NodeJS.WritableStream; readonly stderr: NodeJS.WritableStream }): Promise<number> {
  const hotkey = parseHotkey(options.hotkey ?? DEFAULT_HOTKEY);
  if (hotkey === undefined) {
    io.stderr.write(`oracle: --hotkey takes modifiers and one letter or digit, e.g. ${DEFAULT_HOTKEY}\n`);
    return 2;
  }
  const support = await probeDesktop(process.env, process.platform);
  if (!support.tray.ok) {
    io.stderr.write(`oracle: the tray cannot start: ${support.tray.reason}\n`);
    return TRAY_UNSUPPORTED;
  }
  if (!support.hotkey.ok) {
    io.stderr.write(`oracle: the HALT hotkey cannot be registered: ${support.hotkey.reason}\n`);
    return TRAY_UNSUPPORTED;
  }
  const log = (line: string): void => {
    io.stdout.write(`${line}\n`);
  };
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const controller = trayController({ gate: trayGate(home), show: (mode, status): void => {
      icon?.show(mode, status);
    }, open: (url) => openUrl(url), log, quit: () => {
      finish(0);
    }, hotkey: hotkeyText(hotkey) });
  let icon: TrayIcon | undefined;
  try {
    icon = await startTray(home, (action) => void controller.menu(action));
  } catch (e) {
    io.stderr.write(`oracle: the tray helper did not start: ${e instanceof Error ? e.message : 'unknown error'}\n`);
    return TRAY_UNSUPPORTED;
  }
  const hook = registerHotkey(hotkey, () => void controller.hotkey());
  if (!hook.ok) {
    await icon.close();
    io.stderr.write(`oracle: the HALT hotkey cannot be registered: ${hook.reason}\n`);
    return TRAY_UNSUPPORTED;
  }
  log(`tray: icon shown in ${support.tray.detail}; HALT hotkey ${hotkeyText(hotkey)} (${support.hotkey.detail})`);
  await controller.refresh();
  // One reading at a time: a gate slow to answer is not asked again until it has.
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    void controller.refresh().finally(() => {
      reading = false;
    });
  }, POLL_MS);
  const stop = (): void => {
    finish(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  void icon.ended.then((why) => {
    io.stderr.write(`oracle: ${why}\n`);
    finish(1);
  });
  const code = await finished;
  clearInterval(timer);
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  hook.stop();
  if (code === 0) await icon.close();
  return code;
}

/** The gate as the tray sees it: the running gate of this home, asked with its desktop token. */
export function trayGate(home: string): TrayGate {
  return {
    async read() {
      const gate = localGate(home);
      if (gate === undefined) return { mode: undefined, pending: 0, reason: 'start one with `oracle serve` or `oracle service install`' };
      try {
        const [health, approvals] = await Promise.all([desktopRequest(home, gate, { method: 'GET', path: '/api/v1/health' }), desktopRequest(home, gate, { method: 'GET', path: '/api/v1/approvals' })]);
        const mode = health.body['mode'];
        const pending = approvals.body['pending_total'];
        if (health.status !== 200 || typeof mode !== 'string') return { mode: undefined, pending: 0, reason: `the gate answered HTTP ${String(health.status)}` };
        return { mode, pending: typeof pending === 'number' ? pending : 0 };
      } catch (e) {
        return { mode: undefined, pending: 0, reason: e instanceof Error ? e.message : 'unreachable' };
      }
    },
    async halt(reason) {
      let said = '';
      const out = new Writable({
        write(chunk: Buffer, _encoding, done) {
          said += chunk.toString('utf8');
          done();
        },
      });
      const code = await runHalt({ home, policy: undefined, reason, resume: false }, out);
      if (code !== 0) throw new Error(said.trim() || `oracle halt exited ${String(code)}`);
      return said.trim();
    },
    async loginUrl() {
      const gate = localGate(home);
      if (gate === undefined) return { problem: 'no gate is running with this home' };
      const reply: { status: number; body: Record<string, unknown> } = await desktopRequest(home, gate, { method: 'POST', path: '/api/v1/desk/login-code' }).catch((e: unknown) => ({ status: 0, body: { error: e instanceof Error ? e.message : 'unreachable' } }));
      const code = reply.body['code'];
      return reply.status === 200 && typeof code === 'string' ? { url: `${gate.url}/login?code=${encodeURIComponent(code)}` } : { problem: `the gate gave no login code (HTTP ${String(reply.status)})` };
    },
  };
}
