import { trimEnd } from '../../../shared/trim-end.js';
/**
 * Paths as Claude Code itself reads them before it touches anything (2.1.332's expandPath: the
 * field trimmed, `~` and `~/…` taken from the home, an empty one meaning the working directory).
 * Claude Code applies it to Read/Write/Edit/NotebookEdit before the hook sees them, but hands the
 * hook Glob's and Grep's `path`, an absolute Glob pattern and an attachment's path raw: judged as
 * written, `" /etc/passwd"` would be a folder named space inside the project. Pure.
 */
export interface ClaudePaths {
  /** The path Claude Code uses for a field's text; undefined when it is under `~` and the home is unknown. */
  readonly of: (raw: string) => string | undefined;
  /** Why a path could not be read as Claude Code reads it (set once `of` gave undefined). */
  readonly failed: string | undefined;
}

export function claudePaths(cwd: string | undefined, home: string | undefined): ClaudePaths {
  let failed: string | undefined;
  return {
    of: (raw) => {
      const path = raw.trim();
      if (path === '') return cwd;
      if (path !== '~' && !path.startsWith('~/')) return path;
      if (home === undefined) {
        failed = `\`${raw.slice(0, 80)}\` is under your home folder, which the hook does not know`;
        return undefined;
      }
      return path === '~' ? home : `${home}/${path.slice(2)}`;
    },
    get failed() {
      return failed;
    },
  };
}

/**
 * The folder Claude Code's Glob searches for an absolute pattern: the text before the first
 * `*`, `?`, `[` or `{`, up to its last separator (without a wildcard: its parent folder, as
 * dirname gives it), before expandPath. A relative pattern is matched by ripgrep below `path`,
 * which it never leaves: undefined. Which patterns are absolute differs by host (Claude Code on
 * Windows also reads `\\x` as absolute; on POSIX `C:/x` is relative): the caller judges `path` too. A backslash separates only in a drive-letter pattern (on POSIX it escapes, and `\x`
 * is relative).
 */
export function absoluteGlobFolder(pattern: string | undefined): string | undefined {
  if (pattern === undefined) return undefined;
  const drive = /^[A-Za-z]:[/\\]/u.test(pattern);
  if (!drive && !pattern.startsWith('/')) return undefined;
  const wild = pattern.search(/[*?[{]/u);
  // Without a wildcard Claude Code takes the pattern's dirname, which passes over trailing separators.
  const literal = wild === -1 ? trimEnd(pattern, drive ? '/\\' : '/') || pattern.charAt(0) : pattern.slice(0, wild);
  const cut = drive ? Math.max(literal.lastIndexOf('/'), literal.lastIndexOf('\\')) : literal.lastIndexOf('/');
  const folder = literal.slice(0, cut);
  // `/x` and `C:/x` keep their root.
  return folder === '' || /^[A-Za-z]:$/u.test(folder) ? literal.slice(0, cut + 1) : folder;
}
