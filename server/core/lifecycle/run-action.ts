import type { Decision } from '../../../shared/decision.js';
import type { AuditBody } from '../audit/record.js';
import type { Evaluation } from '../decide/decide.js';
import { isToolName, lookupTool } from '../tools/registry.js';
import { actionBase, decisionRecord } from './action-records.js';
import { prepareAction, type Executed, type ExecutionResult, type PreparedAction } from './execution.js';
import { provenanceOfResult } from './provenance-of.js';
import type { ProvenanceEntry } from '../../../shared/provenance.js';
import type { OracleCode } from '../../../shared/outcome-codes.js';
import type { Asked } from '../../../shared/asked.js';

/**
 * One action's whole lifecycle, on every path (SPEC §7): evaluate → what the action says its
 * session read joins the session's taint → audit the decision → (needs-approval) obtain a person's
 * answer → audit `dispatched`, durably, before anything runs → execute → what it read by running
 * joins the taint → audit the terminal state. A failed `dispatched` write means the action does not run;
 * a failed terminal write is retried until it is durable before anyone is told it ran. A read the
 * gate runs in its own process (`readsOnly` in the registry) changes nothing: it runs first, and
 * its three records are durable before its result is returned.
 *
 * How needs-approval is answered is the caller's: `submit` (REST, MCP) waits for a person or
 * returns the approval id to wait on; without `obtainApproval` (`oracle run`, headless) it is
 * refused without asking anyone. Pure: every effect is injected.
 */
export interface LifecycleDeps {
  readonly evaluate: (action: unknown) => Evaluation | Promise<Evaluation>;
  /** The session's taint grows by what it read (SPEC §4; the taint ledger). Absent: nothing is kept. */
  readonly read?: (session: string | undefined, read: readonly ProvenanceEntry[]) => void;
  /** Resolves once the record is durable; rejects when it could not be written. */
  readonly audit: (body: AuditBody) => Promise<unknown>;
  readonly execute: (action: PreparedAction) => Promise<Executed>;
  readonly now: () => Date;
  readonly newActionId: () => string;
  /** `sha256:` of the canonical arguments. */
  readonly digest: (value: unknown) => string;
  /** A redacted, bounded preview of the arguments. */
  readonly preview: (args: Readonly<Record<string, unknown>> | null) => string;
  readonly actor: string;
  /**
   * How a needs-approval action gets its answer. Absent: the caller is headless and is refused.
   * Present: it may wait for a person, be auto-approved by a remembered rule, or come back with a
   * continuation (the approval id) when nobody answered in time.
   */
  readonly obtainApproval?: (evaluation: Evaluation, actionId: string) => Promise<Grant>;
  /**
   * Aborted when the caller withdraws the action (MCP `notifications/cancelled`, a connection that
   * went away): it does not start, or its job is killed; either way its terminal record is `cancelled`.
   */
  readonly signal?: AbortSignal;
  /**
   * Resolves true once the audit log can be written again after a failure, false when it never
   * will (the gate is closing). Absent: a failed terminal record is reported at once.
   */
  readonly auditWritable?: () => Promise<boolean>;
}

/** What asking a person produced. */
export type Grant =
  | { readonly kind: 'approved'; readonly approvalId: string }
  | { readonly kind: 'refused'; readonly code: OracleCode; readonly message: string }
  /** Nobody answered in time: the id to wait on, and who could see the card then (when counted). */
  | { readonly kind: 'pending'; readonly approvalId: string; readonly asked?: Asked };

/**
 * Where an action stands when its caller is answered: it ran (`ran`, which may still carry the
 * error it ran into), it waits for a person (`pending`: not an error; wait on `approval_id`), or
 * it did not run and will not (`not-run`: denied, refused, cancelled, unrecorded).
 */
export type ActionStatus = 'ran' | 'pending' | 'not-run';

export type RunResult = Decision & {
  readonly action_id: string;
  readonly tool: string | null;
  readonly args: Readonly<Record<string, unknown>> | null;
  readonly status: ActionStatus;
  readonly executed: boolean;
  /** For a needs-approval action: the approval to wait on or that granted it. */
  readonly approval_id?: string;
  /** For a pending one: who could see its card when the caller stopped waiting (counted by the gate). */
  readonly asked?: Asked;
  /**
   * What running it brought into the session from outside the person's projects (a fetched page,
   * a dependency's file), each joining the session's taint (SPEC §4): an agent is told, not left to
   * find out from the next card.
   */
  readonly read?: readonly string[];
} & Omit<ExecutionResult, 'ok'>;

/** Omit over each member of a union (Decision is one), keeping it a union. */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What the steps answer; runAction names the status of every answer but a pending one. */
type Answer = OmitEach<RunResult, 'status'> & { readonly status?: 'pending' };

export async function runAction(action: unknown, deps: LifecycleDeps): Promise<RunResult> {
  const answer = await lifecycle(action, deps);
  return { ...answer, status: answer.status ?? (answer.executed ? 'ran' : 'not-run') };
}

