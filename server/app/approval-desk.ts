import { randomBytes } from 'node:crypto';
import type { AuditBody } from '../core/audit/record.js';
import { cancel, consumeApproval, decideApproval, expireDue, requestApproval, type Approval, type Transition, type Verdict } from '../core/approvals/approval.js';
import { matchRemembered, rememberFrom, rememberRefusal, type RememberedRule, type RememberScope } from '../core/approvals/remember.js';
import type { RuntimeState } from '../core/decide/context.js';
import { CLEAN } from '../core/decide/taint.js';
import type { Evaluation } from '../core/decide/decide.js';
import type { Grant } from '../core/lifecycle/run-action.js';
import type { ApprovalsFile, Change, WaitingRequest } from '../adapters/approvals-store.js';
import { redact, redactDeep } from '../core/redact/index.js';
import type { CurrentText } from '../toolhost/preview.js';
import type { Asked } from '../../shared/asked.js';

/** Woken with the approval's new state, or with nothing when the gate stops. */
type Waiter = (approval: Approval | undefined) => void;

/** Journalled changes before the state is folded into a new snapshot. */
const COMPACT_AFTER = 2000;
const COMPACT_AT_OPEN = 100;

/**
 * Where needs-approval actions wait for a person (SPEC §7): approvals are created, persisted on
 * every change, answered, expired, consumed once at execution, cancelled by HALT. A card names
 * what its session read, as the taint ledger (taint-ledger.ts) knows it.
 */
export class ApprovalDesk {
  private readonly approvals = new Map<string, Approval>();
  private remembered: RememberedRule[];
  private readonly requests = new Map<string, WaitingRequest>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** Approvals whose answer is being written to the audit log (one answer per card at a time). */
  private readonly answering = new Set<string>();
  /** Set by HALT: nothing new may wait until a resume reopens the desk. */
  private halted = false;
  /** Set when the gate stops: nothing waits any more. */
  private stopping = false;
  private sweeper: NodeJS.Timeout | undefined;

  private readonly file: ApprovalsFile;
  private readonly audit: (body: AuditBody) => Promise<unknown>;
  private readonly now: () => Date;
  private readonly argHash: (args: Readonly<Record<string, unknown>>) => string;
  /** Told of every new or changed approval (the live event stream). */
  private readonly onChange: (approval: Approval) => void;
  private readonly currentText: ((path: string) => CurrentText) | undefined;
  private readonly terminalTail: ((name: string) => string | undefined) | undefined;
  private readonly subject: ((path: string) => CardSubject) | undefined;
  private readonly taintOf: (session: string | undefined) => RuntimeState;
  private readonly knownSecrets: () => readonly string[];
  private readonly asked: ((tier: 'T2' | 'T3') => Asked) | undefined;

