import type { spawn as Spawn } from 'node:child_process';
import { lazyModule } from '../lazy-module.js';
import { killTree, killTrees } from '../process-table.js';
import { abortedBy } from '../../core/halt.js';

/** Loaded when the first process starts: the hook's runtime, which spawns nothing, never loads it. */
const childProcesses = lazyModule<{ spawn: typeof Spawn }>('node:child_process');

/**
 * The one way ORACLE starts a process for an agent (SPEC §6): argv only, never a shell, a new
 * process group so the whole tree can be killed, a bounded run time and bounded output. Every
 * live group is tracked so HALT can kill them all.
 */
export interface SpawnSpec {
  /** Absolute path, pinned at start. */
  readonly file: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The complete environment: built from nothing by the caller, never inherited. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /**
   * Aborted when the caller withdrew the action (`killed: 'cancelled'`) or a HALT landed while it
   * was in flight (reason HALT_ABORT, `killed: 'halt'`): the whole group is killed, and nothing is
   * started once it is aborted.
   */
  readonly signal?: AbortSignal;
  /**
   * A fourth pipe, fd 3, on which the program reports its own status (bubblewrap's
   * `--json-status-fd 3`, which keeps it from what it runs): its text comes back as `status`, the
   * last STATUS_BYTES of it (bubblewrap writes the exit status last).
   */
  readonly statusFd?: boolean;
}

const STATUS_BYTES = 4096;

export interface SpawnResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  /** Why ORACLE killed it, if it did. */
  readonly killed: 'timeout' | 'halt' | 'cancelled' | null;
  readonly durationMs: number;
  readonly spawnError: string | null;
  /** What the program wrote on fd 3, when asked for (`statusFd`). */
  readonly status?: string;
}

class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    const room = this.max - this.size;
    if (room <= 0) {
      this.truncated = true;
      return; // keep draining so the child never blocks on a full pipe
    }
    const take = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (take.length < chunk.length) this.truncated = true;
    this.chunks.push(take);
    this.size += take.length;
  }
  text(): string {
    return new TextDecoder('utf-8').decode(Buffer.concat(this.chunks));
  }
}

export class ProcessSupervisor {
  /** Each live job's leader: how to mark why it is being killed, and whether it still runs unreaped. */
  private readonly groups = new Map<number, { readonly mark: (reason: 'halt') => void; readonly running: () => boolean }>();

  get live(): number {
    return this.groups.size;
  }

  /** Kills every running process group (HALT, SPEC §8): how many, and where git ran among them (process-table.ts). */
  killAll(): { readonly count: number; readonly gitDirs: readonly string[] } {
    const jobs = [...this.groups.entries()];
    for (const [, job] of jobs) job.mark('halt');
    // One read of the process table for every tree (HALT with 50 jobs: one /proc walk, not 50).
    const gitDirs = killTrees(jobs.filter(([, job]) => job.running()).map(([pid]) => pid));
    return { count: jobs.length, gitDirs };
  }

  run(spec: SpawnSpec): Promise<SpawnResult> {
    const started = Date.now();
    if (spec.signal?.aborted === true) {
      const none = { exitCode: null, signal: null, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false, durationMs: 0, spawnError: null };
      return Promise.resolve({ ...none, killed: abortedBy(spec.signal) });
    }
    return new Promise((resolve) => {
      const out = new Capped(spec.maxOutputBytes);
      const err = new Capped(spec.maxOutputBytes);
      let killed: 'timeout' | 'halt' | 'cancelled' | null = null;
      // Once reaped, its pid may name another process: only its group is signalled from then on.
      let exited = false;
      const child = childProcesses().spawn(spec.file, [...spec.argv], {
        cwd: spec.cwd,
        env: { ...spec.env },
        stdio: spec.statusFd === true ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group (and session): kill(-pid) reaches grandchildren
        shell: false,
        windowsHide: true,
      });
      const pid = child.pid;
      const killGroup = (reason: 'timeout' | 'halt' | 'cancelled' | null): void => {
        if (reason !== null && killed === null) killed = reason;
        if (pid === undefined) return;
        // ORACLE stops it (timeout, HALT, withdrawn): the whole tree, also what left the group.
        if (reason !== null && !exited) {
          killTree(pid);
          return;
        }
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // ESRCH: the group is already gone
        }
      };
      if (pid !== undefined) {
        this.groups.set(pid, {
          mark: (reason) => {
            if (killed === null) killed = reason;
          },
          running: () => !exited,
        });
      }
      const timer = setTimeout(() => {
        killGroup('timeout');
      }, spec.timeoutMs);
      const cancel = (): void => {
        // Already being killed (HALT's killAll marked it and killed its tree in one batch): done.
        if (killed !== null) return;
        killGroup(abortedBy(spec.signal));
      };
      if (spec.signal?.aborted === true) cancel();
      else spec.signal?.addEventListener('abort', cancel, { once: true });
      child.stdout?.on('data', (c: Buffer) => {
        out.push(c);
      });
      child.stderr?.on('data', (c: Buffer) => {
        err.push(c);
      });
      let status: Buffer | undefined = spec.statusFd === true ? Buffer.alloc(0) : undefined;
      child.stdio[3]?.on('data', (c: Buffer) => {
        if (status !== undefined) status = Buffer.concat([status, c]).subarray(-STATUS_BYTES);
      });
      let spawnError: string | null = null;
      child.on('error', (e) => {
        spawnError = e.message;
      });
      child.on('exit', () => {
        exited = true;
        // A job's processes never outlive it: what the leader left running in its group dies now,
        // which also closes pipes a background grandchild was holding open.
        killGroup(null);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', cancel);
        if (pid !== undefined) this.groups.delete(pid);
        resolve({
          exitCode: code,
          signal,
          stdout: out.text(),
          stderr: err.text(),
          stdoutTruncated: out.truncated,
          stderrTruncated: err.truncated,
          killed,
          durationMs: Date.now() - started,
          spawnError,
          ...(status === undefined ? {} : { status: status.toString('utf8') }),
        });
      });
    });
  }
}
