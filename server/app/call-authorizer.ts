import { decisionFromTier, deny, type Decision } from '../../shared/decision.js';
import { applyEdits, type TextEdit } from '../core/hook/edits.js';
import { provenanceOfResult } from '../core/lifecycle/provenance-of.js';
import type { ScopedPath } from '../core/paths/scope.js';
import { isUnderComparable } from '../core/paths/canonical.js';
import { searcherName, type EntryKind, type SearchReach, type TreeSearch } from '../core/hook/tree-search.js';
import { weighReach } from '../core/hook/search-verdict.js';
import type { ProvenanceEntry } from '../../shared/provenance.js';
import type { CurrentText } from '../toolhost/preview.js';
import type { PlannedChange } from '../toolhost/agent-changes.js';
import type { MadeFiles } from '../toolhost/made-files.js';
import { treeChangeOf, type TreeChange, type TreeVerdict } from '../toolhost/tree-reach.js';
import { lookupTool } from '../core/tools/registry.js';
import { bumpTier, maxTier, type Tier } from '../../shared/tiers.js';
import type { ApprovalDesk } from './approval-desk.js';
import type { TaintLedger } from './taint-ledger.js';
import type { Evaluation } from '../core/decide/decide.js';
import { askedText, unseen } from '../../shared/asked.js';
import type { ActionFacts, GateMode } from '../core/decide/context.js';
import { hiddenCode } from '../core/redact/hidden-code.js';
import { gitReadsOnly } from '../core/decide/git-prints.js';
import { gitRead } from '../core/decide/git-read-only.js';

/** The tool name on a card for one whole agent tool call (several parts, or a person's call). */
export const CALL_TOOL = 'agent.call';

/**
 * One tool call of an agent that runs its own tools (Claude Code), as the hook saw it: the ORACLE
 * actions it implies, and, when ORACLE cannot judge all of it from data, why a person must.
 */
export interface CallRequest {
  /** The agent's own name for the tool (`Bash`, `CronCreate`, …). */
  readonly agentTool: string;
  /** The tool's input exactly as the agent sent it (the card shows it, redacted). */
  readonly input: Readonly<Record<string, unknown>>;
  /** ORACLE actions (`{tool, args, cwd?, session?}`), each judged by the policy. */
  readonly parts: readonly Readonly<Record<string, unknown>>[];
  /** Set when some of the call is beyond the policy's data: a person decides the whole call. */
  readonly person: string | undefined;
  readonly session: string | undefined;
  /** The one part is an Edit: it is judged as these edits applied to the file as it is now. */
  readonly edits?: readonly TextEdit[];
  /** The agent's own id for this call (Claude Code's tool_use_id), which its report of the call's end names. */
  readonly callId?: string;
  /** Part by part: the read is a search of the tree below its path (`grep -r`, Grep), how that searcher searches. */
  readonly searches?: readonly (TreeSearch | undefined)[];
  /**
   * The same call in a form the agent's runtime can be told to run instead (Claude Code's
   * `updatedInput`): taken when every part of it is allowed by the policy and the call as written
   * is not; the answer then carries its input (core/hook/npx-rewrite.ts).
   */
  readonly alternative?: { readonly input: Readonly<Record<string, unknown>>; readonly parts: readonly Readonly<Record<string, unknown>>[]; readonly searches?: readonly (TreeSearch | undefined)[] };
}

export interface CallAnswer {
  readonly allowed: boolean;
  readonly reason: string;
  /**
   * Settles once every decision record of the call is durable; rejects if one could not be
   * written. The caller sends no answer before it settles (a record that cannot be written
   * denies), so its own record of the answer can join the same group commit.
   */
  readonly durable?: Promise<unknown>;
  /** Set when the call's alternative form was judged and allowed: the input the agent must run instead. */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /**
   * Set when the call was refused because a `grep -r` or `rg` in it reaches what no agent may read:
   * those entries, which the hook may offer to leave out (core/hook/search-rewrite.ts).
   */
  readonly searchHidden?: readonly { readonly name: string; readonly kind: EntryKind }[];
  /**
   * Set when the call was refused because a git command in it would print files the policy hides
   * from what git stores: those paths from the repository's top, which the hook may offer to
   * leave out (core/hook/git-rewrite.ts).
   */
  readonly gitHidden?: readonly string[];
  /**
   * Set when no person could be asked (no gate running) and all that stood in the way was what
   * only a running gate can ask git (what a git command would print, git-prints.ts): ORACLE
   * cannot judge the call, so the hook hands it to the agent's own prompt, as it does a command
   * it cannot parse.
   */
  readonly unjudged?: true;
}

