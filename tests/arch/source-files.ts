import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const REPO = join(import.meta.dirname, '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'certs', 'coverage', 'test-results']);

export interface SourceFile {
  /** Repository-relative, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

/** Every .ts/.js/.mjs/.cjs source file of the repository (outside node_modules and build output). */
export function sourceFiles(root = REPO): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') && entry.name !== '.ci') continue;
      if (SKIP.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(?:ts|js|mjs|cjs)$/u.test(entry.name)) out.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
    }
  };
  walk(root);
  return out;
}