  constructor(deps: {
    readonly file: ApprovalsFile;
    readonly audit: (body: AuditBody) => Promise<unknown>;
    readonly now: () => Date;
    readonly argHash: (args: Readonly<Record<string, unknown>>) => string;
    readonly onChange?: (approval: Approval) => void;
    /** The current text at a path a write would replace, for the card's diff (read by the toolhost). */
    readonly currentText?: (path: string) => CurrentText;
    /** The last lines a terminal shows, for a term.write card: what the line would be typed into. */
    readonly terminalTail?: (name: string) => string | undefined;
    /** What is at a path a delete would remove, for the card and to check at execution (read by the toolhost). */
    readonly subject?: (path: string) => CardSubject;
    /** What a session read (the card says so); clean when absent. */
    readonly taintOf?: (session: string | undefined) => RuntimeState;
    /** The values in the secret store: a card hides them wherever the model put them. */
    readonly knownSecrets?: () => readonly string[];
    /** Who can see a card of a tier now (reach.ts): told to a caller that stops waiting. Absent: not counted. */
    readonly asked?: (tier: 'T2' | 'T3') => Asked;
    /**
     * How often the gate ends the waits nobody answered in time, each with its audit record
     * (also at open, for those that expired while it was down). Absent (a hook process's desk,
     * a test's): an expired card is only shown as expired.
     */
    readonly sweepMs?: number;
  }) {
    this.taintOf = deps.taintOf ?? (() => CLEAN);
    this.knownSecrets = deps.knownSecrets ?? (() => []);
    this.currentText = deps.currentText;
    this.terminalTail = deps.terminalTail;
    this.subject = deps.subject;
    this.asked = deps.asked;
    this.file = deps.file;
    this.audit = deps.audit;
    this.now = deps.now;
    this.argHash = deps.argHash;
    this.onChange = deps.onChange ?? (() => undefined);
    const now = deps.now;
    const state = deps.file.load();
    for (const a of state.approvals) this.approvals.set(a.approval_id, deps.sweepMs === undefined ? expireDue(a, now()) : a);
    this.remembered = state.remembered.filter((r) => Date.parse(r.expires_at) > now().getTime());
    for (const [id, r] of Object.entries(state.requests)) this.requests.set(id, r);
    // Folded at start once the journal has grown (a hook process opens the desk per call: most
    // opens then write nothing), and whenever it reaches COMPACT_AFTER while running.
    if (this.file.journalLength >= COMPACT_AT_OPEN) this.compact();
    if (deps.sweepMs !== undefined) {
      // The serving gate opens after a stop: a card whose asker was waiting on the gate that
      // stopped (killed mid-wait: a hook call, a submit that had no answer yet) kept no request,
      // so nothing can ever run it. Withdrawn, each audited, rather than left for a person whose
      // approval would run nothing (fault probe, session 37); a kept request stays, to continue.
      const lost = [...this.approvals.values()].filter((a) => (a.state === 'pending' || a.state === 'approved') && !this.requests.has(a.approval_id) && Date.parse(a.expires_at) > now().getTime());
      if (lost.length > 0) this.ended(lost.map((a) => cancel(a, now())), 'oracle', LOST);
      this.expireDueNow();
      this.sweeper = setInterval(() => this.expireDueNow(), deps.sweepMs);
      this.sweeper.unref();
    }
  }

  /** Ends every wait whose time ran out (expiry means deny), each with its audit record. */
  expireDueNow(): number {
    const now = this.now();
    const due = [...this.approvals.values()].filter((a) => a.state === 'pending' && Date.parse(a.expires_at) <= now.getTime()).map((a) => expireDue(a, now));
    if (due.length > 0) this.ended(due, 'oracle', EXPIRED);
    return due.length;
  }

  list(): Approval[] {
    // One clock reading for the whole list, compared as ISO-8601 UTC text (every expires_at is
    // toISOString's): with a thousand waiting, listing stays cheap. Due ones go through expireDue.
    const now = this.now();
    const nowText = now.toISOString();
    const out: Approval[] = [];
    for (const a of this.approvals.values()) out.push(a.state === 'pending' && a.expires_at <= nowText ? expireDue(a, now) : a);
    return out;
  }

  get(id: string): Approval | undefined {
    const a = this.approvals.get(id);
    return a === undefined ? undefined : expireDue(a, this.now());
  }

  rules(): readonly RememberedRule[] {
    return this.remembered;
  }

  /** Keeps what a waiting action asked, for its continuation after a restart. */
  keepRequest(approvalId: string, request: WaitingRequest): void {
    this.requests.set(approvalId, request);
    this.record([{ op: 'request', id: approvalId, value: request }]);
  }

  request(approvalId: string): WaitingRequest | undefined {
    return this.requests.get(approvalId);
  }

