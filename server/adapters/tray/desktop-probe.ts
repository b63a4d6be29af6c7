import { execFile } from 'node:child_process';
import { lazyModule } from '../lazy-module.js';

/** What a part of the desktop companion can use on this desktop, or exactly why not. */
export type Support = { readonly ok: true; readonly detail: string } | { readonly ok: false; readonly reason: string };

export interface DesktopSupport {
  readonly tray: Support;
  readonly hotkey: Support;
}

/** The slice of the `x11` package (pure JavaScript X11 protocol; it ships no types) used here. */
interface XClient {
  InternAtom(onlyIfExists: boolean, name: string, done: (err: Error | null | undefined, atom: number) => void): void;
  GetSelectionOwner(atom: number, done: (err: Error | null | undefined, owner: number) => void): void;
  QueryExtension(name: string, done: (err: Error | null | undefined, ext: { present: number } | undefined) => void): void;
  terminate(): void;
  on(event: 'error', listener: (e: Error) => void): void;
}
interface XDisplay {
  readonly client: XClient;
  readonly screen: readonly unknown[];
}
const x11 = lazyModule<{ createClient(options: { display: string }, done: (err: Error | null | undefined, display: XDisplay) => void): { on(event: 'error', listener: (e: Error) => void): void } }>('x11');

const PROBE_MS = 3000;

/**
 * Whether this desktop can show ORACLE's tray icon and deliver its global hotkey, probed, never
 * assumed (issue 16). macOS always has a menu bar and Windows a notification area. On Linux the
 * icon needs a tray host: a StatusNotifierItem watcher on the session bus (KDE, GNOME with the
 * AppIndicator extension, most panels) or an XEmbed system tray owning `_NET_SYSTEM_TRAY_S<n>` on
 * the X display; the hotkey needs an X display with the RECORD extension (what libuiohook uses).
 */
export async function probeDesktop(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Promise<DesktopSupport> {
  if (platform === 'darwin') return { tray: { ok: true, detail: 'the macOS menu bar' }, hotkey: { ok: true, detail: 'macOS (grant Accessibility access when asked)' } };
  if (platform === 'win32') return { tray: { ok: true, detail: 'the Windows notification area' }, hotkey: { ok: true, detail: 'Windows' } };
  if (platform !== 'linux') return { tray: { ok: false, reason: `no tray support for ${platform}` }, hotkey: { ok: false, reason: `no hotkey support for ${platform}` } };
  const display = env['DISPLAY'];
  if (display === undefined || display === '') {
    const why = `no X display: DISPLAY is not set${env['WAYLAND_DISPLAY'] === undefined ? ' (no graphical session)' : ' (a Wayland session without Xwayland)'}`;
    return { tray: { ok: false, reason: why }, hotkey: { ok: false, reason: why } };
  }
  let x: XProbe;
  try {
    x = await probeX(display, PROBE_MS);
  } catch (e) {
    const why = `cannot reach the X display ${display}: ${e instanceof Error ? e.message : 'unknown error'}`;
    return { tray: { ok: false, reason: why }, hotkey: { ok: false, reason: why } };
  }
  const sni = await statusNotifierWatcher(env);
  const tray: Support =
    sni === true
      ? { ok: true, detail: 'a StatusNotifierItem host (org.kde.StatusNotifierWatcher on the session bus)' }
      : x.trayOwner
        ? { ok: true, detail: `the XEmbed system tray on ${display}` }
        : { ok: false, reason: `no tray host: nothing owns _NET_SYSTEM_TRAY_S${String(x.screen)} on ${display} and ${typeof sni === 'string' ? `the session bus cannot be asked (${sni})` : 'no org.kde.StatusNotifierWatcher is on the session bus'} (GNOME: install the AppIndicator extension; or run a panel with a system tray)` };
  const hotkey: Support = x.record ? { ok: true, detail: `the X RECORD extension on ${display}` } : { ok: false, reason: `the X server on ${display} has no RECORD extension, which global key hooks need` };
  return { tray, hotkey };
}

interface XProbe {
  readonly screen: number;
  readonly trayOwner: boolean;
  readonly record: boolean;
}

/** One connection to the X server, closed on every path (answer, error, or `ms` without one). */
function probeX(display: string, ms: number): Promise<XProbe> {
  return new Promise((resolve, reject) => {
    let client: XClient | undefined;
    const timer = setTimeout(() => {
      client?.terminate();
      (connection as { terminate?: () => void }).terminate?.();
      reject(new Error(`the X display ${display} did not answer within ${String(ms)} ms`));
    }, ms);
    timer.unref();
    const connection = x11().createClient({ display }, (err, opened) => {
      // The library answers `undefined`, not null, when there was no error.
      if (err !== null && err !== undefined) {
        clearTimeout(timer);
        reject(err);
        return;
      }
      const X = opened.client;
      client = X;
      const screen = Number(/\.(\d+)$/u.exec(display)?.[1] ?? '0');
      const finish = (value: XProbe): void => {
        clearTimeout(timer);
        X.terminate();
        resolve(value);
      };
      X.QueryExtension('RECORD', (e1, ext) => {
        const record = (e1 === null || e1 === undefined) && ext?.present === 1;
        X.InternAtom(true, `_NET_SYSTEM_TRAY_S${String(screen)}`, (e2, atom) => {
          if ((e2 !== null && e2 !== undefined) || atom === 0) {
            finish({ screen, trayOwner: false, record });
            return;
          }
          X.GetSelectionOwner(atom, (e3, owner) => {
            finish({ screen, trayOwner: (e3 === null || e3 === undefined) && owner !== 0, record });
          });
        });
      });
    });
    connection.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/**
 * Whether a StatusNotifierWatcher is on the session bus, asked with `dbus-send` (every desktop
 * with a session bus has it; argv only); a string says why the bus cannot be asked.
 */
function statusNotifierWatcher(env: NodeJS.ProcessEnv): Promise<boolean | string> {
  if (env['DBUS_SESSION_BUS_ADDRESS'] === undefined) return Promise.resolve('DBUS_SESSION_BUS_ADDRESS is not set');
  const argv = ['--session', '--print-reply', '--reply-timeout=2000', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.kde.StatusNotifierWatcher'];
  return new Promise((resolve) => {
    execFile('dbus-send', argv, { env, timeout: PROBE_MS, maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) {
        resolve((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'dbus-send is not installed' : `dbus-send failed: ${(stderr || error.message).trim().split('\n')[0] ?? ''}`);
        return;
      }
      resolve(/boolean true/u.test(stdout));
    });
  });
}
