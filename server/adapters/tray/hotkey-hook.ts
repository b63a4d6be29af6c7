import type { UiohookKeyboardEvent, uIOhook as UIOhookType, UiohookKey as UiohookKeyType } from 'uiohook-napi';
import { lazyModule } from '../lazy-module.js';
import { matchesHotkey, type Hotkey } from '../../core/tray/hotkey.js';

const uiohook = lazyModule<{ uIOhook: typeof UIOhookType; UiohookKey: typeof UiohookKeyType }>('uiohook-napi');

/**
 * The global HALT hotkey through libuiohook (uiohook-napi: X RECORD on Linux, a CGEventTap on
 * macOS, a low-level keyboard hook on Windows). The hook sees every key-down on the desktop; each
 * is compared with the one combination and forgotten: nothing is kept, logged or sent. Call only
 * after probeDesktop said the hotkey can work: libuiohook aborts the process without an X display.
 */
export function registerHotkey(hotkey: Hotkey, pressed: () => void): { readonly ok: true; stop(): void } | { readonly ok: false; readonly reason: string } {
  let hook: typeof UIOhookType;
  let names: Map<number, string>;
  try {
    const loaded = uiohook();
    hook = loaded.uIOhook;
    names = new Map(Object.entries(loaded.UiohookKey).filter(([name]) => /^[A-Z0-9]$/u.test(name)).map(([name, code]) => [code, name]));
  } catch (e) {
    return { ok: false, reason: `the key hook library did not load: ${e instanceof Error ? e.message : 'unknown error'}` };
  }
  const listener = (e: UiohookKeyboardEvent): void => {
    if (matchesHotkey(hotkey, { key: names.get(e.keycode), ctrlKey: e.ctrlKey, altKey: e.altKey, shiftKey: e.shiftKey, metaKey: e.metaKey })) pressed();
  };
  hook.on('keydown', listener);
  try {
    hook.start();
  } catch (e) {
    hook.off('keydown', listener);
    return { ok: false, reason: `the key hook did not start: ${e instanceof Error ? e.message : 'unknown error'}` };
  }
  return {
    ok: true,
    stop: () => {
      hook.off('keydown', listener);
      hook.stop();
    },
  };
}
