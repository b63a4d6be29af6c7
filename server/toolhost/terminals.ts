import type { JobRoot, Job } from '../adapters/agent/jobs.js';
import { dropTo, type SandboxSupport } from '../adapters/agent/sandbox-probe.js';
import { killTree, killTrees } from '../adapters/process-table.js';
import { spawnPty, type Pty } from '../adapters/terminal/pty.js';
import { Screen } from '../adapters/terminal/screen.js';
import type { ScopedPath } from '../core/paths/scope.js';
import type { CompiledPolicy } from '../core/policy/compile.js';
import type { TerminalView } from '../../shared/terminal-view.js';
import type { OracleCode } from '../../shared/outcome-codes.js';
import { childEnvironment } from './child-env.js';
import { SYSTEM_PATHS, sandboxArgv } from './sandbox-plan.js';
import type { SandboxView } from './sandbox-masks.js';

export type TermResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: OracleCode; readonly reason: string };

export interface TerminalSpec {
  readonly name: string;
  /** Absolute, resolved by whoever opens it (the person's CLI). */
  readonly program: string;
  readonly args: readonly string[];
  /** The folder it starts in, canonicalised against the policy: the only part of the user's files it sees. */
  readonly cwd: ScopedPath;
  /** What the policy would refuse an agent in that folder, invisible to the terminal too (sandboxView of `cwd`). */
  readonly view: SandboxView;
  readonly cols: number;
  readonly rows: number;
  readonly by: string;
}

export interface TerminalDeps {
  /** false: a process that only answers hooks (no sandbox was probed); no terminal may open. */
  readonly runs: boolean;
  readonly sandbox: SandboxSupport;
  readonly jobs: JobRoot;
  readonly gate: () => CompiledPolicy;
  readonly now: () => Date;
  /** Something changed on a terminal: it opened, wrote output, ended or was closed. */
  readonly onChange: (name: string, what: 'opened' | 'output' | 'exited' | 'closed') => void;
}

interface Open {
  view: TerminalView;
  readonly pty: Pty;
  readonly screen: Screen;
  job: Job | undefined;
  readonly sinks: Set<(data: string) => void>;
  /** Told when the program ends or the terminal is closed. */
  readonly ended: Set<() => void>;
  /** HALT killed it: its end says so. */
  halted?: boolean;
}

/** Output not yet on a terminal's screen past which its program is paused (xterm.js refuses past 50 MB). */
const SCREEN_BACKLOG_BYTES = 4 * 1024 * 1024;

/** How many terminals one gate keeps (open or ended and not yet closed). */
export const MAX_TERMINALS = 8;
export const TERMINAL_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/u;

const underSystem = (path: string): boolean => SYSTEM_PATHS.some((s) => path === s || path.startsWith(`${s}/`));

const fail = (code: OracleCode, reason: string): { ok: false; code: OracleCode; reason: string } => ({ ok: false, code, reason });

/**
 * ORACLE's own terminals (seed 001, issue 16): a person opens one (`oracle term open`), a program
 * runs on a PTY the gate owns, in the job sandbox where the host has one, seeing only the folder it
 * was opened in minus what the policy denies. The person types into it freely (`oracle term
 * attach`); an agent only through term.write, one approved line at a time, and reads it through
 * term.read. HALT kills every terminal's process tree.
 */
export class Terminals {
  private readonly terms = new Map<string, Open>();

  constructor(private readonly deps: TerminalDeps) {}

  list(): TerminalView[] {
    return [...this.terms.values()].map((t) => t.view);
  }

  names(): string[] {
    return [...this.terms.keys()];
  }