export interface CallDeps {
  readonly mode: () => GateMode;
  readonly judge: (action: unknown, agent: string, facts?: ActionFacts) => Evaluation;
  /** Facts only I/O learns for a part's judgement (where a push or a fetch goes); see runtime.ts. */
  readonly lookUp?: (action: unknown) => Promise<ActionFacts | undefined>;
  /** Audits one part's decision: the action id it minted, and the record's durability. */
  readonly auditDecision: (evaluation: Evaluation, agent: string) => { readonly actionId: string; readonly durable: Promise<unknown> };
  readonly desk: ApprovalDesk;
  readonly taint: TaintLedger;
  /**
   * Keeps what a file holds before the agent's own runtime writes `content` there, for undo (the
   * toolhost's store; undo restores only while the file holds exactly `content`).
   */
  readonly keepUndo: (realPath: string, content: string, actionId: string) => Promise<{ readonly ok: true; readonly undoId: string; readonly created: boolean } | { readonly ok: false; readonly reason: string }>;
  /** The current text at a resolved path (read by the toolhost: no final link, bounded, UTF-8). */
  readonly currentText: (realPath: string) => CurrentText;
  /** Keeps what the paths a call changes hold now, for undo (toolhost/agent-changes.ts). */
  readonly keepChanges: (changes: readonly PlannedChange[], meta: { readonly actionId: string; readonly call: string; readonly summary: string }) => Promise<{ readonly ok: true; readonly id: string; readonly created: readonly string[] } | { readonly ok: false; readonly reason: string }>;
  /** Forgets kept changes of a call that was not allowed after all. */
  readonly dropChanges: (id: string) => void;
  /** The files agent sessions made themselves (toolhost/made-files.ts): told what an allowed call creates. */
  readonly made: Pick<MadeFiles, 'expect' | 'madeHere' | 'forgetPath'>;
  /** What a search the agent runs itself reaches below a folder (toolhost/search-reach.ts). */
  readonly searchReach: (start: ScopedPath, search: TreeSearch) => Promise<SearchReach>;
  /** What moving, copying or deleting a whole folder does to what the policy hides (toolhost/tree-reach.ts). */
  readonly treeChange: (change: TreeChange) => Promise<TreeVerdict>;
}

const HALTED_ANSWER: CallAnswer = { allowed: false, reason: 'HALTED: the gate is halted; nothing runs until a person resumes it from the desktop or `oracle resume`' };

/**
 * The gate's answer for one agent tool call (SPEC §11): every part judged and audited; any deny
 * denies the call; what needs a person becomes ONE card for the whole call (so a command with two
 * risky parts is approved or denied as a whole, within one wait), spent at once because the
 * agent runs it itself. HALT denies everything, bookkeeping included.
 */
export async function authorizeCall(deps: CallDeps, call: CallRequest, waitMs: number, agent: string): Promise<CallAnswer> {
  if (deps.mode() === 'halted') return HALTED_ANSWER;
  const durables: Promise<unknown>[] = [];
  const tracked: CallDeps = {
    ...deps,
    auditDecision: (evaluation, who) => {
      const audited = deps.auditDecision(evaluation, who);
      // Awaited later (before a card, or with the answer), after other awaits: a record that fails
      // meanwhile (a full disk) must not be an unhandled rejection, which ends the gate's process
      // (fault probe, session 37). Its failure still denies the call where it is awaited.
      audited.durable.catch(() => undefined);
      durables.push(audited.durable);
      return audited;
    },
  };
  const alternative = await preferred(deps, call, agent);
  const judged = alternative === undefined ? call : asWritten(call, alternative);
  const answer = await authorizeParts(tracked, judged, { waitMs, agent, durables });
  const durable = Promise.all(durables);
  // Whoever holds the answer awaits this; a caller that does not must not crash the gate with it.
  durable.catch(() => undefined);
  return { ...answer, durable, ...(alternative !== undefined && answer.allowed ? { updatedInput: alternative.input } : {}) };
}

