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

export function applyEdits(current: string | null, edits: readonly TextEdit[]): Applied {
  let text = current ?? '';
  for (const [i, edit] of edits.entries()) {
    const which = edits.length > 1 ? `edit ${String(i + 1)}: ` : '';
    if (edit.old_string === '') {
      if (text !== '') return { ok: false, reason: `${which}an empty \`old_string\` only creates a file, and this one has content` };
      text = edit.new_string;
      continue;
    }
    const count = text.split(edit.old_string).length - 1;
    if (count === 0) return { ok: false, reason: `${which}\`old_string\` does not occur in the file` };
    if (count > 1 && !edit.replace_all) return { ok: false, reason: `${which}\`old_string\` occurs ${String(count)} times and \`replace_all\` is not set` };
    // split/join, not replace(): a `$` in new_string is text, never a replacement pattern.
    text = edit.replace_all ? text.split(edit.old_string).join(edit.new_string) : replaceOnce(text, edit.old_string, edit.new_string);
  }
  return { ok: true, text };
}

function replaceOnce(text: string, find: string, put: string): string {
  const at = text.indexOf(find);
  return `${text.slice(0, at)}${put}${text.slice(at + find.length)}`;
}
