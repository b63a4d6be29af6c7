import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunResult } from '../core/lifecycle/run-action.js';
import { askedText } from '../../shared/asked.js';
import { hasControl } from '../core/paths/characters.js';

/** Where a result carries the gate's own account of it (`_meta`, beside what the tool produced). */
export const GATE_META_KEY = 'oracle/gate';

/**
 * One lifecycle result as an MCP tool result (SPEC §11). What ran comes back as text (already
 * redacted by the toolhost, SPEC §6) and nothing else: a file's text is exactly the file's text, so
 * no line in it can pass for the gate's and its last newline is its own. The gate's account (the
 * decision, tier, rule, action id, undo id) travels in `_meta`. Anything that did not run, or
 * failed, is `isError` with the reason: the deny code, the rule and the reasons, so an agent can
 * tell a policy refusal from a broken command.
 */
export function toolResult(result: RunResult, canAsk = true): CallToolResult {
  const why = `${result.rule}${result.reasons.length > 0 ? `: ${result.reasons.join('; ')}` : ''}`;
  const _meta = { [GATE_META_KEY]: gateMeta(result) };
  switch (result.decision) {
    // Deny: never executed; say which code and rule refused it.
    case 'deny':
      return { ...failure(`denied: ${result.code} (${why})`), _meta };
    // Needs a person: pending (with the id to wait on), refused, or approved and then run.
    case 'needs-approval':
      if (!result.executed) return { ...failure(notApproved(result, why, canAsk)), _meta };
      break;
    // Allowed: it ran, or the audit log or the gate stopped it first.
    case 'allow':
      break;
  }
  const tainted = taintNote(result);
  const after = tainted === undefined ? [] : [{ type: 'text' as const, text: tainted }];
  if (!result.executed || result.error !== undefined) {
    const error = result.error === undefined ? 'it did not run' : `${result.error.code}: ${result.error.message}`;
    // A failure that carried what was read (a 404 page, a test run's output) taints all the same: said too.
    const failed = failure([`failed: ${error}`, ...outputs(result, false)].join('\n'));
    return { ...failed, content: [...failed.content, ...after], _meta };
  }
  // A file's text, alone: byte for byte what the toolhost read (and redacted). Where a page ends
  // before the file does, a second item says so: no line of the file can pass for it.
  if (typeof result.output === 'string' && outputs(result, false).length === 1) {
    const more = pageNote(result);
    return { content: [{ type: 'text', text: result.output }, ...(more === undefined ? [] : [{ type: 'text' as const, text: more }]), ...after], _meta };
  }
  return { content: [{ type: 'text', text: outputs(result, true).join('\n') }, ...after], _meta };
}

/**
 * Said when the gate counted what this call brought in as content from outside the person's
 * projects (SPEC §4 taint): the model learns it now, in the result, rather than from the cards its
 * next changes become (MCP probe, session 36). A separate item, so the file's text stays its own.
 */
function taintNote(result: RunResult): string | undefined {
  if (result.read === undefined || result.read.length === 0) return undefined;
  const from = result.read.slice(0, 3).map((s) => `\`${s}\``).join(', ');
  return `[ORACLE: this is content from outside the person's projects (${from}${result.read.length > 3 ? ', …' : ''}); this session now counts as having read untrusted content, so from here on every change it asks for (writes, programs, git) waits for a person, one tier higher. Reads are not affected.]`;
}

function pageNote(result: RunResult): string | undefined {
  const { page } = result;
  // An offset past the end reads nothing: said, not left as an empty success (MCP probe, session 36).
  if (page !== undefined && page.from > page.total_lines) return `[ORACLE: the file has ${String(page.total_lines)} lines; offset ${String(page.from)} is past its end]`;
  if (page?.next_offset === undefined && page?.cut_line !== true) return undefined;
  const cut = page.cut_line === true ? ` (line ${String(page.from)} is longer than a page and was cut)` : '';
  const next = page.next_offset === undefined ? '' : `; read on with offset ${String(page.next_offset)}`;
  return `[ORACLE: lines ${String(page.from)}–${String(page.to)} of ${String(page.total_lines)} shown${cut}${next}]`;
}