/** The call in its alternative form: its own input, parts and searches, nothing of the original's. */
function asWritten(call: CallRequest, alternative: NonNullable<CallRequest['alternative']>): CallRequest {
  const { alternative: _offered, searches: _searches, input: _input, parts: _parts, ...rest } = call;
  return { ...rest, input: alternative.input, parts: alternative.parts, ...(alternative.searches === undefined ? {} : { searches: alternative.searches }) };
}

/** The call's alternative form, when the policy allows all of it and not all of the call as written. */
async function preferred(deps: CallDeps, call: CallRequest, agent: string): Promise<CallRequest['alternative']> {
  const alternative = call.alternative;
  if (alternative === undefined || call.person !== undefined || alternative.parts.length === 0) return undefined;
  const allowed = async (parts: readonly Readonly<Record<string, unknown>>[]): Promise<boolean> => {
    for (const part of parts) if (deps.judge(part, agent, await deps.lookUp?.(part)).decision.decision !== 'allow') return false;
    return true;
  };
  return !(await allowed(call.parts)) && (await allowed(alternative.parts)) ? alternative : undefined;
}

async function authorizeParts(deps: CallDeps, call: CallRequest, how: { waitMs: number; agent: string; durables: readonly Promise<unknown>[] }): Promise<CallAnswer> {
  const { waitMs, agent, durables } = how;
  const judged: Evaluation[] = [];
  const actionIds: string[] = [];
  const searched: ProvenanceEntry[] = [];
  const unknown: string[] = [];
  /** Parts that need a person only because git was not asked what they print (no gate runs). */
  let unlooked = 0;
  /** A part ran before that may change what git prints (`git add -u && git diff --cached`). */
  let changedBefore: string | undefined;
  for (const [index, part] of call.parts.entries()) {
    const facts = await deps.lookUp?.(part);
    const first = deps.judge(part, agent, facts);
    let evaluation = call.edits === undefined || first.decision.decision === 'deny' ? first : asEdited(deps, { part, judged: first, edits: call.edits, agent });
    const search = call.searches?.[index];
    const start = evaluation.paths[0];
    let hiddenBy: CallAnswer['searchHidden'];
    // An earlier part that links, copies or moves something into (or over) the searched folder
    // changes what the search reaches, and the tree is walked as it is now, before any part runs
    // (`ln -s .. src/up && grep -R KEY src`: review, session 37): a person's call.
    const reshaped = search === undefined || start === undefined ? undefined : plannedChanges(judged.filter((e) => e.tool !== null && BRINGS_IN_OR_COPIES.has(e.tool)), call).find((c) => !c.removes && (isUnderComparable(c.path, start.real) || isUnderComparable(start.real, c.path)));
    if (reshaped !== undefined && start !== undefined) unknown.push(`an earlier part of this command puts \`${reshaped.path}\` where the search below \`${start.real}\` reaches, and ORACLE weighs the tree as it is before the command runs`);
    if (search !== undefined && start !== undefined && evaluation.decision.decision !== 'deny' && reshaped === undefined) {
      const reach = await deps.searchReach(start, search);
      evaluation = weighReach(evaluation, search, reach);
      // Offered left out only when each is hidden by its name wherever it is (tree-search.ts `anywhere`).
      if (reach.hidden.length > 0 && (search.by === 'grep' || search.by === 'rg') && reach.hidden.every((e) => e.anywhere === true)) hiddenBy = reach.hidden.map((e) => ({ name: e.name, kind: e.kind }));
      if (reach.foreign !== undefined) searched.push({ kind: 'local_foreign', source: reach.foreign });
      if (reach.unknown !== undefined) unknown.push(`ORACLE cannot tell what ${searcherName(search.by)} reaches below \`${start.real}\`: ${reach.unknown}${search.assumed === undefined ? '' : ` (${search.assumed})`}`);
    }
    // git was asked what this prints before any part runs: an earlier part may change that.
    if (changedBefore !== undefined && facts?.gitPrinted !== undefined && evaluation.decision.decision !== 'deny') unknown.push(`an earlier part of this command (\`${changedBefore}\`) may change what git prints, and ORACLE asked git before any part runs`);
    // (a git that writes: another program a part runs, `npm test`, may print a hidden file itself)
    if (changedBefore === undefined && (evaluation.tool === 'exec.run' || evaluation.tool === 'exec.run_with_secrets') && writesGit(evaluation)) changedBefore = commandLine(evaluation);
    const tree = treeChangeOf(evaluation);
    if (tree !== undefined && evaluation.decision.decision !== 'deny') {
      const verdict = await deps.treeChange(tree);
      if (verdict.kind === 'refused') evaluation = { ...evaluation, decision: deny('PATH_DENY_ALWAYS', verdict.rule, [verdict.reason]) };
      if (verdict.kind === 'unknown') unknown.push(`ORACLE cannot tell what this ${evaluation.tool ?? 'change'} takes with it: ${verdict.reason}`);
    }
    actionIds.push(deps.auditDecision(evaluation, agent).actionId);
    const { decision } = evaluation;
    if (decision.decision === 'deny') {
      const printed = facts?.gitPrinted !== undefined && 'hidden' in facts.gitPrinted && facts.gitPrinted.hidden.length > 0 ? facts.gitPrinted.hidden : undefined;
      return { allowed: false, reason: `${decision.code}: ${decision.reasons.join('; ')}`, ...(hiddenBy === undefined ? {} : { searchHidden: hiddenBy }), ...(printed === undefined ? {} : { gitHidden: printed }) };
    }
    if (decision.decision === 'needs-approval' && facts?.gitPrinted === undefined && deps.judge(part, agent, { ...facts, gitPrinted: { hidden: [] } }).decision.decision === 'allow') unlooked += 1;
    judged.push(evaluation);
  }
  // What the call will change is kept before it runs, so it can be undone; what cannot be kept
  // is a person's call (a T1 change without its undo would be a lie, SPEC §1.6).
  const changes = plannedChanges(judged, call);
  let undo: Awaited<ReturnType<CallDeps['keepChanges']>> | undefined;
  if (changes.length > 0) undo = await deps.keepChanges(changes, { actionId: actionIds[0] ?? '', call: call.callId ?? '', summary: summaryOf(call) });
  const persons = [...(call.person === undefined ? [] : [call.person]), ...unknown, ...(undo?.ok === false ? [`ORACLE cannot keep what this changes for undo: ${undo.reason}`] : [])];
  const asked = persons.length === 0 ? call : { ...call, person: persons.join('; ') };
  const answer = await decideCall(deps, asked, { judged, actionIds, waitMs, agent, durables, searched, unlooked });
  if (undo?.ok !== true) return answer;
  if (!answer.allowed) {
    deps.dropChanges(undo.id);
    return answer;
  }
  expectMade(deps, call, judged, undo.created);
  return { allowed: true, reason: `${answer.reason}; once it ran, undo with \`oracle undo ${undo.id}\`` };
}

