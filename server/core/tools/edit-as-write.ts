import { deny } from '../../../shared/decision.js';
import { applyEdits, type TextEdit } from '../hook/edits.js';
import type { Evaluation } from '../decide/decide.js';
import { MAX_WRITE_CHARS } from './registry.js';

/**
 * `fs.replace` (issue 13, the MCP `fs_edit`): exact string replacements in one file, which the gate
 * turns into the exact fs.write they make, so the person approves (and the audit log holds) the
 * whole new file, shown as a diff against what is there, and undo works as for any write. The
 * write carries the digest of the file the edit was computed from (`expect_before`): if the file
 * changes before it lands (while the card waits, say), nothing is written.
 *
 * The file is read only after the same path was judged both readable and writable for this
 * caller, so whether an edit applies tells nothing about a file the caller may not read. Pure: the
 * judge and the reader come in.
 */
export const EDIT_TOOL = 'fs.replace';
export const MAX_EDITS = 64;

/** A file as an edit reads it: its exact text (a byte-order mark kept) and the digest of its bytes. */
export type RawText = { readonly kind: 'text'; readonly text: string; readonly digest: string } | { readonly kind: 'absent' } | { readonly kind: 'unavailable'; readonly reason: string };

export interface EditDeps {
  judge(action: Readonly<Record<string, unknown>>): Evaluation;
  read(realPath: string): RawText;
}

type Request = Readonly<Record<string, unknown>> & { readonly args?: unknown };

/** The evaluation of an fs.replace action, or undefined for any other action. */
export function editAsWrite(action: unknown, deps: EditDeps): Evaluation | undefined {
  if (typeof action !== 'object' || action === null || (action as { tool?: unknown }).tool !== EDIT_TOOL) return undefined;
  const request = action as Request;
  const args: Readonly<Record<string, unknown>> = typeof request.args === 'object' && request.args !== null ? (request.args as Record<string, unknown>) : {};
  const refused = (reason: string, code: 'INPUT_INVALID' | 'EDIT_NOT_APPLIED' = 'INPUT_INVALID'): Evaluation => ({
    decision: deny(code, EDIT_TOOL, [reason]),
    tool: EDIT_TOOL,
    args: null,
    paths: [],
    ...(typeof request['session'] === 'string' ? { session: request['session'] } : {}),
  });
  const path = args['path'];
  const edits = editsOf(args['edits']);
  if (typeof path !== 'string' || Object.keys(args).some((k) => k !== 'path' && k !== 'edits')) return refused('fs.replace takes `path` and `edits` only');
  if (edits === undefined) return refused(`\`edits\` is a list of 1 to ${String(MAX_EDITS)} {old_string, new_string, replace_all?}`);
  // The path first, as a read and as a write: a refusal here is the answer, and nothing is read.
  const reading = deps.judge({ ...request, tool: 'fs.read', args: { path } });
  if (reading.decision.decision === 'deny') return { ...reading, tool: EDIT_TOOL };
  // Whether an edit applies would tell what a file holds that the caller may read only with a
  // person's approval (red team, session 33): an edit is for files it may read unasked.
  if (reading.decision.decision === 'needs-approval') return refused(`\`${path}\`: reading it needs a person (${reading.decision.rule}), so it cannot be edited unasked; read it with fs_read (a person approves), then write it with fs_write`, 'EDIT_NOT_APPLIED');
  const writing = deps.judge({ ...request, tool: 'fs.write', args: { path, content: '' } });
  const real = writing.paths[0]?.real;
  if (writing.decision.decision === 'deny' || real === undefined) return { ...writing, tool: EDIT_TOOL };
  const current = deps.read(real);
  if (current.kind === 'unavailable') return refused(`\`${path}\`: ${current.reason}`, 'EDIT_NOT_APPLIED');
  // A missing file is created only by an edit with an empty old_string: say it is missing, not
  // that the text "does not occur in the file" (MCP probe, session 36).
  if (current.kind === 'absent' && edits.some((e) => e.old_string !== '')) return refused(`\`${path}\` does not exist (an edit with an empty \`old_string\` creates it)`, 'EDIT_NOT_APPLIED');
  const applied = applyEdits(current.kind === 'text' ? current.text : null, edits);
  if (!applied.ok) return refused(`\`${path}\`: ${applied.reason}`, 'EDIT_NOT_APPLIED');
  if (current.kind === 'text' && applied.text === current.text) return refused(`\`${path}\`: the edits leave the file as it is, so nothing is written`, 'EDIT_NOT_APPLIED');
  // Said in the edit's own terms: the write it becomes would be refused for its `content`, an
  // argument fs_edit does not have.
  if (applied.text.length > MAX_WRITE_CHARS) return refused(`\`${path}\`: the edited file would be ${String(applied.text.length)} characters, and ORACLE writes at most ${String(MAX_WRITE_CHARS)} in one go, so a file this large cannot be edited through it`, 'EDIT_NOT_APPLIED');
  return deps.judge({ ...request, tool: 'fs.write', args: { path, content: applied.text, expect_before: current.kind === 'text' ? current.digest : 'absent' } });
}

function editsOf(raw: unknown): TextEdit[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_EDITS) return undefined;
  const edits: TextEdit[] = [];
  for (const e of raw) {
    if (typeof e !== 'object' || e === null) return undefined;
    const o = e as Record<string, unknown>;
    if (typeof o['old_string'] !== 'string' || typeof o['new_string'] !== 'string' || !['boolean', 'undefined'].includes(typeof o['replace_all'])) return undefined;
    if (Object.keys(o).some((k) => !['old_string', 'new_string', 'replace_all'].includes(k))) return undefined;
    edits.push({ old_string: o['old_string'], new_string: o['new_string'], replace_all: o['replace_all'] === true });
  }
  return edits;
}