function gateMeta(result: RunResult): Record<string, unknown> {
  return {
    decision: result.decision,
    tier: result.tier,
    rule: result.rule,
    code: result.code,
    action_id: result.action_id,
    executed: result.executed,
    ...(result.approval_id === undefined ? {} : { approval_id: result.approval_id }),
    ...(result.undo_id === undefined ? {} : { undo_id: result.undo_id }),
    ...(result.digest === undefined ? {} : { digest: result.digest }),
    ...(result.page === undefined ? {} : { page: result.page }),
    ...(result.read === undefined ? {} : { read: result.read }),
  };
}

function notApproved(result: RunResult, why: string, canAsk: boolean): string {
  const approver = result.tier === 'T3' ? 'the desktop, with its typed phrase' : 'a person at the desktop or on a paired phone';
  if (result.status === 'pending' && result.approval_id !== undefined && !canAsk) {
    // SPEC §12: never claim a device will answer when none can.
    return `needs a person: ${result.tier} (${why}); no ORACLE gate runs with this home, so no desktop or phone can answer now. The request is kept as approval \`${result.approval_id}\`: once \`oracle serve\` runs and this MCP server is restarted (it then sends every call to the gate), call oracle_await with it`;
  }
  if (result.status === 'pending' && result.approval_id !== undefined) {
    // Who could see the card is what the gate counted as this call stopped waiting (shared/asked.ts).
    const seen = askedText(result.tier, result.asked);
    return `approval pending: ${result.tier} (${why}); approval \`${result.approval_id}\` waits for ${approver}${seen === undefined ? '' : `; ${seen}`}; call oracle_await with it to continue`;
  }
  const error = result.error === undefined ? 'not approved' : `${result.error.code}: ${result.error.message}`;
  return `not approved: ${error}; ${result.tier} (${why})`;
}

/** The tool's own output: file text, a listing or response as JSON, the streams of a program; `done` when it ran and said nothing. */
function outputs(result: RunResult, ran: boolean): string[] {
  const parts: string[] = [];
  if (result.tool === 'fs.list' && Array.isArray(result.output)) parts.push(listing(result.output as readonly ListedEntry[]));
  else if (typeof result.output === 'string') parts.push(result.output);
  else if (result.output !== undefined) parts.push(JSON.stringify(result.output, null, 2));
  if (result.stdout !== undefined && result.stdout !== '') parts.push(result.stdout);
  if (result.stderr !== undefined && result.stderr !== '') parts.push(`stderr:\n${result.stderr}`);
  if (result.exit_code !== undefined && result.exit_code !== null && result.exit_code !== 0) parts.push(`exit code ${String(result.exit_code)}`);
  if (result.truncated === true) parts.push('(output truncated)');
  if (ran && parts.length === 0) parts.push(result.digest === undefined ? 'done' : `done, ${result.digest}`);
  if (result.undo_id !== undefined) parts.push(`undo id ${result.undo_id}`);
  return parts;
}

interface ListedEntry {
  readonly name: string;
  readonly type: 'file' | 'dir' | 'link' | 'other';
}

/** A listing shows this many entries at most; the rest is counted. */
export const LISTED_MAX = 2000;

/**
 * A folder's entries one per line, sorted, as a model reads `ls -p`: `name/` a folder, `name` a
 * file, `name (link)` a link (never followed), `name (special)` anything else. As indented JSON a
 * 20,000-entry folder had come back as 1.1 million characters in one item (MCP probe, session 36).
 */
function listing(entries: readonly ListedEntry[]): string {
  const shown = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, LISTED_MAX);
  const lines = shown.map((e) => {
    const name = listedName(e.name);
    return e.type === 'dir' ? `${name}/` : e.type === 'link' ? `${name} (link)` : e.type === 'other' ? `${name} (special)` : name;
  });
  if (entries.length === 0) lines.push('(empty)');
  if (entries.length > LISTED_MAX) lines.push(`[ORACLE: ${String(entries.length - LISTED_MAX)} more entries not shown; list a folder inside this one, or find files with fs_search]`);
  return lines.join('\n');
}

/**
 * A name as a listing line shows it: as a JSON string when it could pass for something else (a
 * line break and a forged `[ORACLE: …]` line, a name ending in ` (link)`, a leading quote or
 * space), so no file's name speaks for the gate (second review, session 36).
 */
function listedName(name: string): string {
  const forges = hasControl(name) || /^[["\s]|\s$|\/$| \((?:link|special)\)$/u.test(name);
  return forges ? JSON.stringify(name) : name;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