  /** For the lifecycle: a remembered rule, or a new pending approval and a wait for its answer. */
  async obtain(evaluation: Evaluation, actionId: string, where: { readonly waitMs: number; readonly project: string | null; readonly agent?: string | undefined }): Promise<Grant> {
    const { waitMs, project } = where;
    const agent = where.agent ?? null;
    const { decision, tool, args } = evaluation;
    if (decision.decision !== 'needs-approval' || tool === null || args === null) return { kind: 'refused', code: 'NOT_ALLOWED', message: 'nothing to approve' };
    if (this.halted) return { kind: 'refused', code: 'HALTED', message: 'the gate is halted' };
    const hash = this.argHash(args);
    const session = evaluation.session ?? null;
    const rule = matchRemembered(this.remembered, { tool, argHash: hash, project, session, tier: decision.tier, agent }, this.now());
    if (rule !== undefined) {
      await this.audit({ kind: 'approval', ts: this.now().toISOString(), actor: rule.created_by, action_id: actionId, tool, outcome: 'remembered', detail: { rule: rule.id, expires_at: rule.expires_at } });
      // A prompt a person was spared: counted on the rule, shown on the desktop.
      this.remembered = this.remembered.map((r) => (r.id === rule.id ? { ...r, uses: (r.uses ?? 0) + 1 } : r));
      this.record([{ op: 'rules', value: this.remembered }]);
      return { kind: 'approved', approvalId: rule.id };
    }
    const replaced = this.replaced(tool, evaluation);
    // A delete of nothing could only fail: no card for it (MCP probe, session 36).
    if ((replaced['target'] as CardSubject | undefined)?.kind === 'missing') return { kind: 'refused', code: 'FS_NOT_FOUND', message: `nothing is at \`${evaluation.paths[0]?.real ?? ''}\`, so there is nothing to delete; no person was asked` };
    const approval = requestApproval(
      {
        approvalId: `ap_${randomBytes(12).toString('hex')}`,
        traceId: actionId,
        tool,
        argHash: hash,
        tier: decision.tier,
        // The reasons quote arguments (a host, a header): a stored value among them stays hidden too.
        reason: redact(decision.reasons.join('; '), this.knownSecrets()).text,
        // The card shows the resolved arguments, redacted: it travels to phones and events.
        preview: cardPreview(tool, args, replaced, this.knownSecrets()),
        provenance: this.taintOf(evaluation.session).provenance.map((p) => p.source).filter((s) => s !== ''),
        nonce: randomBytes(16).toString('base64url'),
        session,
        project,
        agent,
      },
      this.now(),
    );
    this.approvals.set(approval.approval_id, approval);
    this.record([{ op: 'approval', value: approval }]);
    this.onChange(approval);
    await this.audit({ kind: 'approval', ts: this.now().toISOString(), actor: 'oracle', action_id: actionId, tool, tier: decision.tier, outcome: 'requested', detail: { approval_id: approval.approval_id, arg_hash: hash, expires_at: approval.expires_at } });
    return this.wait(approval.approval_id, waitMs);
  }

  /**
   * For a write, what it replaces: `before` (the current text, or null when there is no file yet),
   * or `before_unavailable` with the reason, so the screens can show the exact diff.
   */
  private replaced(tool: string, evaluation: Evaluation): Record<string, unknown> {
    // A line for a terminal: the person sees what it would be typed into (a shell prompt, or a
    // program asking something else), as the terminal shows it now.
    if (tool === 'term.write') {
      const name = evaluation.args?.['session'];
      const tail = typeof name === 'string' ? this.terminalTail?.(name) : undefined;
      return tail === undefined ? {} : { screen: tail };
    }
    const path = evaluation.paths[0]?.real;
    // A delete: what is there now (a file of so many bytes, a folder of so many entries), bound
    // to the card by its fingerprint, which the execution must find again (consume).
    if (tool === 'fs.delete' && path !== undefined && this.subject !== undefined) return { target: this.subject(path) };
    if (tool !== 'fs.write' || path === undefined || this.currentText === undefined) return {};
    const now = this.currentText(path);
    if (now.kind === 'text') return { before: now.text };
    return now.kind === 'absent' ? { before: null } : { before_unavailable: now.reason };
  }

  /** Who can see a card of `tier` now, when the gate counts it (reach.ts); undefined when it does not. */
  whoSees(tier: 'T2' | 'T3'): Asked | undefined {
    return this.asked?.(tier);
  }

