import { structuredPatch } from 'diff';

/** One line of a unified diff, as the card shows it. */
export interface DiffLine {
  readonly kind: 'hunk' | 'add' | 'del' | 'same' | 'note';
  readonly text: string;
}

/**
 * The exact change a write makes (SPEC §10), as a unified diff with 3 lines of context (jsdiff's
 * structuredPatch). Identical texts give one note line; nothing is elided silently.
 */
export function unifiedDiff(before: string, after: string): DiffLine[] {
  if (before === after) return [{ kind: 'note', text: 'no change: the file already holds exactly this' }];
  const patch = structuredPatch('before', 'after', before, after, '', '', { context: 3 });
  const out: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    out.push({ kind: 'hunk', text: `@@ -${String(hunk.oldStart)},${String(hunk.oldLines)} +${String(hunk.newStart)},${String(hunk.newLines)} @@` });
    for (const line of hunk.lines) {
      const mark = line.charAt(0);
      out.push({ kind: mark === '+' ? 'add' : mark === '-' ? 'del' : mark === '\\' ? 'note' : 'same', text: line });
    }
  }
  return out;
}
