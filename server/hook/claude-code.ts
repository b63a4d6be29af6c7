import type { ParseBashSync } from '../core/hook/bash-ast.js';
import type { TextEdit } from '../core/hook/edits.js';
import { bashVerdict } from '../core/hook/bash-actions.js';
import type { ReadDir } from '../core/hook/glob-expand.js';
import { mapToolCall, readProvenance, type GateAction, type HookPayload } from '../core/hook/claude-code-map.js';
import type { CallAnswer, CallRequest } from '../app/call-authorizer.js';
import type { ProvenanceEntry } from '../../shared/provenance.js';
import { HOOK_BUDGET_MS, preToolAnswer, type DecidedEvent, type HookAnswer, type HookDecision } from './answer.js';
import { npxWithoutDownload } from '../core/hook/npx-rewrite.js';
import { searchWithout } from '../core/hook/search-rewrite.js';
import { gitWithout } from '../core/hook/git-rewrite.js';
import { rgWithoutDots } from '../core/hook/rg-dots.js';

export { HOOK_BUDGET_MS, HOOK_TIMEOUT_S, preToolAnswer, type HookAnswer, type HookDecision } from './answer.js';

/**
 * Claude Code's hook, answered (SPEC §11): a PreToolUse, PreSkillShellCommand or PostToolUse payload in, the JSON Claude
 * Code reads out. The same code answers the http hook inside the running gate and the command hook
 * when no gate runs; what differs is only `HookGate`. Total: any value in, an answer out; an
 * error anywhere is a deny.
 */
export interface HookGate {
  /** Whether a person can be asked (a running gate with its phones and desktop). */
  readonly canAsk: boolean;
  /** The shell parser, loaded on first use (only a Bash call needs it). */
  parser(): Promise<ParseBashSync>;
  authorizeCall(call: CallRequest, waitMs: number): Promise<CallAnswer>;
  taint(session: string, read: readonly ProvenanceEntry[]): void;
  /** The agent reports the call `callId` done (PostToolUse): what it changed is now undoable. */
  confirm(callId: string, session: string | undefined): Promise<unknown>;
  /** Audits the answer to one call (every answer, asks included); rejects when it cannot be written. */
  record(call: RecordedCall): Promise<void>;
  /** The user's home, for `~` in commands. */
  readonly userHome?: string;
  /** Lists folders for the globs in a Bash command; without it a glob goes to a person. */
  readonly readDir?: ReadDir;
}

/** One hook answer as the audit log keeps it (arguments as a digest and a redacted preview). */
export interface RecordedCall {
  readonly agentTool: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly session: string | undefined;
  readonly decision: HookDecision;
  readonly reason: string;
}

const plain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The session a hook payload names, if it names one sanely. */
export function hookSession(payload: unknown): string | undefined {
  const id = plain(payload) ? payload['session_id'] : undefined;
  return typeof id === 'string' && id.length <= 256 ? id : undefined;
}

export async function answerHook(payload: unknown, gate: HookGate, budgetMs = HOOK_BUDGET_MS): Promise<HookAnswer> {
  try {
    if (!plain(payload)) return await refused(gate, 'ORACLE: the hook payload is not a JSON object');
    const p = payload as HookPayload;
    const session = hookSession(p);
    if (p.hook_event_name === 'PostToolUse') {
      const read = readProvenance(p);
      if (read.length > 0 && session !== undefined) gate.taint(session, read);
      // Awaited: what the paths hold now is recorded before the agent's next call can change them.
      if (typeof p.tool_use_id === 'string' && p.tool_use_id.length <= 256) await gate.confirm(p.tool_use_id, session);
      return { output: {} };
    }
    // A skill's `!`command`` runs through Claude Code's shell tool without a PreToolUse: its own
    // event asks first, with the same shape (tool_name Bash or PowerShell, tool_input.command).
    const event = p.hook_event_name === 'PreSkillShellCommand' ? 'PreSkillShellCommand' : 'PreToolUse';
    if (p.hook_event_name !== event) return await refused(gate, 'ORACLE answers PreToolUse, PreSkillShellCommand and PostToolUse only', session);
    const { durable, updatedInput, ...verdict } = await judge(p, session, gate, { budgetMs, event });
    // Every answer is audited before Claude Code sees it, with the decisions it rests on (one group
    // commit); a record that cannot be written denies. What is recorded is what runs.
    await Promise.all([gate.record({ agentTool: typeof p.tool_name === 'string' ? p.tool_name : '', input: updatedInput ?? (plain(p.tool_input) ? p.tool_input : {}), session, ...verdict }), durable]);
    return preToolAnswer(verdict.decision, verdict.reason, event, updatedInput);
  } catch (e) {
    const event = plain(payload) && payload['hook_event_name'] === 'PreSkillShellCommand' ? 'PreSkillShellCommand' : 'PreToolUse';
    return preToolAnswer('deny', `ORACLE failed closed: ${e instanceof Error ? e.message : 'unknown error'}`, event);
  }
}