async function decideCall(
  deps: CallDeps,
  call: CallRequest,
  kept: { judged: readonly Evaluation[]; actionIds: readonly string[]; waitMs: number; agent: string; durables: readonly Promise<unknown>[]; searched: readonly ProvenanceEntry[]; unlooked: number },
): Promise<CallAnswer> {
  const { judged, actionIds, waitMs, agent } = kept;
  const asking = judged.filter((e) => e.decision.decision === 'needs-approval');
  if (call.person === undefined && asking.length === 0) return allowCall(deps, call, kept, judged.map((e) => `${e.tool ?? '?'} ${e.decision.tier}: ${e.decision.reasons.join('; ')}`).join(' | ') || 'nothing to judge');
  // A single risky part on its own keeps its own card (and its scoped remembering).
  const single = call.person === undefined && asking.length === 1 && judged.length === 1 ? asking[0] : undefined;
  const evaluation = single ?? wholeCall(call, judged, deps.taint.state(call.session).tainted);
  const { tool, args, decision } = evaluation;
  if (tool === null || args === null || decision.decision !== 'needs-approval') return { allowed: false, reason: 'nothing a person could approve' };
  // The card shows the call as the agent sent it, redacted: nothing it runs may hide behind a
  // secret's marker (decide.ts does the same for one action; red team, session 32: an `eval` of a
  // URL "password" holding `;touch …` showed as [REDACTED:url-credentials]).
  const hidden = hiddenCode(args);
  if (hidden !== undefined) return { allowed: false, reason: `SECRET_SHAPE: ${hidden}: its card would hide it, so a person cannot be asked; a real secret belongs in ORACLE's secret store` };
  // Nobody can be asked (no gate running, SPEC §12): no card that nobody would see.
  if (waitMs <= 0) {
    const unjudged = call.person === undefined && asking.length > 0 && kept.unlooked === asking.length;
    return { allowed: false, reason: `${decision.tier} needs a person and no ORACLE gate is running to ask one (start \`oracle serve\`, or \`oracle service install\` to keep it running, and pair a phone with \`oracle pair\`): ${decision.reasons.join('; ')}`, ...(unjudged ? { unjudged: true as const } : {}) };
  }
  // The card's own decision record for a whole call; a single part already has its record.
  const actionId = single === undefined ? deps.auditDecision(evaluation, agent).actionId : (actionIds[0] ?? '');
  // INVARIANT: a person is asked only about decisions already durable in the audit log.
  await Promise.all(kept.durables);
  // Nobody could see the card (no screen or tray open, no phone with notifications on; reach.ts):
  // the agent is told so now, instead of being held for its whole budget by a wait nobody can end.
  const seenBy = deps.desk.whoSees(decision.tier);
  const waited = seenBy === undefined || !unseen(decision.tier, seenBy);
  const grant = await deps.desk.obtain(evaluation, actionId, { waitMs: waited ? waitMs : 0, project: evaluation.paths[0]?.root.real ?? null, agent });
  switch (grant.kind) {
    case 'pending': {
      const seen = askedText(decision.tier, grant.asked);
      // The agent stops waiting and will not run it: a card nobody can act on is withdrawn.
      deps.desk.withdraw(grant.approvalId);
      const why = waited ? `nobody approved this ${decision.tier} call in time` : `this ${decision.tier} call needs a person and nobody was there to ask`;
      // Why a person was needed (taint, a rule, the tier), so the model can change course.
      return { allowed: false, reason: `${why}${seen === undefined ? '' : ` (${seen})`}; it was withdrawn and did not run. A person was needed because: ${decision.reasons.join('; ')}` };
    }
    case 'refused':
      // The gate stopped under the wait: this caller will never run it, so nobody may approve it.
      if (grant.code === 'GATE_STOPPED') deps.desk.withdrawFor(actionId);
      return { allowed: false, reason: grant.message };
    case 'approved': {
      // Spent here: the agent runs it once, now.
      const used = deps.desk.consume(grant.approvalId, args);
      return used.ok ? await allowCall(deps, call, kept, `approved by a person (${grant.approvalId})`) : { allowed: false, reason: used.reason };
    }
  }
}

