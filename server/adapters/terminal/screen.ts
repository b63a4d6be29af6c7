import type { SerializeAddon as SerializeAddonType } from '@xterm/addon-serialize';
import type { Terminal as TerminalType } from '@xterm/headless';
import { lazyModule } from '../lazy-module.js';

const xterm = lazyModule<{ Terminal: typeof TerminalType }>('@xterm/headless');
const serialize = lazyModule<{ SerializeAddon: typeof SerializeAddonType }>('@xterm/addon-serialize');

/** Lines kept above the visible screen. */
export const SCROLLBACK_LINES = 1000;

/**
 * What a terminal shows, kept by a headless xterm.js (the emulator VS Code's terminal uses): the
 * bytes a program wrote, interpreted as a terminal would (cursor moves, line editing, colours), so
 * "the terminal's output" is the text a person would see on it, never raw escape sequences.
 */
export class Screen {
  private readonly term: TerminalType;
  private readonly addon: SerializeAddonType;
  private pending: Promise<void> = Promise.resolve();
  /** Bytes written and not yet parsed (xterm.js throws past 50 MB: the caller pauses well before). */
  private queued = 0;

  constructor(cols: number, rows: number) {
    const { Terminal } = xterm();
    this.term = new Terminal({ cols, rows, scrollback: SCROLLBACK_LINES, allowProposedApi: true });
    this.addon = new (serialize().SerializeAddon)();
    this.term.loadAddon(this.addon);
  }

  /** Queues output for the screen; `drained` is called once what is queued is parsed. */
  write(data: string, drained?: () => void): void {
    this.queued += data.length;
    this.pending = new Promise((done) => {
      try {
        this.term.write(data, () => {
          this.queued -= data.length;
          if (this.queued === 0) drained?.();
          done();
        });
      } catch {
        // Refused (disposed, or over xterm's own limit): that output is not on the screen.
        this.queued -= data.length;
        done();
      }
    });
  }

  /** Bytes written and not yet on the screen. */
  get backlog(): number {
    return this.queued;
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
  }

  /** Resolves once everything written so far is on the screen. */
  settled(): Promise<void> {
    return this.pending;
  }

  /** The last `count` lines as plain text, trailing blank lines dropped. */
  lines(count: number): string[] {
    const buffer = this.term.buffer.active;
    const all: string[] = [];
    for (let i = 0; i < buffer.length; i++) all.push(buffer.getLine(i)?.translateToString(true) ?? '');
    while (all.length > 0 && all[all.length - 1] === '') all.pop();
    return all.slice(Math.max(0, all.length - count));
  }

  /** Escape sequences that redraw this screen on another terminal (what `oracle term attach` shows first). */
  redraw(): string {
    return this.addon.serialize();
  }

  dispose(): void {
    this.term.dispose();
  }
}