  open(spec: TerminalSpec): TermResult<TerminalView> {
    if (!this.deps.runs) return fail('TERM_REFUSED', 'this process only answers a hook and runs nothing; terminals open on the gate (`oracle serve`)');
    if (!TERMINAL_NAME.test(spec.name)) return fail('TERM_REFUSED', `a terminal name is 1–32 lower-case letters, digits, \`-\` or \`_\`, not \`${spec.name}\``);
    if (this.terms.has(spec.name)) return fail('TERM_EXISTS', `a terminal named \`${spec.name}\` is already open; close it first (\`oracle term close ${spec.name}\`)`);
    if (this.terms.size >= MAX_TERMINALS) return fail('TERM_LIMIT', `${String(MAX_TERMINALS)} terminals are open; close one first`);
    if (!spec.program.startsWith('/')) return fail('TERM_REFUSED', `the program must be an absolute path, not \`${spec.program}\``);
    const blocked = this.deps.jobs.blockedReason();
    if (blocked !== undefined) return fail('JOB_ROOT_BLOCKED', `new jobs are refused until the job root is cleaned: ${blocked}`);
    const { view } = spec;
    const job = this.deps.jobs.create();
    const { sandbox } = this.deps;
    // A person's terminal: colours and a real terminal type, otherwise the same empty environment as a job.
    const { NO_COLOR: _plain, ...base } = childEnvironment(job.dir, { TERM: 'xterm-256color' });
    let file = spec.program;
    let argv = [...spec.args];
    if (sandbox.kind === 'bubblewrap') {
      const plan = sandboxArgv({
        bwrap: sandbox.bwrap,
        program: spec.program,
        args: spec.args,
        jobDir: job.dir,
        cwd: spec.cwd.real,
        binds: [...(underSystem(spec.program) ? [] : [{ path: spec.program, mode: 'ro' as const }]), { path: spec.cwd.real, mode: spec.cwd.root.mode }],
        system: sandbox.system,
        network: false,
        readOnly: view.readOnly,
        masks: view.masks,
        // The shell keeps the PTY as its controlling terminal (job control, Ctrl-C). bwrap's
        // --new-session guards a terminal the sandbox shares with its parent against TIOCSTI; this
        // PTY belongs to the gate alone, so a line pushed back into it lands in the same sandbox.
        newSession: false,
        ...dropTo(sandbox.identity),
      });
      file = plan.file;
      argv = plan.argv;
    }
    let pty: Pty;
    try {
      pty = spawnPty({ file, argv, cwd: sandbox.kind === 'bubblewrap' ? job.dir : spec.cwd.real, env: base, cols: spec.cols, rows: spec.rows });
    } catch (e) {
      this.deps.jobs.remove(job);
      return fail('TERM_REFUSED', `the terminal could not start: ${e instanceof Error ? e.message : 'unknown error'}`);
    }
    const screen = new Screen(spec.cols, spec.rows);
    const entry: Open = {
      view: {
        name: spec.name,
        program: spec.program,
        args: [...spec.args],
        cwd: spec.cwd.real,
        pid: pty.pid,
        sandbox: sandbox.kind === 'bubblewrap' ? 'bubblewrap' : `none: ${sandbox.reason}`,
        opened_at: this.deps.now().toISOString(),
        opened_by: spec.by,
        cols: spec.cols,
        rows: spec.rows,
        exited: null,
      },
      pty,
      screen,
      job,
      sinks: new Set(),
      ended: new Set(),
    };
    this.terms.set(spec.name, entry);
    // Handlers of a terminal already closed (its name may be taken again) do nothing.
    const current = (): boolean => this.terms.get(spec.name) === entry;
    pty.onData((data) => {
      if (!current()) return;
      // A program that writes faster than the screen parses (`yes`, a huge `cat`) waits for it.
      screen.write(data, () => {
        pty.resume();
      });
      if (screen.backlog > SCREEN_BACKLOG_BYTES) pty.pause();
      for (const sink of entry.sinks) sink(data);
      this.deps.onChange(spec.name, 'output');
    });
    pty.onExit(({ code, signal }) => {
      if (!current()) return;
      entry.view = { ...entry.view, exited: { code, signal: signal ?? null, at: this.deps.now().toISOString(), ...(entry.halted ? { by: 'halt' as const } : {}) } };
      this.release(entry);
      for (const told of [...entry.ended]) told();
      this.deps.onChange(spec.name, 'exited');
    });
    this.deps.onChange(spec.name, 'opened');
    return { ok: true, value: entry.view };
  }

  /**
   * An agent's approved line, typed and entered (term.write). The gate refused anything but one
   * line of printable text before this point; the check here is the boundary's own (fail closed).
   */
  writeLine(name: string, text: string): TermResult<{ readonly bytes: number }> {
    const entry = this.live(name);
    if (!entry.ok) return entry;
    // eslint-disable-next-line no-control-regex -- the point: no control character may reach the terminal
    if (/[\u0000-\u001f\u007f-\u009f]/u.test(text)) return fail('NOT_ALLOWED', 'a line for a terminal may not hold control characters');
    entry.value.pty.write(`${text}\r`);
    return { ok: true, value: { bytes: Buffer.byteLength(text, 'utf8') + 1 } };
  }