/** The agent tools whose fs.write ORACLE knows the whole result of, so it can offer undo. */
const WHOLE_FILE_WRITES: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit']);

/**
 * An allowed call. A whole-file write gets its undo (SPEC §1.6 "reversibility beats permission"):
 * what the file holds now is kept before the agent writes, and a write whose file cannot be kept is
 * refused, as the toolhost refuses it (a T1 write without undo would be a lie). Then the session
 * takes the taint of what the call will read (SPEC §4), before the agent has seen any of it.
 */
async function allowCall(deps: CallDeps, call: CallRequest, kept: { judged: readonly Evaluation[]; actionIds: readonly string[]; searched: readonly ProvenanceEntry[] }, reason: string): Promise<CallAnswer> {
  // Judging gave way to others (a folder's walk, a search's reach, a person's wait): a HALT that
  // landed meanwhile still stops the call.
  if (deps.mode() === 'halted') return HALTED_ANSWER;
  let answer: CallAnswer = { allowed: true, reason };
  const [write] = kept.judged;
  const content = write?.args?.['content'];
  const path = write?.paths[0]?.real;
  if (WHOLE_FILE_WRITES.has(call.agentTool) && kept.judged.length === 1 && write?.tool === 'fs.write' && typeof content === 'string' && path !== undefined) {
    const undo = await deps.keepUndo(path, content, kept.actionIds[0] ?? '');
    if (!undo.ok) return { allowed: false, reason: `ORACLE could not keep what this write replaces, so it may not run: ${undo.reason}` };
    if (undo.created || deps.made.madeHere(call.session, path)) deps.made.expect(call.callId ?? '', call.session, [path]);
    answer = { allowed: true, reason: `${reason}; undo with \`oracle undo ${undo.undoId}\`` };
  }
  deps.taint.read(call.session, [...kept.judged.flatMap((e) => (e.tool === null || e.args === null ? [] : provenanceOfResult(e.tool, e.args))), ...kept.searched]);
  return answer;
}

