/**
 * What the tray shows (issue 16, seed 001): the gate's mode as one of three states, in words and
 * as the icon, and the menu. Pure: the tray adapter draws it, the controller feeds it.
 */
export type TrayMode = 'normal' | 'pending' | 'halted' | 'down';

export interface GateReading {
  /** Undefined when the gate did not answer. */
  readonly mode: string | undefined;
  readonly pending: number;
  readonly reason?: string;
}

export function trayMode(reading: GateReading): TrayMode {
  if (reading.mode === undefined) return 'down';
  if (reading.mode === 'halted') return 'halted';
  return reading.pending > 0 ? 'pending' : 'normal';
}

/** The status line: the first, disabled menu item and the tooltip. */
export function trayStatus(reading: GateReading): string {
  switch (trayMode(reading)) {
    case 'down':
      return `ORACLE: no gate is running${reading.reason === undefined ? '' : ` (${reading.reason})`}`;
    case 'halted':
      return 'ORACLE: HALTED (resume from the desktop screen or `oracle resume`)';
    case 'pending':
      return `ORACLE: ${String(reading.pending)} waiting for you`;
    case 'normal':
      return reading.mode === 'normal' ? 'ORACLE: running, nothing waiting' : `ORACLE: ${reading.mode ?? ''}, nothing waiting`;
  }
}

/** The menu's actions, in order; the status line sits above them. */
export const TRAY_ACTIONS = ['halt', 'open-desktop', 'quit'] as const;
export type TrayAction = (typeof TRAY_ACTIONS)[number];

export const TRAY_ACTION_TITLES: Readonly<Record<TrayAction, string>> = {
  halt: 'HALT everything',
  'open-desktop': 'Open the desktop screen',
  quit: 'Quit the tray (the gate keeps running)',
};
