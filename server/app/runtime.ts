import { join } from 'node:path';
import { openAuditLog, sha256Text, type AuditAppender, type Unavailable } from '../adapters/audit/appender.js';
import { interruptedActions } from '../core/audit/interrupted.js';
import { recordsNewestFirst } from '../adapters/audit/read-log.js';
import { redact } from '../core/redact/index.js';
import { loadGatePolicy, type GateOptions, type GateState } from './gate-policy.js';
import type { PolicyIssue } from '../core/policy/load.js';
import { openToolhost, type Toolhost } from '../toolhost/open.js';
import { currentSubject, currentText } from '../toolhost/preview.js';
import { hostFacts } from '../adapters/host.js';
import { HaltFile } from '../adapters/halt-file.js';
import { AgentProcesses } from '../adapters/agent-processes.js';
import { HALT_ABORT } from '../core/halt.js';
import { RuntimeLock } from '../adapters/runtime-lock.js';
import type { HaltRecord } from '../core/halt.js';
import { HaltControl } from './halt-control.js';
import { ApprovalDesk } from './approval-desk.js';
import { EventHub } from './events.js';
import { ApprovalsFile } from '../adapters/approvals-store.js';
import { TaintFile } from '../adapters/taint-store.js';
import { TaintLedger } from './taint-ledger.js';
import { argHash } from '../core/approvals/arg-hash.js';
import type { RuntimeState } from '../core/decide/context.js';
import type { GateMode, ShownMode } from '../core/decide/context.js';
import { ensurePrivateDir } from '../adapters/files.js';
import { createActions, type Actions } from './actions.js';
import type { Asked } from '../../shared/asked.js';
import { gitLocksIn, removeLeftLocks } from '../toolhost/git-locks.js';

/** What a reload did (issue 16): the new policy in force, or the old one kept because the file has errors. */
export type PolicyReload =
  | { readonly ok: true; readonly from: string | null; readonly to: string | null; readonly changed: boolean }
  | { readonly ok: false; readonly kept: string | null; readonly rejected: string | null; readonly file: string; readonly errors: readonly PolicyIssue[]; readonly at: string };

/**
 * The whole gate for one process: policy, toolhost and audit log, wired once (composition root
 * shared by `oracle run`, `oracle undo` and, later, the server).
 */
export interface Runtime extends Actions {
  /** The policy in force now; a reload replaces it. */
  readonly gate: GateState;
  /**
   * Reads the policy file again (issue 16): a valid one is in force at once, for every decision
   * and executor, without a restart; one with errors is refused and the running policy kept (the
   * refusal stays in `policyProblem` for the screens until a reload succeeds). Audited either way
   * with both digests.
   */
  reloadPolicy(by: string): Promise<PolicyReload>;
  /** The last refused reload, until one succeeds. */
  readonly policyProblem: Extract<PolicyReload, { ok: false }> | undefined;
  readonly toolhost: Toolhost;
  readonly audit: AuditAppender;
  /** The mode in force now: the policy's, or `halted`. */
  mode(): GateMode;
  /**
   * The mode as people are told it: `degraded` while the audit log cannot be written (every
   * action is refused then), unless HALT is in force; with why, since when, how much was refused.
   */
  status(): { readonly mode: ShownMode; readonly audit: Unavailable | undefined };
  /** HALT (SPEC §8): kill every process tree, deny everything, persist, audit. */
  halt(reason: string, by: string): Promise<HaltRecord>;
  /** The HALT in force, when one is: who, when and why. */
  haltedBy(): Pick<HaltRecord, 'reason' | 'at' | 'by'> | undefined;
  /** Lift a HALT; only the desktop or the CLI may. */
  resume(by: string): Promise<boolean>;
  readonly desk: ApprovalDesk;
  readonly events: EventHub;
  /** The agent processes this gate serves, registered by its clients; HALT reaches what they started. */
  readonly agents: AgentProcesses;
  /** A session's taint as the ledger keeps it (SPEC §4). */
  taintOf(session: string | undefined): RuntimeState;
  /** The gate is stopping: every waiting caller is answered now (denied, "the gate stopped"). */
  stopWaiting(): void;
  close(): Promise<void>;
}