async function lifecycle(action: unknown, deps: LifecycleDeps): Promise<Answer> {
  const started = deps.now().getTime();
  // Most decisions are made at once; one that walks a folder (a delete of a whole tree) gives way
  // to other agents as it goes. Only that one is awaited: a read's path stays one synchronous step.
  const evaluated = deps.evaluate(action);
  const evaluation = evaluated instanceof Promise ? await evaluated : evaluated;
  // Whatever the decision: an agent that says it read foreign content is tainted from now on.
  if (evaluation.read !== undefined) deps.read?.(evaluation.session, evaluation.read);
  const { decision, tool, args } = evaluation;
  const actionId = deps.newActionId();
  const base = actionBase(evaluation, { actionId, actor: deps.actor, now: deps.now, digest: deps.digest, preview: deps.preview });
  const line = { ...decision, action_id: actionId, tool, args };
  const headless = decision.decision === 'needs-approval' && deps.obtainApproval === undefined;
  const runnable = decision.decision === 'allow' && tool !== null && args !== null && isToolName(tool);
  const decisionBody = decisionRecord(base, evaluation, headless ? 'refused-headless' : undefined);
  const dispatchedBody = (): AuditBody => ({ ...base, ts: deps.now().toISOString(), kind: 'dispatched', tier: decision.tier, rule: decision.rule });
  // A read the gate runs in its own process changes nothing: it runs first, and its decision,
  // `dispatched` and terminal record go in one group commit, durable before its result leaves.
  // (What the INVARIANT below protects still holds: nothing changed unrecorded, and nobody saw
  // what was read until the record of it was durable.)
  if (runnable && lookupTool(tool)?.readsOnly === true && deps.signal?.aborted !== true) {
    // The signal lets a long read (a search through a large tree) stop on HALT or a caller gone.
    const executed = await deps.execute(
      prepareAction(tool, args, { actionId, paths: evaluation.paths, decision, ...(evaluation.session === undefined ? {} : { session: evaluation.session }), ...(deps.signal === undefined ? {} : { signal: deps.signal }) }),
    );
    const read = readByRunning(evaluation, executed, deps);
    try {
      await Promise.all([deps.audit(decisionBody), deps.audit(dispatchedBody()), deps.audit(terminalBody(base, executed, deps.now().getTime() - started, deps.now()))]);
    } catch (e) {
      // Read, but not recorded: the result is withheld.
      return { ...line, executed: false, error: auditError(e) };
    }
    const { ok: _ok, ...result } = executed.result;
    return { ...line, executed: true, ...result, ...read };
  }
  const decided = deps.audit(decisionBody);
  // An allowed action's `dispatched` goes with its decision, in the same group commit (one
  // write, one fsync, the decision first in the file): durable together, or neither is.
  const dispatched = runnable ? deps.audit(dispatchedBody()) : undefined;
  try {
    await Promise.all([decided, dispatched]);
  } catch (e) {
    return { ...line, executed: false, error: auditError(e) };
  }
  if (headless) {
    const who = decision.approver === 'desktop' ? 'the desktop with a typed phrase' : 'a person on a paired device';
    return { ...line, executed: false, error: { code: 'APPROVAL_REQUIRED', message: `${decision.tier} needs ${who}; a headless caller is refused` } };
  }
  let approvalId: string | undefined;
  if (decision.decision === 'needs-approval' && deps.obtainApproval !== undefined) {
    const grant = await deps.obtainApproval(evaluation, actionId);
    if (grant.kind === 'pending') return { ...line, status: 'pending', executed: false, approval_id: grant.approvalId, ...(grant.asked === undefined ? {} : { asked: grant.asked }) };
    if (grant.kind === 'refused') return { ...line, executed: false, error: { code: grant.code, message: grant.message } };
    approvalId = grant.approvalId;
  } else if (decision.decision !== 'allow') {
    return { ...line, executed: false };
  }
  // The approval that granted it travels with every answer from here on (RunResult `approval_id`).
  const granted = approvalId === undefined ? line : { ...line, approval_id: approvalId };
  if (tool === null || args === null || !isToolName(tool)) return { ...granted, executed: false };
  // INVARIANT: nothing runs unless `dispatched` is durable in the audit log (for an allowed action
  // it was written with the decision above).
  if (dispatched === undefined) {
    try {
      await deps.audit({ ...base, ts: deps.now().toISOString(), kind: 'dispatched', tier: decision.tier, rule: decision.rule, ...(approvalId === undefined ? {} : { detail: { approval_id: approvalId } }) });
    } catch (e) {
      return { ...granted, executed: false, error: auditError(e) };
    }
  }
  const withdrawn = deps.signal?.aborted === true;
  const executed: Executed = withdrawn
    ? { result: { ok: false, error: { code: 'CANCELLED', message: 'the caller withdrew the action before it started; nothing ran' } } }
    : await deps.execute(
        prepareAction(tool, args, {
          actionId,
          paths: evaluation.paths,
          decision,
          ...(approvalId === undefined ? {} : { approvalId }),
          ...(evaluation.session === undefined ? {} : { session: evaluation.session }),
          ...(deps.signal === undefined ? {} : { signal: deps.signal }),
        }),
      );
  const read = readByRunning(evaluation, executed, deps);
  const { ok: _ok, ...result } = executed.result;
  const terminal = terminalBody(base, executed, deps.now().getTime() - started, deps.now());
  // It ran: its answer waits until what happened is durable (a full disk delays it, never drops it).
  const audits: Promise<unknown>[] = [durably(terminal, deps)];
  if (result.secrets_read !== undefined && result.secrets_read.length > 0) {
    audits.push(durably({ ...base, ts: deps.now().toISOString(), kind: 'secret.access', outcome: 'read', detail: { names: result.secrets_read } }, deps));
  }
  if ((result.set_aside !== undefined && result.set_aside.length > 0) || result.set_aside_unchecked !== undefined) {
    audits.push(durably({ ...base, ts: deps.now().toISOString(), kind: 'job.planted', outcome: result.set_aside_unchecked === undefined ? 'set-aside' : 'unchecked', detail: { set_aside: result.set_aside ?? [], ...(result.set_aside_unchecked === undefined ? {} : { reason: result.set_aside_unchecked }) } }, deps));
  }
  if (executed.cleanupError !== undefined) {
    audits.push(durably({ ...base, ts: deps.now().toISOString(), kind: 'job.cleanup', outcome: 'failed', detail: { reason: executed.cleanupError } }, deps));
  }
  try {
    await Promise.all(audits);
  } catch (e) {
    // It ran; say plainly that its terminal record is missing.
    return { ...granted, executed: true, ...result, error: { code: 'AUDIT_WRITE_FAILED', message: `it ran, but its terminal audit record could not be written: ${e instanceof Error ? e.message : 'unknown error'}` } };
  }
  return { ...granted, executed: !withdrawn && executed.refused !== true, ...result, ...read };
}