/**
 * An Edit judged as the file it leaves: only once its path was allowed (so nothing denied is ever
 * read), the edits are applied to the current text and the whole result is judged again; that is
 * what the audit records and a card's diff shows. An edit that cannot apply is denied, saying why.
 */
function asEdited(deps: CallDeps, what: { part: Readonly<Record<string, unknown>>; judged: Evaluation; edits: readonly TextEdit[]; agent: string }): Evaluation {
  const refuse = (reason: string): Evaluation => ({ ...what.judged, decision: deny('INPUT_INVALID', 'claude-code.edit', [reason]) });
  const real = what.judged.paths[0]?.real;
  if (real === undefined) return refuse('the edit names no file');
  const now = deps.currentText(real);
  if (now.kind === 'unavailable') return refuse(`ORACLE cannot apply this edit to judge it: ${now.reason}`);
  const applied = applyEdits(now.kind === 'text' ? now.text : null, what.edits);
  if (!applied.ok) return refuse(`this edit cannot apply to ${real}: ${applied.reason}`);
  const args = (typeof what.part['args'] === 'object' && what.part['args'] !== null ? what.part['args'] : {}) as Record<string, unknown>;
  return deps.judge({ ...what.part, args: { ...args, content: applied.text } }, what.agent);
}

/** The whole call as one card: every part with its tier, and the person's question if any. */
function wholeCall(call: CallRequest, judged: readonly Evaluation[], tainted: boolean): Evaluation {
  // A person's call is T2, one higher after foreign content was read (SPEC §4 taint).
  let tier: Tier = call.person === undefined ? 'T2' : tainted ? bumpTier('T2') : 'T2';
  for (const e of judged) tier = maxTier(tier, e.decision.tier);
  const reasons = [
    ...(call.person === undefined ? [] : [`ORACLE cannot judge this from the policy: ${call.person}`]),
    ...judged.filter((e) => e.decision.decision === 'needs-approval').map((e) => `${e.tool ?? '?'} ${e.decision.tier}: ${e.decision.reasons.join('; ')}`),
  ];
  const decision: Decision = decisionFromTier(tier === 'T0' || tier === 'T1' ? 'T2' : tier, 'agent.call', reasons);
  return {
    decision,
    tool: CALL_TOOL,
    args: {
      agent_tool: call.agentTool,
      input: call.input,
      parts: judged.map((e) => ({ tool: e.tool, tier: e.decision.tier, args: e.args })),
    },
    paths: judged.flatMap((e) => e.paths).slice(0, 1),
    ...(call.session === undefined ? {} : { session: call.session }),
  };
}

