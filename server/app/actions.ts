import { deny } from '../../shared/decision.js';
import type { AuditAppender } from '../adapters/audit/appender.js';
import { randomHex } from '../adapters/random-pool.js';
import { sha256Text } from '../adapters/audit/appender.js';
import { canonicalJson, type AuditBody } from '../core/audit/record.js';
import { durably, runAction, type Grant, type RunResult } from '../core/lifecycle/run-action.js';
import { actionBase, decisionRecord } from '../core/lifecycle/action-records.js';
import type { Executed, PreparedAction } from '../core/lifecycle/execution.js';
import { evaluate, type Evaluation } from '../core/decide/decide.js';
import type { ActionFacts, GateMode } from '../core/decide/context.js';
import { editAsWrite } from '../core/tools/edit-as-write.js';
import { hideKnown, redactDeep } from '../core/redact/index.js';
import { actionRequestSchema } from '../../shared/action.js';
import type { ProvenanceEntry } from '../../shared/provenance.js';
import type { Toolhost } from '../toolhost/open.js';
import { applyUndo } from '../toolhost/undo.js';
import { keepForAgentWrite } from '../toolhost/executors/fs.js';
import { confirmChanges, keepChanges } from '../toolhost/agent-changes.js';
import { currentText, rawText } from '../toolhost/preview.js';
import { searchReach } from '../toolhost/search-reach.js';
import { treeChangeOf, treeVerdict } from '../toolhost/tree-reach.js';
import type { ExecutionResult } from '../toolhost/types.js';
import type { RecordedCall } from '../hook/claude-code.js';
import type { ApprovalDesk } from './approval-desk.js';
import { authorizeCall, type CallAnswer, type CallRequest } from './call-authorizer.js';
import type { EventHub } from './events.js';
import type { GateState } from './gate-policy.js';
import type { TaintLedger } from './taint-ledger.js';
import { lookUpFacts } from './action-facts.js';
import { unrunnableProgram } from '../core/decide/toolhost-runnable.js';
import { FinishedResults } from './finished-results.js';

/**
 * What agents ask of the gate (SPEC §7, §11): an action judged, run, submitted to wait for a
 * person or continued after one answered; one tool call of an agent that runs its own tools; an
 * undo. Each goes through the one lifecycle (core/lifecycle/run-action.ts) or the call authorizer,
 * with the decision, approvals, taint and audit the runtime composed (runtime.ts).
 */
export interface Actions {
  run(action: unknown): Promise<RunResult>;
  /** The decision run() would act on (an edit as the write it makes), without running or auditing anything. */
  judge(action: unknown, agent?: string): Evaluation;
  /**
   * The lifecycle for callers that can wait (SPEC §7, §11): needs-approval waits up to `waitMs`
   * for a person, or comes back with the approval id to wait on later.
   */
  submit(action: unknown, waitMs: number, agent?: string, signal?: AbortSignal): Promise<RunResult>;
  /**
   * Wait again on an approval a submit returned (the resumable continuation); only its agent may.
   * `signal` ends the wait when the caller goes away (the card stays) and withdraws a run it
   * started. Once the action ran, asking again returns the same result for a while (a caller cut
   * off mid-wait loses nothing), never a second run.
   */
  continueAction(approvalId: string, waitMs: number, agent?: string, signal?: AbortSignal): Promise<RunResult | undefined>;
  /**
   * One tool call of an agent that executes its own tools (Claude Code's hook, SPEC §11): every
   * part judged and audited, one card when a person must decide, spent at once; nothing runs here.
   */
  authorizeCall(call: CallRequest, waitMs: number, agent: string): Promise<CallAnswer>;
  /** Audits one hook answer of an agent that runs its own tools (SPEC §11: every decision audited). */
  recordCall(call: RecordedCall, agent: string): Promise<void>;
  /** Marks a session as having read foreign or external content (a PostToolUse report). */
  taint(session: string, read: readonly ProvenanceEntry[]): void;
  /** The agent reports a call done (PostToolUse): its kept changes now know what it left. */
  confirmCall(callId: string, session?: string): Promise<boolean>;
  undo(id: string): Promise<ExecutionResult>;
}

