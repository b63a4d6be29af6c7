/**
 * The global HALT hotkey (issue 16, seed 001): a combination of modifiers and one key. Pure: the
 * hook adapter (uiohook-napi) hands every key-down here and keeps none of them.
 */
export interface Hotkey {
  readonly ctrl: boolean;
  readonly alt: boolean;
  readonly shift: boolean;
  readonly meta: boolean;
  /** The key, as an upper-case letter or digit (`H`). */
  readonly key: string;
}

export interface KeyDown {
  readonly key: string | undefined;
  readonly ctrlKey: boolean;
  readonly altKey: boolean;
  readonly shiftKey: boolean;
  readonly metaKey: boolean;
}

/** Ctrl+Alt+Shift+H: three modifiers, so nobody types it by accident, and free in the usual desktops. */
export const DEFAULT_HOTKEY = 'ctrl+alt+shift+h';

/** `ctrl+alt+shift+h` → a Hotkey; undefined for anything else (no modifier, two keys, an unknown name). */
export function parseHotkey(text: string): Hotkey | undefined {
  const parts = text.toLowerCase().split('+').map((p) => p.trim());
  const key = parts.pop() ?? '';
  if (!/^[a-z0-9]$/u.test(key)) return undefined;
  const mods = new Set(parts);
  if (mods.size !== parts.length || mods.size === 0 || [...mods].some((m) => !['ctrl', 'alt', 'shift', 'meta'].includes(m))) return undefined;
  return { ctrl: mods.has('ctrl'), alt: mods.has('alt'), shift: mods.has('shift'), meta: mods.has('meta'), key: key.toUpperCase() };
}

export function matchesHotkey(hotkey: Hotkey, down: KeyDown): boolean {
  return down.key === hotkey.key && down.ctrlKey === hotkey.ctrl && down.altKey === hotkey.alt && down.shiftKey === hotkey.shift && down.metaKey === hotkey.meta;
}

export function hotkeyText(hotkey: Hotkey): string {
  return [hotkey.ctrl ? 'Ctrl' : '', hotkey.alt ? 'Alt' : '', hotkey.shift ? 'Shift' : '', hotkey.meta ? 'Meta' : '', hotkey.key].filter((p) => p !== '').join('+');
}
