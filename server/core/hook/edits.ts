/**
 * Claude Code's Edit and MultiEdit as the exact file they leave behind (SPEC §5 "people confirm
 * actions, not intentions"): the edits applied to the file's current text, the way Claude Code
 * applies them (in order; an `old_string` must occur, once unless `replace_all`; an empty one
 * only creates a file that is empty or absent). Pure: the current text comes in.
 */
export interface TextEdit {
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all: boolean;
}

export type Applied = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The edits of an Edit or MultiEdit input, or undefined when any is malformed. */
export function editsOf(tool: string, input: Readonly<Record<string, unknown>>): TextEdit[] | undefined {
  const raw: unknown[] = tool === 'MultiEdit' ? (Array.isArray(input['edits']) ? input['edits'] : []) : [input];
  const edits: TextEdit[] = [];
  for (const e of raw) {
    const o = typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : {};
    const oldString = str(o['old_string']);
    const newString = str(o['new_string']);
    if (oldString === undefined || newString === undefined) return undefined;
    edits.push({ old_string: oldString, new_string: newString, replace_all: o['replace_all'] === true });
  }
  return edits.length === 0 ? undefined : edits;
}

/**
 * The longest text an edit may leave, in UTF-16 units (the largest file Claude Code's edits are
 * kept for undo is 64 MiB), and the most occurrences all of one call's edits may replace. Both are
 * checked before a replacement is built: 30 edits each doubling every `a` of a one-letter file
 * asked the gate for a string of 2^30 characters and killed it, and 26 of them took 15 s of its
 * one thread.
 */
export const MAX_EDITED_CHARS = 64 * 1024 * 1024;
export const MAX_REPLACEMENTS = 10_000;

export function applyEdits(current: string | null, edits: readonly TextEdit[]): Applied {
  let text = current ?? '';
  let replaced = 0;
  for (const [i, edit] of edits.entries()) {
    const which = edits.length > 1 ? `edit ${String(i + 1)}: ` : '';
    if (edit.old_string === '') {
      if (text !== '') return { ok: false, reason: `${which}an empty \`old_string\` only creates a file, and this one has content` };
      text = edit.new_string;
      continue;
    }
    const count = occurrences(text, edit.old_string, MAX_REPLACEMENTS - replaced + 1);
    if (count === 0) return { ok: false, reason: `${which}\`old_string\` does not occur in the file` };
    if (count > 1 && !edit.replace_all) return { ok: false, reason: `${which}\`old_string\` occurs ${count > MAX_REPLACEMENTS - replaced ? 'many' : String(count)} times and \`replace_all\` is not set` };
    replaced += edit.replace_all ? count : 1;
    if (replaced > MAX_REPLACEMENTS) return { ok: false, reason: `${which}the edits would replace more than ${String(MAX_REPLACEMENTS)} occurrences; make them in smaller steps` };
    const length = text.length + (edit.replace_all ? count : 1) * (edit.new_string.length - edit.old_string.length);
    if (length > MAX_EDITED_CHARS) return { ok: false, reason: `${which}the edited text would be ${String(length)} characters, more than the ${String(MAX_EDITED_CHARS)} an edit may leave` };
    // `$$` is a `$`: a `$` in new_string is text, never a replacement pattern.
    text = edit.replace_all ? text.replaceAll(edit.old_string, edit.new_string.replaceAll('$', '$$$$')) : replaceOnce(text, edit.old_string, edit.new_string);
  }
  return { ok: true, text };
}

/** How often `find` (not empty) occurs in `text`, without overlaps as replaceAll counts, up to `most`. */
function occurrences(text: string, find: string, most: number): number {
  let count = 0;
  for (let at = text.indexOf(find); at >= 0 && count < most; at = text.indexOf(find, at + find.length)) count++;
  return count;
}

function replaceOnce(text: string, find: string, put: string): string {
  const at = text.indexOf(find);
  return `${text.slice(0, at)}${put}${text.slice(at + find.length)}`;
}