export interface ActionsDeps {
  /** The policy in force now (a reload replaces it). */
  readonly gate: () => GateState;
  readonly audit: AuditAppender;
  readonly desk: ApprovalDesk;
  readonly taint: TaintLedger;
  readonly toolhost: Toolhost;
  readonly events: EventHub;
  /** The mode every decision reads (the policy's, or halted). */
  readonly mode: () => GateMode;
  readonly now: () => Date;
  /** Who the gate's own records name (`server`, `cli`, …). */
  readonly actor: string;
  /** Each action running now, by id (HALT reports them), with what HALT aborts it by. */
  readonly inFlight: Map<string, AbortController>;
}

const PREVIEW_CHARS = 160;

/** Every action's id, minted here only: 96 random bits. */
const newActionId = (): string => `ac_${randomHex(12)}`;
/** An Edit is judged on the whole file it leaves; as large as a hook payload may be. */
const EDIT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Arguments as the audit log shows them (SPEC §6, §7): redacted first, as whole values, then cut
 * short; so a secret is never split by the cut before the sink could see it.
 */
function previewArgs(args: Readonly<Record<string, unknown>> | null, known: readonly string[]): string {
  if (args === null) return '';
  // Only the start of a long string is shown: only that is redacted (a Write's 8 MiB content cost
  // 5.6 s of the gate's thread for a 160-character preview: red team, session 31).
  const { value } = redactDeep(startsOf(args, 0), known);
  const short = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'string') return v.length > PREVIEW_CHARS ? `${v.slice(0, PREVIEW_CHARS)}…(+${String(v.length - PREVIEW_CHARS)})` : v;
    const cut = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[CUT] : undefined;
    return Array.isArray(cut) ? `${String(cut[0]).slice(0, PREVIEW_CHARS)}…(+${String(Number(cut[1]) - PREVIEW_CHARS)})` : v;
  });
  return short.length > 2048 ? `${short.slice(0, 2048)}…` : short;
}

/**
 * Long strings cut to what a preview could show of them (with room for a secret that starts
 * inside), as `{[CUT]: [start, length]}`, so the preview still says how much was left out.
 */
function startsOf(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > PREVIEW_SOURCE_CHARS ? { [CUT]: [value.slice(0, PREVIEW_SOURCE_CHARS), value.length] } : value;
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => startsOf(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, startsOf(v, depth + 1)]));
}
const PREVIEW_SOURCE_CHARS = 4096;
const CUT = '\u0000cut';