/**
 * What an action read by running (a fetched page, a dependency's file) joins its session's taint;
 * its sources, as the result names them (`read`), when there were any.
 */
function readByRunning(evaluation: Evaluation, executed: Executed, deps: LifecycleDeps): { readonly read?: readonly string[] } {
  const { tool, args } = evaluation;
  if (tool === null || args === null) return {};
  // A delegate the gate ran answers with what a model wrote: foreign, whether it succeeded or not
  // (what it printed before failing is returned too). A failure can carry what was read too (a
  // 404 page's body, a test run's output): it reaches the agent all the same, so it taints all the
  // same (red team, session 31).
  const read =
    tool === 'agent.delegate'
      ? [{ kind: 'external' as const, source: `the delegate agent's answer to: ${String(args['description']).slice(0, 200)}` }]
      : executed.result.ok || carriesContent(executed.result)
        ? provenanceOfResult(tool, args)
        : [];
  if (read.length === 0) return {};
  deps.read?.(evaluation.session, read);
  return { read: read.map((r) => r.source) };
}

function carriesContent(result: ExecutionResult): boolean {
  const present = (value: unknown): boolean => value !== undefined && value !== null && value !== '';
  return present(result.output) || present(result.stdout) || present(result.stderr);
}

/** The record of how an execution ended: succeeded, cancelled or failed, with what it left. */
function terminalBody(base: Omit<AuditBody, 'kind'>, executed: Executed, durationMs: number, at: Date): AuditBody {
  const { ok, ...result } = executed.result;
  return {
    ...base,
    ts: at.toISOString(),
    kind: ok ? 'succeeded' : result.error?.code === 'CANCELLED' ? 'cancelled' : 'failed',
    outcome: ok ? 'ok' : (result.error?.code ?? 'failed'),
    duration_ms: durationMs,
    detail: {
      ...(result.exit_code === undefined ? {} : { exit_code: result.exit_code }),
      ...(result.digest === undefined ? {} : { digest: result.digest }),
      ...(result.undo_id === undefined ? {} : { undo_id: result.undo_id }),
      ...(result.sandbox === undefined ? {} : { sandbox: result.sandbox }),
      ...(result.error === undefined ? {} : { error: result.error.message }),
    },
  };
}

/** Appends, and after a failure waits for the log to be writable again and retries, until closing. */
export async function durably(body: AuditBody, deps: Pick<LifecycleDeps, 'audit' | 'auditWritable'>): Promise<unknown> {
  for (;;) {
    try {
      return await deps.audit(body);
    } catch (e) {
      // Only an outage is worth waiting out; a record that can never be written is reported now.
      const outage = typeof e === 'object' && e !== null && (e as { retryable?: unknown }).retryable === true;
      if (!outage || deps.auditWritable === undefined || !(await deps.auditWritable())) throw e;
    }
  }
}

function auditError(e: unknown): { code: OracleCode; message: string } {
  return { code: 'AUDIT_WRITE_FAILED', message: `the audit log could not be written, so nothing ran: ${e instanceof Error ? e.message : 'unknown error'}` };
}