/** The tools whose changes the agent's own runtime makes, and ORACLE keeps for undo beforehand. */
const AGENT_CHANGES: ReadonlySet<string> = new Set(['fs.mkdir', 'fs.touch', 'fs.copy', 'fs.move', 'fs.link', 'fs.edit', 'fs.delete']);
/** A Bash redirection (`> file`) is an fs.write whose content only the command knows: kept like a change. */
const SHELL_TOOLS: ReadonlySet<string> = new Set(['Bash', 'Monitor']);

function plannedChanges(judged: readonly Evaluation[], call: CallRequest): PlannedChange[] {
  return judged.flatMap((e) => {
    if (e.tool === null || !(AGENT_CHANGES.has(e.tool) || (e.tool === 'fs.write' && SHELL_TOOLS.has(call.agentTool)))) return [];
    const contract = lookupTool(e.tool);
    return e.paths.flatMap((p, i) => {
      // Paths past the contract's are where a copy lands inside a folder (decide/landing.ts).
      const access = contract?.paths[i]?.access ?? 'write';
      return access === 'read' ? [] : [{ path: p.real, removes: access === 'delete' }];
    });
  });
}

/**
 * What the agent itself put into a file in this call: a write or an in-place edit, a new empty
 * file, a copy's landing place. A move's destination is not: it holds what was the person's
 * file, and counting it would let a move and a delete, each unasked, throw that file away.
 */
const MAKES_CONTENT: ReadonlySet<string> = new Set(['fs.write', 'fs.edit', 'fs.touch', 'fs.copy']);
/** What puts a file that was there (the person's, maybe) at another path. */
const BRINGS_IN: ReadonlySet<string> = new Set(['fs.move', 'fs.link']);
/** What puts other content (a link, a copy, a moved tree) at a path. */
const BRINGS_IN_OR_COPIES: ReadonlySet<string> = new Set(['fs.move', 'fs.link', 'fs.copy']);

/**
 * Tells the ledger what this allowed call makes (nothing was there, or the session's own file
 * still as it left it); the agent's report of the call's end confirms it. A call that also moves
 * or links anything makes nothing: a later part could put the person's file where an earlier
 * part made one (`printf '' > t; mv thesis.md t`: review, session 37), and where a move or link
 * lands is forgotten, whoever made it.
 */
function expectMade(deps: CallDeps, call: CallRequest, judged: readonly Evaluation[], created: readonly string[]): void {
  const brings = judged.filter((e) => e.tool !== null && BRINGS_IN.has(e.tool));
  for (const change of plannedChanges(brings, call)) if (!change.removes) deps.made.forgetPath(change.path);
  if (call.callId === undefined || brings.length > 0) return;
  const fresh = new Set(created);
  const made = plannedChanges(
    judged.filter((e) => e.tool !== null && MAKES_CONTENT.has(e.tool)),
    call,
  ).flatMap((c) => (c.removes ? [] : [c.path]));
  deps.made.expect(call.callId, call.session, made.filter((p) => fresh.has(p) || deps.made.madeHere(call.session, p)));
}

function summaryOf(call: CallRequest): string {
  const command = call.input['command'];
  return typeof command === 'string' ? command : call.agentTool;
}

/** Whether a program a part runs is git doing more than reading (git-prints.ts): a commit, an add, a stash. */
function writesGit(evaluation: Evaluation): boolean {
  const args = evaluation.args ?? {};
  const argv = Array.isArray(args['args']) ? args['args'].map(String) : [];
  return /(?:^|\/)git$/u.test(String(args['program'])) && !gitReadsOnly(argv, (a) => gitRead(a) === 'names');
}

/** A part's command line, shortened, for a reason. */
function commandLine(evaluation: Evaluation): string {
  const args = evaluation.args ?? {};
  const argv = Array.isArray(args['args']) ? args['args'].map(String) : [];
  return [String(args['program']), ...argv].join(' ').slice(0, 80);
}