export function createActions(deps: ActionsDeps): Actions {
  const { gate, desk, taint, toolhost, events, mode, now, inFlight } = deps;
  // Every record written here: reasons and details quote arguments and what came back (a host, a
  // header name, an error), so a stored secret's value among them is hidden, as in the argument
  // previews (also lower-cased: a host name). Strings without one are written exactly as they are.
  const audit = { append: (body: AuditBody) => deps.audit.append(hideKnown(body, toolhost.env.knownSecrets())), writable: () => deps.audit.writable() };
  /** What happened after an action ran waits for a full disk to clear; never dropped while the gate runs. */
  const appendOrWait = { audit: (body: AuditBody) => audit.append(body), auditWritable: () => audit.writable() };
  const digest = (value: unknown): string => `sha256:${sha256Text(canonicalJson(value))}`;
  // A value in the secret store is hidden in the log too, wherever the model put it.
  const preview = (args: Readonly<Record<string, unknown>> | null): string => previewArgs(args, toolhost.env.knownSecrets());
  // Continuations: what a waiting action needs to run once its approval comes.
  const continuations = new Map<string, { evaluation: Evaluation; actionId: string; agent: string | undefined }>();
  // What a continued action ended with, for its agent to ask again (see Actions.continueAction).
  const finished = new FinishedResults();

  /** Facts only I/O learns for this action (action-facts.ts). */
  const lookUp = (action: unknown): Promise<ActionFacts | undefined> => lookUpFacts(action, { gate: gate(), toolhost, mode: mode() });
  /** The same for a part of an agent's tool call, which the agent's runtime runs (Claude Code). */
  const lookUpForAgent = (action: unknown): Promise<ActionFacts | undefined> => lookUpFacts(action, { gate: gate(), toolhost, mode: mode(), agentRuns: true });

  /**
   * The session's sticky taint feeds every decision, with what the action says it read (the
   * lifecycle then adds that to the ledger; judging changes nothing). An edit (fs.replace) is
   * judged as the exact write it makes (core/tools/edit-as-write.ts).
   */
  const judge = (action: unknown, agent?: string, facts?: ActionFacts): Evaluation =>
    editAsWrite(action, { judge: (a) => judgeOne(a, agent, facts), read: (path) => rawText(path, EDIT_MAX_BYTES) }) ?? judgeOne(action, agent, facts);
  const judgeOne = (action: unknown, agent?: string, facts?: ActionFacts): Evaluation => {
    const request = actionRequestSchema.safeParse(action);
    const session = request.success ? request.data.session : undefined;
    // A credentialed agent is its own principal: its policy ceiling, or nothing at all.
    const { context } = gate();
    const principal = agent === undefined ? context.principal : { name: agent, capabilities: context.gate.policy.agents.get(agent)?.capabilities ?? new Set<never>() };
    return evaluate(action, { ...context, mode: mode(), principal, runtime: taint.state(session), ...(facts === undefined ? {} : { facts }) });
  };

  const execute = async (prepared: PreparedAction): Promise<Executed> => {
    // HALT may have landed between the decision and now: check again at the boundary.
    if (mode() === 'halted') return { result: { ok: false, error: { code: 'HALTED', message: 'the gate was halted before this action started' } } };
    // HALT aborts this (reason HALT_ABORT): a job running is killed, a fetch stops, and an executor
    // of several steps starts none after it (red team, session 33: a git.commit's add and commit ran
    // after HALT had killed its first step).
    const halt = new AbortController();
    inFlight.set(prepared.actionId, halt);
    try {
      const signal = prepared.signal === undefined ? halt.signal : AbortSignal.any([prepared.signal, halt.signal]);
      const executed = await toolhost.boundary.execute({ ...prepared, signal });
      events.publish('action.finished', { action_id: prepared.actionId, tool: prepared.tool, tier: prepared.decision.tier, ok: executed.result.ok, error: executed.result.error?.code ?? null });
      // Every egress is its own audit event (and a desktop event): where it went, what it reached.
      const egress = (event: { url: unknown; address: string | null; status: number | null }, outcome: string, detail: Readonly<Record<string, unknown>>): Promise<unknown> => {
        events.publish('egress', hideKnown({ action_id: prepared.actionId, ...event, ...(prepared.tool === 'net.fetch' ? {} : { outcome }) }, toolhost.env.knownSecrets()), 'desktop');
        return durably({ kind: 'egress', ts: now().toISOString(), actor: deps.actor, action_id: prepared.actionId, tool: prepared.tool, outcome, detail }, appendOrWait);
      };
      if (prepared.tool === 'net.fetch') {
        const out = (executed.result.output ?? {}) as { url?: string; address?: string; status?: number };
        // The URL as the log and the screen may show it: a stored secret in it is hidden (the fetch was refused).
        const url = toolhost.env.redact(prepared.args.url, []);
        await egress({ url, address: out.address ?? null, status: out.status ?? null }, executed.result.error?.code ?? 'ok', { url, method: prepared.args.method, ...(out.address === undefined ? {} : { address: out.address, status: out.status, final_url: out.url }), ...secretsNamed(prepared.args.secrets) });
      }
      // A network-capable job's connections through its egress proxy, allowed or refused.
      for (const c of executed.result.egress ?? []) {
        await egress({ url: `${c.host}:${c.port}`, address: c.address ?? null, status: null }, c.outcome, { via: 'job egress proxy', host: c.host, port: c.port, ...(c.address === undefined ? {} : { address: c.address }), bytes_out: c.bytes_out, bytes_in: c.bytes_in, ...(c.reason === undefined ? {} : { reason: c.reason }) });
      }
      return executed;
    } finally {
      inFlight.delete(prepared.actionId);
    }
  };

  // Terminal records are idempotent on actionId:state (SPEC §7): a retried write is not a second event.
  const written = new Set<string>();
  const auditOnce = (body: AuditBody): Promise<unknown> => {
    const once = body.kind === 'dispatched' || body.kind === 'succeeded' || body.kind === 'failed' || body.kind === 'cancelled';
    const key = `${body.action_id ?? ''}:${body.kind}`;
    if (once && written.has(key)) return Promise.resolve();
    return audit.append(body).then((record) => {
      if (once) written.add(key);
      // Bounded: a retry comes within moments, not after ten thousand other actions.
      if (written.size > 10_000) for (const old of [...written].slice(0, 1000)) written.delete(old);
      return record;
    });
  };

  /**
   * A folder the gate itself moves or deletes (tree-reach.ts): refused at the decision when that
   * would change what the policy hides, so nobody is asked to approve what could never run. (The
   * executor checks again when it acts; the hook's calls are weighed in call-authorizer.ts.)
   */
  const treeChecked = (action: unknown, agent: string | undefined, facts: ActionFacts | undefined): Evaluation | Promise<Evaluation> => {
    const judged = judge(action, agent, facts);
    // A program the toolhost could never start is refused now, not shown on a card (toolhost-runnable.ts).
    const unrunnable = unrunnableProgram(judged, gate().context.pins);
    const evaluation = unrunnable === undefined ? judged : { ...judged, decision: unrunnable };
    const change = treeChangeOf(evaluation);
    if (change === undefined || evaluation.decision.decision === 'deny') return evaluation;
    const walkedBy = toolhost.env.gate;
    // A HALT stops the walk too: the action is then judged again, and denied.
    return treeVerdict(walkedBy, change, { halted: () => mode() === 'halted' }).then((verdict) => {
      // The walk gave way to others: a HALT or a new policy may have landed meanwhile. The action
      // is judged again; what it says now stands, and the walk's answer only if it is of the same
      // change, judged by the policy in force.
      const now = judge(action, agent, facts);
      if (now.decision.decision === 'deny') return now;
      if (toolhost.env.gate !== walkedBy || JSON.stringify(treeChangeOf(now)) !== JSON.stringify(change)) return { ...now, decision: deny('PATH_UNRESOLVABLE', 'tree', ['what the action names changed while ORACLE looked through the folder (a new policy, or the path itself); ask again']) };
      if (verdict.kind === 'refused') return { ...now, decision: deny('PATH_DENY_ALWAYS', verdict.rule, [verdict.reason]) };
      // The executor would refuse what cannot be checked whole: refused now, before any card.
      return verdict.kind === 'unknown' ? { ...now, decision: deny('PATH_UNRESOLVABLE', 'tree', [verdict.reason]) } : now;
    });
  };
  const lifecycle = (obtainApproval?: (evaluation: Evaluation, actionId: string) => Promise<Grant>, agent?: string, facts?: ActionFacts) => ({
    evaluate: (action: unknown) => treeChecked(action, agent, facts),
    read: (session: string | undefined, read: readonly ProvenanceEntry[]) => {
      taint.read(session, read);
    },
    audit: auditOnce,
    execute,
    now,
    newActionId,
    digest,
    preview,
    actor: deps.actor,
    auditWritable: appendOrWait.auditWritable,
    ...(obtainApproval === undefined ? {} : { obtainApproval }),
  });
  /** Before an agent's own runtime writes a whole file, what it replaces goes to the undo store. */
  const keepUndo = async (path: string, content: string, actionId: string): Promise<{ ok: true; undoId: string; created: boolean } | { ok: false; reason: string }> => {
    try {
      const kept = await keepForAgentWrite(toolhost.env, { path, content: Buffer.from(content, 'utf8'), actionId });
      return kept.ok ? { ok: true, undoId: kept.id, created: kept.created } : { ok: false, reason: kept.result.error?.message ?? 'the undo store refused it' };
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : 'the current file could not be read' };
    }
  };

  /** The decision record of an action its caller executes itself (the hook's agents). */
  const auditDecision = (evaluation: Evaluation, actor: string): { actionId: string; durable: Promise<unknown> } => {
    const actionId = newActionId();
    const durable = audit.append(decisionRecord(actionBase(evaluation, { actionId, actor, now, digest, preview }), evaluation, 'caller-executes'));
    return { actionId, durable };
  };

  /** The lifecycle for callers that can wait (see Actions.submit). */
  const submit: Actions['submit'] = async (action, waitMs, agent, signal) => {
    const steps = lifecycle(
      async (evaluation, actionId) => {
        // A caller that withdraws while a person is asked withdraws the card too.
        const withdraw = (): void => {
          desk.withdrawFor(actionId);
        };
        signal?.addEventListener('abort', withdraw, { once: true });
        try {
          const grant = await desk.obtain(evaluation, actionId, { waitMs, project: evaluation.paths[0]?.root.real ?? null, agent });
          if (grant.kind === 'pending' && signal?.aborted !== true) {
            continuations.set(grant.approvalId, { evaluation, actionId, agent });
            desk.keepRequest(grant.approvalId, { action, agent: agent ?? null, action_id: actionId });
          }
          return signal?.aborted === true && grant.kind !== 'approved' ? { kind: 'refused', code: 'CANCELLED', message: 'the caller withdrew the action while a person was asked; the card is withdrawn' } : grant;
        } finally {
          signal?.removeEventListener('abort', withdraw);
        }
      },
      agent,
      await lookUp(action),
    );
    const result = await runAction(action, signal === undefined ? steps : { ...steps, signal });
    endedApproval(result);
    return result.tool === 'agent.delegate' ? writeBack(result, action, agent) : result;
  };

  /** An approved action that ran (or was refused at the boundary): its card says how it ended. */
  const endedApproval = (result: RunResult): void => {
    if (result.approval_id === undefined || result.status === 'pending') return;
    desk.finished(result.approval_id, { ok: result.executed && result.error === undefined, code: result.error?.code ?? null });
  };

  /**
   * What a delegate the gate ran left behind goes back into `out_dir` through the boundary: each
   * file an fs.write of the same agent and session, judged like any other (the delegate's answer
   * tainted the session, so a write usually waits for a person: its card, or its approval id).
   */
  const writeBack = async (result: RunResult, action: unknown, agent: string | undefined): Promise<RunResult> => {
    const outDir = result.args?.['out_dir'];
    const files = (result.output as { files?: readonly { name: string; text: string }[] } | undefined)?.files;
    if (!result.executed || typeof outDir !== 'string' || files === undefined || files.length === 0) return result;
    const session = (action as { session?: unknown } | null)?.session;
    const writes: { path: string; status: string; tier: string; approval_id?: string; error?: string }[] = [];
    for (const file of files) {
      const path = `${outDir}/${file.name}`;
      // It says what it carries: the delegate's answer (foreign), so it is judged as tainted even
      // when the delegation named no session.
      const provenance = [{ kind: 'external', source: `the delegate agent's file ${file.name}` }];
      const write = { tool: 'fs.write', args: { path, content: file.text }, provenance, ...(typeof session === 'string' ? { session } : {}) };
      // As if the agent had submitted it, without waiting: a card it can wait on later.
      const outcome = await submit(write, 0, agent);
      writes.push({ path, status: outcome.status, tier: outcome.tier, ...(outcome.approval_id === undefined ? {} : { approval_id: outcome.approval_id }), ...(outcome.error === undefined ? {} : { error: `${outcome.error.code}: ${outcome.error.message}` }) });
    }
    return { ...result, output: { ...(result.output as object), writes } };
  };

  return {
    judge: (action, agent) => judge(action, agent),
    run: async (action) => runAction(action, lifecycle(undefined, undefined, await lookUp(action))),
    submit,
    async continueAction(approvalId, waitMs, agent, signal) {
      const ended = finished.get(approvalId, agent, now());
      if (ended !== undefined) return ended;
      let saved = continuations.get(approvalId);
      if (saved === undefined) {
        // After a restart: decide the kept request again. The approval is spent only if the
        // arguments resolve to exactly what the person approved (the boundary checks arg_hash).
        const kept = desk.request(approvalId);
        if (kept === undefined || kept.agent !== (agent ?? null)) return undefined;
        saved = { evaluation: judge(kept.action, agent, await lookUp(kept.action)), actionId: kept.action_id, agent };
      }
      if (saved.agent !== agent) return undefined;
      const grant = await desk.wait(approvalId, waitMs, signal);
      if (grant.kind !== 'pending') continuations.delete(approvalId);
      const evaluation = saved.evaluation;
      const steps = { ...lifecycle(() => Promise.resolve(grant)), evaluate: () => evaluation, newActionId: () => saved.actionId };
      const ran = await runAction(null, signal === undefined ? steps : { ...steps, signal });
      endedApproval(ran);
      // An approved delegation writes its files back as one that needed nobody would.
      const result = ran.tool === 'agent.delegate' ? await writeBack(ran, { session: evaluation.session }, agent) : ran;
      if (grant.kind !== 'pending') finished.keep(approvalId, agent, result, now());
      return result;
    },
    authorizeCall: (call, waitMs, agent) =>
      authorizeCall(
        {
          mode,
          judge,
          lookUp: lookUpForAgent,
          auditDecision,
          desk,
          taint,
          currentText: (path) => currentText(path, EDIT_MAX_BYTES),
          keepUndo,
          keepChanges: (changes, meta) => keepChanges(toolhost.env, { changes, ...meta }),
          dropChanges: (id) => {
            toolhost.env.undo.drop(id);
          },
          made: toolhost.env.made,
          searchReach: (start, search) => searchReach(start, search, toolhost.env),
          treeChange: (change) => treeVerdict(toolhost.env.gate, change, { halted: () => mode() === 'halted', current: () => toolhost.env.gate }),
        },
        call,
        waitMs,
        agent,
      ),
    confirmCall: (callId, session) => {
      toolhost.env.made.confirm(callId, session);
      return confirmChanges(toolhost.env, callId);
    },
    async recordCall(call, agent) {
      const args = { tool: call.agentTool, input: call.input };
      await audit.append({
        kind: 'decision',
        ts: now().toISOString(),
        actor: agent,
        ...(call.session === undefined ? {} : { session: call.session }),
        tool: 'agent.call',
        args_digest: digest(args),
        args_preview: preview(args),
        decision: call.decision,
        reasons: [call.reason],
        outcome: 'hook-answer',
      });
    },
    taint: (session, read) => {
      taint.read(session, read);
    },
    async undo(id) {
      if (mode() === 'halted') return { ok: false, error: { code: 'HALTED', message: 'the gate is halted' } };
      // An undo is a side effect too: durable in the log before it touches anything.
      const body = { kind: 'undo' as const, actor: deps.actor, detail: { undo_id: id } };
      await audit.append({ ...body, ts: now().toISOString(), outcome: 'dispatched' });
      const result = await applyUndo(id, toolhost.env, () => mode() === 'halted');
      const error = result.error === undefined ? {} : { error: result.error.message };
      await audit.append({ ...body, ts: now().toISOString(), outcome: result.ok ? 'ok' : (result.error?.code ?? 'failed'), detail: { undo_id: id, ...error } });
      return result;
    },
  };
}

/** Which stored secret went in which header of a fetch (names only: a value is never recorded). */
function secretsNamed(secrets: Readonly<Record<string, { readonly name: string }>> | undefined): { secrets?: { header: string; name: string }[] } {
  return secrets === undefined ? {} : { secrets: Object.entries(secrets).map(([header, s]) => ({ header, name: s.name })) };
}
