import { copyFileSync, chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as SysTray2 from 'systray2';
import type { ClickEvent, MenuItem } from 'systray2';
import { packageRoot } from '../package-root.js';
import { TRAY_ACTIONS, TRAY_ACTION_TITLES, type TrayAction, type TrayMode } from '../../core/tray/tray-state.js';

const load = createRequire(import.meta.url);

/** systray2's class (CommonJS, loaded on first use with require). */
type SysTrayClass = typeof SysTray2.default.default;

export interface TrayIcon {
  /** Shows the gate's mode: the icon's colour, the tooltip and the first (disabled) menu line. */
  show(mode: TrayMode, status: string): void;
  /** Resolves with why the tray helper ended (it died, or close() was called). */
  readonly ended: Promise<string>;
  close(): Promise<void>;
}

const BINARIES: Partial<Record<NodeJS.Platform, string>> = { linux: 'tray_linux_release', darwin: 'tray_darwin_release', win32: 'tray_windows_release.exe' };

/**
 * The tray icon, with systray2 (one small native helper per platform, the Go systray library:
 * AppIndicator/XEmbed on Linux, the macOS menu bar, the Windows notification area). systray2 looks
 * for its helper in `./traybin` under the working directory before its own folder, and its own
 * copy ships without the executable bit; so the helper is copied into the home (`data/tray`,
 * 0700, copied afresh at every start) and this process runs from there: a `traybin` an agent
 * planted in whatever folder `oracle tray` was started from is never run.
 */
export async function startTray(home: string, onAction: (action: TrayAction) => void): Promise<TrayIcon> {
  const binary = BINARIES[process.platform];
  if (binary === undefined) throw new Error(`systray2 has no helper for ${process.platform}`);
  const source = join(dirname(load.resolve('systray2/package.json')), 'traybin', binary);
  const own = join(home, 'data', 'tray');
  mkdirSync(join(own, 'traybin'), { recursive: true, mode: 0o700 });
  chmodSync(own, 0o700);
  const target = join(own, 'traybin', binary);
  copyFileSync(source, target);
  chmodSync(target, 0o700);
  process.chdir(own);
  const SysTray = (load('systray2') as { default: SysTrayClass }).default;
  const icons = iconSet();
  const items: MenuItem[] = [{ title: 'ORACLE', tooltip: 'the gate’s mode', enabled: false }, ...TRAY_ACTIONS.map((a) => ({ title: TRAY_ACTION_TITLES[a], tooltip: TRAY_ACTION_TITLES[a], enabled: true }))];
  const tray = new SysTray({ menu: { icon: icons.down, isTemplateIcon: false, title: '', tooltip: 'ORACLE', items }, debug: false, copyDir: false });
  let stderr = '';
  await tray.ready();
  if (tray.binPath !== join('.', 'traybin', binary)) {
    tray.process.kill('SIGKILL');
    throw new Error(`the tray helper ran from ${tray.binPath}, not ORACLE's copy; it was stopped`);
  }
  tray.process.stderr?.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString('utf8')).slice(-2000);
  });
  const ended = new Promise<string>((resolve) => {
    tray.onExit((code: number | null, signal: string | null) => {
      resolve(`the tray helper ended (${signal ?? `exit ${String(code)}`})${stderr.trim() === '' ? '' : `: ${stderr.trim().split('\n').slice(-3).join(' ')}`}`);
    });
  });
  await tray.onClick((event: ClickEvent) => {
    const action = TRAY_ACTIONS.find((a) => TRAY_ACTION_TITLES[a] === event.item.title);
    if (action !== undefined) onAction(action);
  });
  let last = '';
  return {
    show: (mode, status) => {
      if (`${mode}:${status}` === last) return;
      last = `${mode}:${status}`;
      // The same item objects systray2 numbered at start, so a later click still maps to its action.
      const first = items[0];
      if (first !== undefined) first.title = status;
      void tray.sendAction({ type: 'update-menu', menu: { icon: icons[mode], isTemplateIcon: false, title: '', tooltip: status, items } });
    },
    ended,
    close: async () => {
      await tray.kill(false);
    },
  };
}

/** The four icons (assets/tray, rendered by scripts/render-icons.ts): PNG, or PNG inside an ICO for Windows. */
function iconSet(): Readonly<Record<TrayMode, string>> {
  const read = (mode: TrayMode): string => {
    const png = readFileSync(join(packageRoot(), 'assets', 'tray', `${mode}.png`));
    return (process.platform === 'win32' ? icoOf(png) : png).toString('base64');
  };
  return { normal: read('normal'), pending: read('pending'), halted: read('halted'), down: read('down') };
}

/**
 * An ICO holding one PNG image (the Windows helper loads ICO only; an ICO entry may be a whole PNG
 * since Windows Vista): ICONDIR (reserved 0, type 1, count 1) and one ICONDIRENTRY (width and
 * height 0 meaning 256 or the PNG's own, planes 1, 32 bits, size, offset 22), then the PNG.
 */
function icoOf(png: Buffer): Buffer {
  const head = Buffer.alloc(22);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(1, 4);
  head.writeUInt8(png.readUInt32BE(16) >= 256 ? 0 : png.readUInt32BE(16), 6);
  head.writeUInt8(png.readUInt32BE(20) >= 256 ? 0 : png.readUInt32BE(20), 7);
  head.writeUInt16LE(1, 10);
  head.writeUInt16LE(32, 12);
  head.writeUInt32LE(png.length, 14);
  head.writeUInt32LE(22, 18);
  return Buffer.concat([head, png]);
}