/** A payload refused before any tool in it could be read: audited like every other answer. */
async function refused(gate: HookGate, reason: string, session?: string): Promise<HookAnswer> {
  await gate.record({ agentTool: '', input: {}, session, decision: 'deny', reason });
  return preToolAnswer('deny', reason);
}

interface Judged {
  readonly decision: HookDecision;
  readonly reason: string;
  readonly durable?: Promise<unknown>;
  /** The input Claude Code must run instead of the one it proposed (allow only). */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
}

async function judge(payload: HookPayload, session: string | undefined, gate: HookGate, how: { readonly budgetMs: number; readonly event: DecidedEvent }): Promise<Judged> {
  const { budgetMs, event } = how;
  const cwd = typeof payload.cwd === 'string' ? payload.cwd : undefined;
  const agentTool = typeof payload.tool_name === 'string' ? payload.tool_name : '';
  let input = plain(payload.tool_input) ? payload.tool_input : {};
  /** The command as the hook changed it before judging (rg-dots.ts): what is judged and what runs. */
  let pinned: string | undefined;
  const mapped = mapToolCall(payload, gate.userHome);
  let actions: readonly GateAction[] = [];
  let edits: readonly TextEdit[] | undefined;
  let person: string | undefined;
  let alternative: { readonly command: string; readonly actions: readonly GateAction[] } | undefined;
  /** The command with what a refused search reached left out, judged as the hook would judge it. */
  let leavingOut: ((hidden: Pick<CallAnswer, 'searchHidden' | 'gitHidden'>) => { readonly command: string; readonly actions: readonly GateAction[] } | undefined) | undefined;
  switch (mapped.kind) {
    case 'deny':
      return { decision: 'deny', reason: `ORACLE: ${mapped.reason}` };
    case 'allow':
      // Still through the gate: HALT denies even Claude Code's own bookkeeping.
      break;
    case 'person':
      person = mapped.reason;
      break;
    case 'actions':
      actions = mapped.actions;
      edits = mapped.edits;
      break;
    case 'bash': {
      const parse = await gate.parser();
      const written = parse(mapped.command);
      if ('error' in written) {
        person = `the command could not be parsed (${written.error})`;
        break;
      }
      // rg's skip of dot-names made certain (rg-dots.ts); a skill's command runs as written, so
      // its rg is weighed with every dot-name it reaches.
      const noDots = event === 'PreToolUse' ? rgWithoutDots(written) : undefined;
      const noDotsTree = noDots === undefined ? undefined : parse(noDots);
      const tree = noDots !== undefined && noDotsTree !== undefined && !('error' in noDotsTree) ? noDotsTree : written;
      if (tree !== written && noDots !== undefined) {
        pinned = noDots;
        input = { ...input, command: noDots };
      }
      // `bash -c "…"` is parsed again with the same parser, so its commands are judged too.
      // A glob is expanded only against a known working directory.
      const how = { cwd: cwd ?? '/', parse, ...(gate.userHome === undefined ? {} : { home: gate.userHome }), ...(gate.readDir === undefined || cwd?.startsWith('/') !== true ? {} : { readDir: gate.readDir }) };
      const verdict = bashVerdict(tree, how);
      if (verdict.kind === 'deny') return { decision: 'deny', reason: `ORACLE: ${verdict.reason}` };
      if (verdict.kind === 'ask') {
        person = `ORACLE cannot account for all of this command: ${verdict.reason}`;
        break;
      }
      actions = verdict.actions;
      // Only a tool call's input can be changed: a skill's shell command runs as the skill wrote it.
      const rewritten = event === 'PreToolUse' ? npxWithoutDownload(tree) : undefined;
      const rewrittenTree = rewritten === undefined ? undefined : parse(rewritten);
      if (rewritten !== undefined && rewrittenTree !== undefined && !('error' in rewrittenTree)) {
        const other = bashVerdict(rewrittenTree, how);
        if (other.kind === 'actions') alternative = { command: rewritten, actions: other.actions };
      }
      // Offered to a refused search only; the npx form, when there is one, is what it starts from.
      if (event === 'PreToolUse') {
        leavingOut = (hidden) => {
          const from = alternative === undefined ? tree : rewrittenTree;
          const command = from === undefined || 'error' in from ? undefined : hidden.searchHidden !== undefined ? searchWithout(from, hidden.searchHidden) : gitWithout(from, hidden.gitHidden ?? [], gate.userHome);
          const changed = command === undefined ? undefined : parse(command);
          if (command === undefined || changed === undefined || 'error' in changed) return undefined;
          const other = bashVerdict(changed, how);
          return other.kind === 'actions' ? { command, actions: other.actions } : undefined;
        };
      }
      break;
    }
  }
  // With nobody to ask, Claude Code's own prompt is the only person there is.
  if (person !== undefined && !gate.canAsk) return { decision: 'ask', reason: `ORACLE: ${person}; no ORACLE gate is running to ask your phone or desktop` };
  // What a search reaches is no part of the action judged: it travels beside it, part by part.
  const partsOf = (of: readonly GateAction[]) => of.map(({ search: _search, ...a }) => ({ ...a, ...(cwd === undefined ? {} : { cwd }), ...(session === undefined ? {} : { session }) }));
  const searchesOf = (of: readonly GateAction[]) => {
    const searches = of.map((a) => a.search);
    return searches.some((s) => s !== undefined) ? { searches } : {};
  };
  const parts = partsOf(actions);
  const callId = typeof payload.tool_use_id === 'string' && payload.tool_use_id.length <= 256 ? payload.tool_use_id : undefined;
  const offered = alternative === undefined ? {} : { alternative: { input: { ...input, command: alternative.command }, parts: partsOf(alternative.actions), ...searchesOf(alternative.actions) } };
  const started = Date.now();
  const first = await gate.authorizeCall(
    { agentTool, input, parts, person, session, ...searchesOf(actions), ...(edits === undefined ? {} : { edits }), ...(callId === undefined ? {} : { callId }), ...offered },
    budgetMs,
  );
  // A search refused for what it reaches, asked again with that left out (search-rewrite.ts); the
  // refusal stands when the changed command is not allowed as it is.
  const without = first.allowed || (first.searchHidden === undefined && first.gitHidden === undefined) ? undefined : leavingOut?.(first);
  const second = without === undefined ? undefined : await gate.authorizeCall({ agentTool, input: { ...input, command: without.command }, parts: partsOf(without.actions), person: undefined, session, ...searchesOf(without.actions), ...(callId === undefined ? {} : { callId }) }, Math.max(0, budgetMs - (Date.now() - started)));
  const answer = without !== undefined && second?.allowed === true ? { ...second, updatedInput: { ...input, command: without.command }, durable: Promise.all([first.durable, second.durable]) } : second === undefined ? first : { ...first, durable: Promise.all([first.durable, second.durable]) };
  const note = mapped.kind === 'allow' ? mapped.reason : answer.reason;
  const updated = answer.allowed ? (answer.updatedInput ?? (pinned === undefined ? undefined : input)) : undefined;
  const leftOut = without !== undefined && second?.allowed === true ? ` (run as \`${without.command.slice(0, 200)}\`, leaving out ${[...new Set([...(first.searchHidden?.map((e) => e.name) ?? []), ...(first.gitHidden ?? [])])].map((n) => `\`${n}\``).join(', ')}, which no agent may read)` : '';
  const noDotsNote = pinned === undefined ? '' : ` (run as \`${pinned.slice(0, 200)}\`: rg leaves out dot-names whatever an ignore file says)`;
  const instead = leftOut !== '' ? leftOut : updated !== undefined && answer.updatedInput !== undefined && alternative !== undefined ? ` (run as \`${alternative.command.slice(0, 200)}\`, which never downloads)` : updated !== undefined ? noDotsNote : '';
  // What only a running gate could judge goes to Claude Code's own prompt when none runs.
  if (!answer.allowed && answer.unjudged === true && !gate.canAsk) return { decision: 'ask', reason: `ORACLE: ${answer.reason}`, ...(answer.durable === undefined ? {} : { durable: answer.durable }) };
  return { decision: answer.allowed ? 'allow' : 'deny', reason: `ORACLE: ${answer.allowed ? note : answer.reason}${instead}`, ...(answer.durable === undefined ? {} : { durable: answer.durable }), ...(updated === undefined ? {} : { updatedInput: updated }) };
}
