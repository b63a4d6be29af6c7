import { trayMode, trayStatus, type GateReading, type TrayAction, type TrayMode } from '../core/tray/tray-state.js';

/** How the tray reaches the gate: as the CLI does (server/cli/tray.ts wires it). */
export interface TrayGate {
  /** The gate's mode and how many approvals wait; `mode` undefined when no gate answers. */
  read(): Promise<GateReading>;
  /** HALT, as `oracle halt` does: reaches a running gate at once, and holds across restarts. */
  halt(reason: string): Promise<string>;
  /** A fresh one-time login link to the desktop screen, or why there is none. */
  loginUrl(): Promise<{ readonly url: string } | { readonly problem: string }>;
}

export interface TrayDeps {
  readonly gate: TrayGate;
  readonly show: (mode: TrayMode, status: string) => void;
  readonly open: (url: string) => Promise<string | undefined>;
  readonly log: (line: string) => void;
  readonly quit: () => void;
  /** How the hotkey is written, for the HALT reason (`Ctrl+Alt+Shift+H`). */
  readonly hotkey: string;
}

/**
 * The tray companion's behaviour (issue 16): its menu actions and the hotkey's handler, and the
 * mode shown. Every HALT says where it came from; a HALT that could not be sent says so loudly.
 */
export function trayController(deps: TrayDeps): { menu(action: TrayAction): Promise<void>; hotkey(): Promise<void>; refresh(): Promise<TrayMode> } {
  let shown: string | undefined;
  const refresh = async (): Promise<TrayMode> => {
    const reading = await deps.gate.read();
    const mode = trayMode(reading);
    const status = trayStatus(reading);
    deps.show(mode, status);
    if (status !== shown) deps.log(`tray: ${status}`);
    shown = status;
    return mode;
  };
  const halt = async (from: string): Promise<void> => {
    try {
      deps.log(`tray: ${await deps.gate.halt(`HALT from ${from}`)}`);
    } catch (e) {
      deps.log(`tray: HALT FAILED: ${e instanceof Error ? e.message : 'unknown error'}; run \`oracle halt --reason …\``);
    }
    await refresh();
  };
  return {
    refresh,
    hotkey: () => halt(`the hotkey ${deps.hotkey}`),
    menu: async (action) => {
      switch (action) {
        case 'halt':
          await halt('the tray menu');
          return;
        case 'open-desktop': {
          const link = await deps.gate.loginUrl();
          if ('problem' in link) {
            deps.log(`tray: no desktop screen to open: ${link.problem}`);
            return;
          }
          const failed = await deps.open(link.url);
          deps.log(failed === undefined ? 'tray: opened the desktop screen' : `tray: ${failed}; open ${link.url} yourself`);
          return;
        }
        case 'quit':
          deps.quit();
          return;
      }
    },
  };
}