  /**
   * Waits up to `waitMs` for an answer (a resumable continuation when there is none yet). A
   * `signal` that aborts (the waiting caller went away) ends the wait early, the card untouched:
   * it stays for the person, and the caller can wait on it again.
   */
  wait(id: string, waitMs: number, signal?: AbortSignal): Promise<Grant> {
    const current = this.get(id);
    if (current === undefined) return Promise.resolve({ kind: 'refused', code: 'APPROVAL_UNKNOWN', message: `no approval \`${id}\`` });
    if (current.state !== 'pending') return Promise.resolve(grantOf(current));
    if (this.stopping) return Promise.resolve(STOPPED);
    const untilExpiry = Date.parse(current.expires_at) - this.now().getTime();
    return new Promise((resolve) => {
      // Whichever ends the wait (an answer, the timer, the caller leaving) stops the other two.
      const detach = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
        this.waiters.get(id)?.delete(done);
      };
      const done = (approval: Approval | undefined) => {
        detach();
        resolve(approval === undefined ? STOPPED : grantOf(approval));
      };
      const stop = (): void => {
        detach();
        const latest = this.expire(id);
        // Still waiting: the caller is told who could see the card at this moment.
        const asked = this.whoSees(current.tier);
        resolve(latest === undefined || latest.state === 'pending' ? { kind: 'pending', approvalId: id, ...(asked === undefined ? {} : { asked }) } : grantOf(latest));
      };
      const timer = setTimeout(stop, Math.max(0, Math.min(waitMs, untilExpiry)));
      const set = this.waiters.get(id) ?? new Set<Waiter>();
      set.add(done);
      this.waiters.set(id, set);
      if (signal?.aborted === true) stop();
      else signal?.addEventListener('abort', stop, { once: true });
    });
  }

  /**
   * A person's answer; `remember` asks for a scoped rule (this session, or the whole project, for
   * `ttlMs`). A rule that cannot be made is refused before anything is decided, so the card stays
   * as it was and the person answers again.
   */
  async answer(id: string, verdict: Verdict, remember?: { ttlMs: number; scope?: RememberScope }): Promise<Transition & { rule?: RememberedRule }> {
    const approval = this.get(id);
    if (approval === undefined) return { ok: false, code: 'APPROVAL_UNKNOWN', reason: `no approval \`${id}\`` };
    const refused = remember === undefined || verdict.verdict !== 'approve' ? undefined : rememberRefusal(approval, remember.scope ?? 'session');
    if (refused !== undefined) return { ok: false, code: 'REMEMBER_REFUSED', reason: refused };
    // INVARIANT: one answer per card. A second answer arriving while the first is being written is
    // refused, and an answer whose card changed meanwhile (HALT, expiry, withdrawn) does not take
    // effect: the last writer must not win (red team, session 32: a deny answered 200 and the
    // action still ran).
    if (this.answering.has(id)) return { ok: false, code: 'APPROVAL_NOT_PENDING', reason: 'another answer to this approval is being recorded' };
    const result = decideApproval(approval, verdict, this.now());
    if (result.ok) this.answering.add(id);
    try {
      return await this.settleAnswer(approval, verdict, result, remember);
    } finally {
      this.answering.delete(id);
    }
  }

  private async settleAnswer(approval: Approval, verdict: Verdict, result: Transition, remember: { ttlMs: number; scope?: RememberScope } | undefined): Promise<Transition & { rule?: RememberedRule }> {
    const id = approval.approval_id;
    await this.audit({
      kind: 'approval',
      ts: this.now().toISOString(),
      actor: verdict.approver.id,
      action_id: approval.trace_id,
      tool: approval.tool,
      tier: approval.tier,
      outcome: result.ok ? result.approval.state : `refused:${result.code}`,
      detail: { approval_id: id, ...(verdict.message === undefined ? {} : { message: verdict.message }) },
    });
    if (!result.ok) return result;
    if (this.approvals.get(id) !== approval) return this.voided(approval, verdict, false);
    let rule: RememberedRule | undefined;
    if (remember !== undefined && result.approval.state === 'approved') {
      const made = rememberFrom(result.approval, { id: `rr_${randomBytes(12).toString('hex')}`, ttlMs: remember.ttlMs, now: this.now(), scope: remember.scope ?? 'session' });
      if (made.ok) {
        rule = made.rule;
        await this.audit({ kind: 'approval', ts: this.now().toISOString(), actor: verdict.approver.id, action_id: approval.trace_id, tool: approval.tool, tier: approval.tier, outcome: 'remember', detail: { rule: rule.id, scope: rule.session === null ? 'project' : 'session', project: rule.project, session: rule.session, expires_at: rule.expires_at } });
      }
    }
    // INVARIANT: nothing awaits between this check and settle, so a HALT (or expiry) that came
    // during any of the audit writes above wins (red team, session 32: it came during the
    // remember record's write, and `approved` was written over `cancelled`).
    if (this.approvals.get(id) !== approval || (rule !== undefined && this.halted)) return this.voided(approval, verdict, rule !== undefined);
    if (rule !== undefined) this.remembered = [...this.remembered, rule];
    this.settle([result.approval], rule === undefined ? [] : [{ op: 'rules', value: this.remembered }]);
    return rule === undefined ? result : { ...result, rule };
  }

  /**
   * An answer whose card changed while it was being recorded (a HALT, an expiry, a withdrawal):
   * it takes no effect, and the log says so after its own record of the answer.
   */
  private async voided(approval: Approval, verdict: Verdict, remembered: boolean): Promise<Transition> {
    const state = this.approvals.get(approval.approval_id)?.state ?? 'gone';
    const reason = `the answer came as the approval became ${state}; it did not take effect${remembered ? ', and nothing is remembered' : ''}`;
    await this.audit({ kind: 'approval', ts: this.now().toISOString(), actor: verdict.approver.id, action_id: approval.trace_id, tool: approval.tool, tier: approval.tier, outcome: 'refused:APPROVAL_NOT_PENDING', detail: { approval_id: approval.approval_id, reason } }).catch(() => undefined);
    return { ok: false, code: 'APPROVAL_NOT_PENDING', reason: `the approval is ${state}` };
  }

  /** Revokes a remembered rule at once (the desktop's Forget); false when there was none. */
  async forget(id: string, by: string): Promise<boolean> {
    const rule = this.remembered.find((r) => r.id === id);
    if (rule === undefined) return false;
    this.remembered = this.remembered.filter((r) => r.id !== id);
    this.record([{ op: 'rules', value: this.remembered }]);
    await this.audit({ kind: 'approval', ts: this.now().toISOString(), actor: by, tool: rule.tool, outcome: 'forgotten', detail: { rule: id, uses: rule.uses ?? 0 } });
    return true;
  }

  /** At execution: single use, same arguments, not expired (SPEC §7). Remembered rules: still valid. */
  consume(id: string, args: Readonly<Record<string, unknown>>): Transition | { ok: true; approval?: undefined } {
    const hash = this.argHash(args);
    if (id.startsWith('rr_')) {
      const rule = this.remembered.find((r) => r.id === id && Date.parse(r.expires_at) > this.now().getTime());
      if (rule === undefined || rule.arg_hash !== hash) return { ok: false, code: 'APPROVAL_NOT_APPROVED', reason: 'the remembered rule expired or does not cover these arguments' };
      return { ok: true };
    }
    const approval = this.get(id);
    if (approval === undefined) return { ok: false, code: 'APPROVAL_UNKNOWN', reason: `no approval \`${id}\`` };
    const result = consumeApproval(approval, hash, this.now());
    if (!result.ok) return result;
    const changed = this.subjectChanged(approval, args);
    if (changed !== undefined) return { ok: false, code: 'APPROVAL_ARGS_CHANGED', reason: changed };
    this.settle([result.approval]);
    return result;
  }

  /** An approved action ORACLE ran has ended: its card says how (shared/approval-card.ts `outcome`). */
  finished(id: string, outcome: { readonly ok: boolean; readonly code: string | null }): void {
    const approval = this.get(id);
    if (approval?.state !== 'consumed' || approval.outcome !== undefined) return;
    this.settle([{ ...approval, outcome }]);
  }

  /**
   * Why what a delete's card showed is not what is at the path now, if it is not (red team,
   * session 32: an approved delete of a file removed the folder the agent then moved there).
   */
  private subjectChanged(approval: Approval, args: Readonly<Record<string, unknown>>): string | undefined {
    const shown = (approval.preview as { target?: Partial<CardSubject> }).target;
    const path = args['path'];
    if (approval.tool !== 'fs.delete' || shown?.fingerprint === undefined || typeof path !== 'string' || this.subject === undefined) return undefined;
    const now = this.subject(path);
    if (now.fingerprint === shown.fingerprint) return undefined;
    return `what is at \`${path}\` changed since the card was shown (${describeSubject(shown)} then, ${describeSubject(now)} now); ask again`;
  }

  /** Withdraws one waiting approval (its asker stopped waiting); it can no longer be granted. */
  withdraw(id: string): void {
    const a = this.approvals.get(id);
    if (a?.state === 'pending') this.ended([cancel(a, this.now())], 'oracle', WITHDRAWN);
  }

  /**
   * The gate is stopping: everyone still waiting is answered now as refused (`GATE_STOPPED`), with
   * every timer cleared, so the process can end at once. The approvals themselves stay as they
   * are, persisted: a restarted gate still has them (SPEC §7).
   */
  releaseWaiters(): void {
    this.stopping = true;
    for (const [id, set] of [...this.waiters]) {
      this.waiters.delete(id);
      for (const wake of [...set]) wake(undefined);
    }
  }

  /** Withdraws the waiting approval of one action (its asker will not run it any more). */
  withdrawFor(traceId: string): void {
    const cancelled = [...this.approvals.values()].filter((a) => a.trace_id === traceId && a.state === 'pending').map((a) => cancel(a, this.now()));
    if (cancelled.length > 0) this.ended(cancelled, 'oracle', WITHDRAWN);
  }

  /** The gate is closing: the journal's file is let go (its changes are already durable). */
  close(): void {
    clearInterval(this.sweeper);
    this.file.close();
  }

  /** After a resume, approvals may be asked for again. */
  reopen(): void {
    this.halted = false;
  }

  /**
   * HALT: every waiting action is cancelled (it will be denied), and no new one waits. Each card
   * says who halted (`by`: `desktop`, `cli` or `device:<id>`), so a screen can say "cancelled by HALT from Pixel 8".
   */
  cancelAll(by = 'desktop'): number {
    this.halted = true;
    const who = by.startsWith('device:') ? by.slice('device:'.length) : by;
    // One journal append for all of them: HALT with a thousand waiting is one fsync, not a thousand.
    const cancelled = [...this.approvals.values()].filter((a) => a.state === 'pending' || a.state === 'approved').map((a) => cancel(a, this.now(), { device: who, message: 'HALT' }));
    if (cancelled.length > 0) this.ended(cancelled, by, 'cancelled by HALT');
    // Remembered answers are standing approvals: a HALT ends them too, each on the record, so
    // after a resume every action is asked again (red team, session 32).
    const forgotten = this.remembered;
    if (forgotten.length > 0) {
      this.remembered = [];
      this.record([{ op: 'rules', value: this.remembered }]);
      const ts = this.now().toISOString();
      for (const rule of forgotten) this.audit({ kind: 'approval', ts, actor: by, tool: rule.tool, outcome: 'forgotten', detail: { rule: rule.id, uses: rule.uses ?? 0, reason: 'HALT' } }).catch(() => undefined);
    }
    return cancelled.length;
  }

  private expire(id: string): Approval | undefined {
    const a = this.approvals.get(id);
    if (a === undefined) return undefined;
    const next = expireDue(a, this.now());
    if (next !== a) this.ended([next], 'oracle', EXPIRED);
    return next;
  }

  /**
   * Waits that end without a person's answer (withdrawn, HALT, expiry): the new states, and for
   * each its action's last record in the audit log, so no action stops at `requested` (SPEC §7).
   * An audit that cannot be written has already put the log in its degraded mode; the card ends
   * anyway (it denies).
   */
  private ended(changed: readonly Approval[], actor: string, why: string): void {
    this.settle(changed);
    const ts = this.now().toISOString();
    for (const a of changed) {
      this.audit({ kind: 'approval', ts, actor, action_id: a.trace_id, tool: a.tool, tier: a.tier, outcome: a.state, detail: { approval_id: a.approval_id, reason: why } }).catch(() => undefined);
    }
  }

  /** New states, durable in one journal append before anyone hears of them. */
  private settle(changed: readonly Approval[], also: readonly Change[] = []): void {
    for (const approval of changed) this.approvals.set(approval.approval_id, approval);
    // A request is kept while its approval may still let it run.
    const ended = changed.filter((a) => a.state !== 'pending' && a.state !== 'approved' && this.requests.delete(a.approval_id));
    this.record([...changed.map((value): Change => ({ op: 'approval', value })), ...also, ...ended.map((a): Change => ({ op: 'request', id: a.approval_id, value: null }))]);
    for (const approval of changed) {
      this.onChange(approval);
      for (const wake of [...(this.waiters.get(approval.approval_id) ?? [])]) wake(approval);
    }
  }

  private record(changes: readonly Change[]): void {
    this.file.append(changes);
    if (this.file.journalLength >= COMPACT_AFTER) this.compact();
  }

  /** Folds the journal into a snapshot of what matters: everything pending or granted, and the last day of the rest. */
  private compact(): void {
    const horizon = this.now().getTime() - 86_400_000;
    for (const [id, a] of this.approvals) if (a.state !== 'pending' && a.state !== 'approved' && Date.parse(a.requested_at) <= horizon) this.approvals.delete(id);
    for (const id of this.requests.keys()) {
      const state = this.approvals.get(id)?.state;
      if (state !== 'pending' && state !== 'approved') this.requests.delete(id);
    }
    this.file.compact({ approvals: [...this.approvals.values()], remembered: this.remembered, sessions: {}, requests: Object.fromEntries(this.requests) });
  }
}

