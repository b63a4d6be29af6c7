import { readdirSync, statSync } from 'node:fs';
import type { DirEntry, ReadDir } from '../core/hook/glob-expand.js';
import { trimEnd } from '../../shared/trim-end.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The folder listing behind a Bash glob's expansion (core/hook/glob-expand.ts): entries with
 * whether each is a folder, a link to a folder counting as one (the shell walks into it for
 * `*\/x`). A folder that cannot be listed is undefined: the shell cannot match names in it either.
 * Names are read as bytes: one that is not UTF-8 would come back mangled (U+FFFD) and no longer
 * name the file the shell passes, so the folder cannot be judged.
 */
export const nodeReadDir: ReadDir = (path) => {
  const folder = trimEnd(path, '/');
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true, encoding: 'buffer' });
  } catch {
    return undefined;
  }
  const out: DirEntry[] = [];
  for (const e of entries) {
    let name: string;
    try {
      name = utf8.decode(e.name);
    } catch {
      return { unjudged: `\`${folder || '/'}\` holds a name that is not UTF-8` };
    }
    const link = e.isSymbolicLink();
    out.push({ name, link, dir: link ? isDir(`${folder}/${name}`) : e.isDirectory() });
  }
  return out;
};

function isDir(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
