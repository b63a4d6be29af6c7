import type { HaltReach } from '../adapters/agent-processes.js';
import type { HaltFile } from '../adapters/halt-file.js';
import type { AuditBody } from '../core/audit/record.js';
import type { GateMode } from '../core/decide/context.js';
import { mayResume, type HaltRecord } from '../core/halt.js';
import type { EventHub } from './events.js';
import type { GitLock } from '../toolhost/git-locks.js';

/** What HALT reaches and where it is kept (SPEC §8). */
export interface HaltDeps {
  /** `<home>/data/halt.json`: a HALT survives restarts and reaches this gate from `oracle halt`. */
  readonly file: HaltFile;
  /** The mode the policy gives when no HALT is in force. */
  /** The mode the policy in force gives (normal, or read-only for a policy with errors); a reload may change it. */
  readonly policyMode: () => GateMode;
  readonly events: EventHub;
  readonly audit: (body: AuditBody) => Promise<unknown>;
  readonly now: () => Date;
  /** Every waiting caller is answered "halted"; a resume lets cards be asked for again. */
  readonly approvals: { cancelAll(by: string): void; reopen(): void };
  /** The gate's own jobs: how many run, which actions are in flight, and kill them all (answering where git ran among them). */
  readonly jobs: { live(): number; inFlight(): readonly string[]; killAll(): readonly string[] };
  /** The lock files git left where HALT killed it, and their removal at resume (toolhost/git-locks.ts). */
  readonly gitLocks?: { find(dirs: readonly string[]): readonly GitLock[]; remove(locks: readonly GitLock[]): readonly string[] };
  /** The agents' own tool processes (adapters/agent-processes.ts). */
  readonly agents: { haltToolTrees(): HaltReach };
}

/**
 * HALT and resume for one gate (SPEC §8): the mode every decision reads, what stops when a HALT
 * lands (waiting calls, the gate's jobs, the agents' tool trees), the file that keeps it and the
 * records that say so. A HALT written by another process (`oracle halt`) is obeyed within moments.
 */
export class HaltControl {
  private current: GateMode;
  /** The HALT in force (who, when, why), for the screens to say; undefined when none is. */
  private record: HaltRecord | undefined;
  private readonly unwatch: () => void;

  /** `halted`: the HALT on file when the gate opened (read once by the caller, for its load record). */
  constructor(
    private readonly deps: HaltDeps,
    halted: HaltRecord | undefined,
  ) {
    this.current = halted === undefined ? deps.policyMode() : 'halted';
    this.record = halted;
    this.unwatch = deps.file.watch(() => {
      this.onFileChange();
    });
  }

  /** The mode in force now: the policy's, or `halted`. */
  mode(): GateMode {
    return this.current;
  }

  /** The HALT in force, when one is: who, when and why (a phone and the desktop say it). */
  haltedBy(): Pick<HaltRecord, 'reason' | 'at' | 'by'> | undefined {
    return this.current === 'halted' && this.record !== undefined ? { reason: this.record.reason, at: this.record.at, by: this.record.by } : undefined;
  }

  /** Kills every process tree, denies everything, persists, audits. */
  async halt(reason: string, by: string): Promise<HaltRecord> {
    const running = { running_processes: this.deps.jobs.live(), in_flight: [...this.deps.jobs.inFlight()] };
    const { reach, locks } = this.stopAll(by);
    const record: HaltRecord = { reason, at: this.deps.now().toISOString(), by, snapshot: { ...running, agent_processes: reach, ...(locks.length === 0 ? {} : { git_locks: locks }) } };
    this.deps.file.write(record);
    this.record = record;
    await this.auditHalt(record);
    return record;
  }

  /** Lifts a HALT; only the desktop or the CLI may (false for anyone else). */
  async resume(by: string): Promise<boolean> {
    if (!mayResume(by)) return false;
    const locks = this.record?.snapshot.git_locks ?? [];
    this.deps.file.remove();
    this.record = undefined;
    this.current = this.deps.policyMode();
    this.deps.approvals.reopen();
    this.deps.events.publish('resume', { mode: this.current });
    await this.deps.audit({ kind: 'resume', ts: this.deps.now().toISOString(), actor: by, outcome: this.current, ...this.unlocked(locks) });
    return true;
  }

  /** A reload changed the policy: its mode is in force now, unless a HALT is. */
  policyChanged(): void {
    if (this.current !== 'halted') this.current = this.deps.policyMode();
  }

  close(): void {
    this.unwatch();
  }

  /** Stops everything this gate reaches, and finds the locks the git it killed left; the caller persists and audits. */
  private stopAll(by: string): { readonly reach: HaltReach; readonly locks: readonly GitLock[] } {
    if (this.current !== 'halted') this.deps.events.publish('halt', { mode: 'halted' });
    this.current = 'halted';
    this.deps.approvals.cancelAll(by);
    const jobGit = this.deps.jobs.killAll();
    const { gitDirs, ...reach } = this.deps.agents.haltToolTrees();
    const locks = this.deps.gitLocks?.find([...jobGit, ...(gitDirs ?? [])]) ?? [];
    return { reach, locks };
  }

  /** The locks HALT's kills left, removed while still as HALT found them (the resume record names them). */
  private unlocked(locks: readonly GitLock[]): { detail?: { removed_git_locks: readonly string[] } } {
    const removed = locks.length === 0 ? [] : (this.deps.gitLocks?.remove(locks) ?? []);
    return removed.length === 0 ? {} : { detail: { removed_git_locks: removed } };
  }

  private auditHalt(record: HaltRecord): Promise<unknown> {
    return this.deps.audit({ kind: 'halt', ts: this.deps.now().toISOString(), actor: record.by, outcome: 'halted', detail: { reason: record.reason, ...record.snapshot } });
  }

  /** `oracle halt` or `oracle resume` from another process changed the file. */
  private onFileChange(): void {
    const record = this.deps.file.read();
    if (record !== undefined && this.current !== 'halted') {
      this.record = record;
      // What was in flight is what this gate had, not what the other process could know (it wrote -1).
      const running = { running_processes: this.deps.jobs.live(), in_flight: [...this.deps.jobs.inFlight()] };
      const { reach, locks } = this.stopAll(record.by);
      const snapshot = { ...record.snapshot, ...running, agent_processes: reach, ...(locks.length === 0 ? {} : { git_locks: locks }) };
      this.record = { ...record, snapshot };
      void this.auditHalt(this.record).catch(() => undefined);
    } else if (record === undefined && this.current === 'halted') {
      const locks = this.record?.snapshot.git_locks ?? [];
      this.record = undefined;
      this.current = this.deps.policyMode();
      this.deps.approvals.reopen();
      void this.deps.audit({ kind: 'resume', ts: this.deps.now().toISOString(), actor: 'cli', outcome: this.current, ...this.unlocked(locks) }).catch(() => undefined);
    }
  }
}