const EXPIRED = 'nobody answered before it expired; expiry means deny';
const WITHDRAWN = 'withdrawn: its caller stopped waiting (cancelled, or its connection closed)';
const LOST = 'withdrawn: the gate stopped while its caller waited, and that caller cannot come back for it';

const STOPPED: Grant = { kind: 'refused', code: 'GATE_STOPPED', message: 'the gate stopped before anyone answered; denied' };

function grantOf(approval: Approval): Grant {
  switch (approval.state) {
    case 'approved':
      return { kind: 'approved', approvalId: approval.approval_id };
    case 'pending':
      return { kind: 'pending', approvalId: approval.approval_id };
    case 'denied':
      return { kind: 'refused', code: 'APPROVAL_DENIED', message: approval.message ?? `denied by ${approval.device ?? 'a person'}` };
    case 'expired':
      return { kind: 'refused', code: 'APPROVAL_EXPIRED', message: 'nobody approved it in time; expiry means deny' };
    case 'cancelled':
      return approval.message === 'HALT' ? { kind: 'refused', code: 'HALTED', message: 'cancelled by HALT' } : { kind: 'refused', code: 'CANCELLED', message: 'withdrawn: its caller stopped waiting' };
    case 'consumed':
      return { kind: 'refused', code: 'APPROVAL_REPLAY', message: 'the approval was already used' };
  }
}