  /** The person's own keys (`oracle term attach`): sent as typed. */
  input(name: string, data: string): TermResult<null> {
    const entry = this.live(name);
    if (!entry.ok) return entry;
    entry.value.pty.write(data);
    return { ok: true, value: null };
  }

  /** The last `lines` lines as the terminal shows them, plain text (the caller redacts). */
  async read(name: string, lines: number): Promise<TermResult<{ readonly text: string; readonly lines: number; readonly exited: TerminalView['exited'] }>> {
    const entry = this.terms.get(name);
    if (entry === undefined) return this.unknown(name);
    await entry.screen.settled();
    const shown = entry.screen.lines(lines);
    return { ok: true, value: { text: shown.join('\n'), lines: shown.length, exited: entry.view.exited } };
  }

  /** The last `lines` lines as shown right now (without waiting for output still being parsed). */
  tail(name: string, lines: number): string | undefined {
    return this.terms.get(name)?.screen.lines(lines).join('\n');
  }

  /** Output as it comes, after a redraw of the screen as it is now; detach stops it. */
  async attach(name: string, sink: (data: string) => void): Promise<TermResult<{ readonly redraw: string; readonly detach: () => void }>> {
    const entry = this.terms.get(name);
    if (entry === undefined) return this.unknown(name);
    await entry.screen.settled();
    entry.sinks.add(sink);
    return { ok: true, value: { redraw: entry.screen.redraw(), detach: () => entry.sinks.delete(sink) } };
  }

  /** Calls `told` when the terminal's program ends or it is closed; the answer stops that. */
  onExit(name: string, told: () => void): () => void {
    const entry = this.terms.get(name);
    if (entry === undefined) return () => undefined;
    entry.ended.add(told);
    return () => entry.ended.delete(told);
  }

  resize(name: string, cols: number, rows: number): TermResult<null> {
    const entry = this.live(name);
    if (!entry.ok) return entry;
    entry.value.pty.resize(cols, rows);
    entry.value.screen.resize(cols, rows);
    entry.value.view = { ...entry.value.view, cols, rows };
    return { ok: true, value: null };
  }

  /** Kills the terminal's process tree and forgets it. */
  close(name: string): TermResult<null> {
    const entry = this.terms.get(name);
    if (entry === undefined) return this.unknown(name);
    // An ended program's pid may name another process by now: no signal is sent for it.
    if (entry.view.exited === null) this.killTree(entry);
    this.release(entry);
    this.terms.delete(name);
    for (const told of [...entry.ended]) told();
    entry.screen.dispose();
    this.deps.onChange(name, 'closed');
    return { ok: true, value: null };
  }

  /** HALT: every terminal's process tree is killed; their screens stay readable until closed. */
  killAll(): number {
    const running = [...this.terms.values()].filter((t) => t.view.exited === null);
    // Its end then reads "killed by HALT", not the exit code the pty reports (0 here: red team, session 33).
    for (const entry of running) entry.halted = true;
    killTrees(running.map((t) => t.pty.pid));
    for (const entry of running) entry.pty.kill();
    return running.length;
  }

  /** Terminals whose program still runs (for HALT's snapshot). */
  get running(): number {
    return [...this.terms.values()].filter((t) => t.view.exited === null).length;
  }

  closeAll(): void {
    for (const name of [...this.terms.keys()]) this.close(name);
  }

  private live(name: string): TermResult<Open> {
    const entry = this.terms.get(name);
    if (entry === undefined) return this.unknown(name);
    if (entry.view.exited !== null) return fail('TERM_EXITED', `the program in terminal \`${name}\` has ended (exit ${String(entry.view.exited.code)})`);
    return { ok: true, value: entry };
  }

  private unknown(name: string): { ok: false; code: OracleCode; reason: string } {
    const names = this.names();
    return fail('TERM_UNKNOWN', `no terminal named \`${name}\` is open on this gate${names.length === 0 ? ' (none is; a person opens one with `oracle term open NAME`)' : `; open: ${names.join(', ')}`}`);
  }

  /**
   * The program and everything below it (adapters/process-table.ts killTree). Under bubblewrap
   * the program's child is the sandbox's PID namespace, which the kernel empties when it dies.
   */
  private killTree(entry: Open): void {
    killTree(entry.pty.pid);
    entry.pty.kill();
  }

  private release(entry: Open): void {
    if (entry.job === undefined) return;
    const job = entry.job;
    entry.job = undefined;
    this.deps.jobs.remove(job);
  }
}
