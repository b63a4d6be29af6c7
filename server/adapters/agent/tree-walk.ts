import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export type WalkEntry = { readonly path: string; readonly name: string; readonly kind: 'dir' | 'file' };

/**
 * Walks a tree without following links, asking `visit` about each entry: `'mask'` records it and
 * does not descend, `'skip'` neither records nor descends, `'descend'` goes on. Stops at `limit`
 * entries and says so, so the caller can fail closed instead of half-masking a huge tree. With
 * `firstMask`, it ends at the first masked entry (the caller only asks whether there is one).
 */
export function walkTree(root: string, visit: (entry: WalkEntry) => 'mask' | 'skip' | 'descend', limit: number, firstMask = false): { masks: WalkEntry[]; complete: boolean } {
  const masks: WalkEntry[] = [];
  const stack = [root];
  let seen = 0;
  while (stack.length > 0) {
    const dir = stack.pop();
    if (dir === undefined) break;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable: the child cannot read it either
    }
    for (const d of entries) {
      seen += 1;
      if (seen > limit) return { masks, complete: false };
      if (d.isSymbolicLink() || !(d.isDirectory() || d.isFile())) continue;
      const entry: WalkEntry = { path: join(dir, d.name), name: d.name, kind: d.isDirectory() ? 'dir' : 'file' };
      const verdict = visit(entry);
      if (verdict === 'mask') {
        masks.push(entry);
        if (firstMask) return { masks, complete: true };
      } else if (verdict === 'descend' && entry.kind === 'dir') stack.push(entry.path);
    }
  }
  return { masks, complete: true };
}