/**
 * The card's arguments, redacted (SPEC §6): as values, and under secret-looking keys as a whole.
 * A program's `secrets` (variable → secret name) are names, which the key rule would hide
 * (`DEPLOY_TOKEN: [REDACTED]`) and the person must see: they are redacted as text only.
 */
function cardPreview(tool: string, args: Readonly<Record<string, unknown>> | null, extra: Readonly<Record<string, unknown>>, known: readonly string[]): Record<string, unknown> {
  const named = tool === 'exec.run_with_secrets' && args !== null && typeof args['secrets'] === 'object' && args['secrets'] !== null ? (args['secrets'] as Readonly<Record<string, unknown>>) : undefined;
  if (named === undefined) return redactDeep({ tool, args, ...extra }, known).value as Record<string, unknown>;
  const { secrets: _names, ...rest } = args ?? {};
  const shown = redactDeep({ tool, args: rest, ...extra }, known).value as Record<string, unknown> & { args: Record<string, unknown> };
  const text = (v: unknown): string => redact(typeof v === 'string' ? v : '', known).text;
  return { ...shown, args: { ...shown.args, secrets: Object.fromEntries(Object.entries(named).map(([variable, name]) => [text(variable), text(name)])) } };
}

/** What is at a path, as a delete's card shows it (adapters/agent/files.ts subjectOf). */
export interface CardSubject {
  readonly kind: 'missing' | 'file' | 'dir' | 'link' | 'other';
  readonly bytes?: number;
  readonly entries?: number;
  readonly over?: boolean;
  readonly fingerprint: string;
}

function describeSubject(s: Partial<CardSubject>): string {
  switch (s.kind) {
    case 'file':
      return `a file of ${String(s.bytes ?? 0)} bytes`;
    case 'dir':
      return s.over === true ? `a folder of more than ${String(s.entries ?? 0)} entries` : `a folder of ${String(s.entries ?? 0)} entries`;
    case 'missing':
      return 'nothing';
    case 'link':
      return 'a link';
    case 'other':
    case undefined:
      break;
  }
  return 'something else';
}