/** `runs: false`: a runtime that only answers hooks (no sandbox probe, no secrets; nothing executes). */
export async function openRuntime(options: GateOptions & { readonly actor: string; readonly resolve?: (host: string) => Promise<string[]>; readonly events?: EventHub; readonly runs?: boolean; readonly asked?: (tier: 'T2' | 'T3') => Asked }): Promise<Runtime> {
  const events = options.events ?? new EventHub();
  let gate = loadGatePolicy(options);
  let policyProblem: Extract<PolicyReload, { ok: false }> | undefined;
  const host = options.host ?? hostFacts();
  const dataDir = join(gate.home, 'data');
  ensurePrivateDir(dataDir);
  const lock = RuntimeLock.acquire(dataDir);
  // The log with its signed checkpoint: a truncated or rewritten log refuses to open (and the
  // home is let go again, so the next start is not told another process holds it).
  let audit: AuditAppender;
  try {
    audit = openAuditLog(gate.home);
  } catch (e) {
    lock.release();
    throw e;
  }
  const haltFile = new HaltFile(dataDir);
  const now = () => new Date();
  if (audit.startedOver) {
    const reason = 'the audit log and its checkpoint were missing although the signing key was here: the log was removed (or the last start crashed before its first record), and this log starts over';
    await audit.append({ kind: 'audit.repair', ts: now().toISOString(), actor: 'oracle', outcome: 'log-missing', detail: { reason } });
  }
  if (audit.repaired !== undefined) {
    await audit.append({ kind: 'audit.repair', ts: now().toISOString(), actor: 'oracle', detail: { file: audit.repaired.file, removed_bytes: audit.repaired.removedBytes } });
  }
  // What the last process dispatched and never finished (it crashed or was killed): said in the
  // log now, before this process's own start, so no action is left without a terminal record.
  for (const actionId of interruptedActions(recordsNewestFirst(gate.home))) {
    await audit.append({ kind: 'interrupted', ts: now().toISOString(), actor: 'oracle', action_id: actionId, outcome: 'interrupted', detail: { reason: 'the gate stopped while this action ran; whether it finished is unknown' } });
  }
  const halted = haltFile.read();
  const loadRecord = {
    kind: 'policy.load',
    ts: now().toISOString(),
    actor: 'oracle',
    outcome: halted === undefined ? gate.mode : 'halted',
    detail: { policy: gate.policyFile, digest: gate.digest, errors: gate.errors.length, ...(halted === undefined ? {} : { halted_since: halted.at, halt_reason: halted.reason }) },
  } as const;
  // A gate that serves waits for its load record: a log it cannot write is a start failure. A
  // runtime that only judges one hook call (runs: false) sends it with the call's own records,
  // first in the same group commit: if it cannot be written, neither can they, and the call is
  // denied (one write and one sync per call instead of two).
  if (options.runs === false) audit.appendWithNext(loadRecord).catch(() => undefined);
  else await audit.append(loadRecord);
  const approvalsFile = new ApprovalsFile(dataDir);
  // Before the desk opens (it may fold approvals.json, where older builds kept session taint).
  const taint = new TaintLedger(new TaintFile(dataDir), () => approvalsFile.load().sessions);
  const desk = new ApprovalDesk({
    file: approvalsFile,
    taintOf: (session) => taint.state(session),
    audit: (body) => audit.append(body),
    now,
    argHash: (args) => argHash(args, sha256Text),
    onChange: (approval) => {
      events.publish(`approval.${approval.state}`, { ...approval, desktop_only: approval.tier === 'T3' });
    },
    currentText: (path) => currentText(path),
    subject: (path) => currentSubject(path),
    // Asked only once a card is made, long after the toolhost below exists.
    terminalTail: (name) => toolhost.env.terminals.tail(name, TERMINAL_CARD_LINES),
    knownSecrets: () => toolhost.env.knownSecrets(),
    ...(options.asked === undefined ? {} : { asked: options.asked }),
    // The serving gate ends unanswered waits on time; a hook process's desk only looks.
    ...(options.runs === false ? {} : { sweepMs: APPROVAL_SWEEP_MS }),
  });
  const toolhost = await openToolhost({
    ...(options.runs === undefined ? {} : { runs: options.runs }),
    grants: desk,
    home: gate.home,
    gate: () => gate.context.gate,
    env: options.env ?? process.env,
    platform: host.platform,
    redact: (text, known) => redact(text, known).text,
    ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
    onTerminal: terminalEvents(events),
  });
  const inFlight = new Map<string, AbortController>();

  const agents = new AgentProcesses();
  const haltControl = new HaltControl(
    {
      file: haltFile,
      policyMode: () => gate.mode,
      events,
      audit: (body) => audit.append(body),
      now,
      approvals: desk,
      jobs: {
        live: () => toolhost.supervisor.live + toolhost.env.terminals.running,
        inFlight: () => [...inFlight.keys()],
        killAll: () => {
          // Every running tree first, in one read of the process table; then what is in flight is
          // aborted, so nothing starts after HALT (its running job is already marked and killed).
          const { gitDirs } = toolhost.supervisor.killAll();
          for (const running of inFlight.values()) running.abort(HALT_ABORT);
          toolhost.env.terminals.killAll();
          return gitDirs;
        },
      },
      gitLocks: { find: (dirs) => gitLocksIn(dirs, toolhost.env.gate.host.reader), remove: removeLeftLocks },
      agents,
    },
    halted,
  );
  /** The mode every decision reads. */
  const mode = (): GateMode => haltControl.mode();
  // People are told when the log stops, and starts again, taking records (the screens show the mode).
  const unlisten = audit.onAvailability((state) => {
    events.publish('mode', { mode: state === undefined || mode() === 'halted' ? mode() : 'degraded', audit: state ?? null });
  });

  const actions = createActions({ gate: () => gate, audit, desk, taint, toolhost, events, mode, now, actor: options.actor, inFlight });

  const reloadPolicy = async (by: string): Promise<PolicyReload> => {
    const next = loadGatePolicy(options);
    const from = gate.digest;
    // A file with errors never replaces a policy in force: the gate keeps deciding by the old one
    // (a gate already read-only for an invalid file takes the new read-only view: its errors are the news).
    if (next.mode === 'read-only') {
      const keptDigest = gate.mode === 'read-only' ? next.digest : from;
      if (gate.mode === 'read-only') gate = next;
      policyProblem = { ok: false, kept: keptDigest, rejected: next.digest, file: next.policyFile, errors: next.errors, at: now().toISOString() };
      await audit.append({ kind: 'policy.load', ts: now().toISOString(), actor: by, outcome: 'refused', detail: { policy: next.policyFile, digest: next.digest, kept: from, errors: next.errors.length, first_error: next.errors[0]?.message ?? null } });
      events.publish('policy', { ok: false, kept: from, errors: next.errors.length }, 'desktop');
      return policyProblem;
    }
    gate = next;
    policyProblem = undefined;
    haltControl.policyChanged();
    await audit.append({ kind: 'policy.load', ts: now().toISOString(), actor: by, outcome: mode(), detail: { policy: next.policyFile, digest: next.digest, previous: from, errors: next.errors.length, reload: true } });
    events.publish('policy', { ok: true, digest: next.digest, previous: from }, 'desktop');
    return { ok: true, from, to: next.digest, changed: from !== next.digest };
  };

  const runtime: Runtime = {
    get gate() {
      return gate;
    },
    reloadPolicy,
    get policyProblem() {
      return policyProblem;
    },
    toolhost,
    audit,
    mode,
    status: () => {
      const unavailable = audit.unavailable;
      return { mode: unavailable !== undefined && mode() !== 'halted' ? 'degraded' : mode(), audit: unavailable };
    },
    desk,
    events,
    agents,
    ...actions,
    taintOf: (session) => taint.state(session),
    halt: (reason, by) => haltControl.halt(reason, by),
    haltedBy: () => haltControl.haltedBy(),
    resume: (by) => haltControl.resume(by),
    stopWaiting: () => {
      desk.releaseWaiters();
    },
    async close() {
      desk.releaseWaiters();
      toolhost.env.terminals.closeAll();
      haltControl.close();
      unlisten();
      desk.close();
      taint.close();
      await audit.close();
      lock.release();
    },
  };
  return runtime;
}

/** Lines of a terminal a term.write card shows: the prompt the line goes to, and a little above. */
const TERMINAL_CARD_LINES = 8;
/** How often the gate ends waits that expired unanswered (each then has its audit record). */
const APPROVAL_SWEEP_MS = 10_000;

/** How often one terminal's output is announced at most: a screen re-reads it, never per byte. */
const TERMINAL_EVENT_MS = 150;

/** Terminal changes for the desktop screen (never a phone's: a terminal is the desk's). */
function terminalEvents(events: EventHub): (name: string, what: 'opened' | 'output' | 'exited' | 'closed') => void {
  const timers = new Map<string, NodeJS.Timeout>();
  return (name, what) => {
    if (what !== 'output') {
      clearTimeout(timers.get(name));
      timers.delete(name);
      events.publish('terminal', { name, what }, 'desktop');
      return;
    }
    if (timers.has(name)) return;
    timers.set(
      name,
      setTimeout(() => {
        timers.delete(name);
        events.publish('terminal', { name, what }, 'desktop');
      }, TERMINAL_EVENT_MS).unref(),
    );
  };
}
