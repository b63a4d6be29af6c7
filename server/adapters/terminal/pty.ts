import type { IPty, spawn as Spawn } from 'node-pty';
import { lazyModule } from '../lazy-module.js';

/** Loaded when the first terminal opens: a gate that never opens one never loads the native module. */
const nodePty = lazyModule<{ spawn: typeof Spawn }>('node-pty');

export interface PtySpec {
  /** Absolute path (bwrap, or the program itself where there is no sandbox). */
  readonly file: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The complete environment, built from nothing by the caller. */
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
}

export interface Pty {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Stops reading the PTY (the program blocks once its buffer is full) and reads on again. */
  pause(): void;
  resume(): void;
  /** SIGKILL to the pty's process group; the caller kills the rest of the tree. */
  kill(): void;
  onData(listener: (data: string) => void): void;
  onExit(listener: (exit: { readonly code: number; readonly signal: number | undefined }) => void): void;
}

/**
 * A program on a new pseudo-terminal (node-pty: the PTY library VS Code's terminal runs on). The
 * child is a session leader with the PTY as its controlling terminal, as in a terminal emulator.
 * Throws when the native module cannot load or the program cannot start.
 */
export function spawnPty(spec: PtySpec): Pty {
  const pty: IPty = nodePty().spawn(spec.file, [...spec.argv], { name: 'xterm-256color', cols: spec.cols, rows: spec.rows, cwd: spec.cwd, env: { ...spec.env }, encoding: 'utf8' });
  const pid = pty.pid;
  return {
    pid,
    write: (data) => {
      pty.write(data);
    },
    resize: (cols, rows) => {
      pty.resize(cols, rows);
    },
    pause: () => {
      pty.pause();
    },
    resume: () => {
      pty.resume();
    },
    kill: () => {
      try {
        // The whole process group: a shell's own children are in it unless job control moved them.
        process.kill(-pid, 'SIGKILL');
      } catch {
        // ESRCH: already gone
      }
      try {
        pty.kill('SIGKILL');
      } catch {
        // already gone
      }
    },
    onData: (listener) => {
      pty.onData(listener);
    },
    onExit: (listener) => {
      pty.onExit(({ exitCode, signal }) => {
        listener({ code: exitCode, signal });
      });
    },
  };
}
