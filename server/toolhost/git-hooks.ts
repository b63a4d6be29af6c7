import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { probe } from '../adapters/agent/files.js';
import { readOperatorFile } from '../adapters/files.js';
import { discoverRepository } from '../core/decide/git-discovery.js';
import type { LinkReader } from '../core/paths/resolve.js';

/**
 * Where git may take its hooks from for a command started in `cwd`, when a config says
 * (`core.hooksPath`): the repository's own hooks live under `.git`, which no agent may write,
 * but a hooks path can name a folder of the project (`.githooks`), and every git command the
 * agent's runtime runs (a commit's pre-commit, any ref update's reference-transaction) then runs
 * what is there (red team, session 37: an Edit of `.githooks/pre-commit` and a `git commit`, each
 * T1, printed `.env` and a secret outside the project). Read from the files git reads (system,
 * the user's global ones, the repository's, and every file they include), not by running git:
 * this is asked for every git command. Every value found counts, not only the one git would
 * take (an `includeIf` may or may not apply): `dirs` lists them all. A value ORACLE does not
 * read plainly (escapes, a quote inside it, a continued line) or a config it cannot read is
 * `unsure`, which the gate treats as a hooks folder it cannot see.
 */
export type HooksPath = { readonly dirs: readonly string[] } | { readonly unsure: string };

/**
 * The work tree's top and git's own folder for a command started in `cwd` (a `.git` file says
 * where that is; a folder, or a link to one, is it), or why that cannot be said; undefined where
 * git would find no repository of a work tree (none at all, or a bare one).
 */
export function repositoryOf(cwd: string, reader: LinkReader): { readonly top: string; readonly gitDir: string } | { readonly unsure: string } | undefined {
  const found = discoverRepository(cwd, reader);
  if (found.kind !== 'dotgit') return undefined;
  const top = dirname(found.at);
  const gitDir = probe(found.at) === 'file' ? linkedGitDir(found.at, top) : found.at;
  return gitDir === undefined ? { unsure: `\`${found.at}\` does not say where its repository is` } : { top, gitDir };
}

export function configuredHooksPath(cwd: string, reader: LinkReader, home: string = homedir()): HooksPath | undefined {
  // A bare repository already waits for a person (git-discovery.ts); no repository, no hooks.
  const repo = repositoryOf(cwd, reader);
  if (repo === undefined || 'unsure' in repo) return repo;
  const { top, gitDir } = repo;
  const common = commonDir(gitDir);
  const xdg = process.env['XDG_CONFIG_HOME'];
  // git's own order: system, XDG, ~/.gitconfig, the repository's, the worktree's.
  const files = ['/etc/gitconfig', join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.config'), 'git', 'config'), join(home, '.gitconfig'), join(common, 'config'), join(gitDir, 'config.worktree')];
  const values: string[] = [];
  for (const file of files) {
    const read = readConfig(file, home, 0);
    if ('unsure' in read) return read;
    values.push(...read.values);
  }
  const dirs = values.filter((v) => v !== '').map((value) => {
    const expanded = value.startsWith('~/') ? join(home, value.slice(2)) : value;
    return isAbsolute(expanded) ? expanded : resolve(top, expanded);
  });
  return dirs.length === 0 ? undefined : { dirs: [...new Set(dirs)] };
}

/** A `.git` file (a worktree, a submodule) says `gitdir: PATH`. */
function linkedGitDir(dotGit: string, top: string): string | undefined {
  const read = readOperatorFile(dotGit);
  const line = read.ok ? /^gitdir:\s*(.+?)\s*$/mu.exec(read.bytes.toString('utf8'))?.[1] : undefined;
  return line === undefined ? undefined : resolve(top, line);
}

/** A worktree's shared repository (its `commondir` file), where the main config lives. */
function commonDir(gitDir: string): string {
  const read = probe(join(gitDir, 'commondir')) === 'file' ? readOperatorFile(join(gitDir, 'commondir')) : undefined;
  return read?.ok === true ? resolve(gitDir, read.bytes.toString('utf8').trim()) : gitDir;
}

/** Includes followed this deep at most (git's own limit is 10). */
const MAX_INCLUDE_DEPTH = 10;

/** Every core.hooksPath one config file and what it includes set, or why they cannot be read whole. */
function readConfig(file: string, home: string, depth: number): { readonly values: readonly string[] } | { readonly unsure: string } {
  const kind = probe(file);
  // A missing file (an include of one too) is no setting, as git has it.
  if (kind === 'missing') return { values: [] };
  // A config a link names is still read (dotfiles are often links); anything else is not a config.
  if (kind !== 'file' && kind !== 'link') return { unsure: `\`${file}\` is not a file` };
  if (depth > MAX_INCLUDE_DEPTH) return { unsure: `\`${file}\` is included more than ${String(MAX_INCLUDE_DEPTH)} deep` };
  const read = readOperatorFile(file);
  if (!read.ok) return kind === 'link' && read.reason === 'ENOENT' ? { values: [] } : { unsure: `\`${file}\` cannot be read (${read.reason})` };
  let section = '';
  const values: string[] = [];
  for (const raw of read.bytes.toString('utf8').split(/\r?\n/u)) {
    let line = raw;
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)[^\]]*\]/u.exec(line);
    if (header !== null) {
      section = (header[1] ?? '').toLowerCase();
      // `[core] hooksPath = x` on the header's own line
      line = line.slice(header[0].length);
    }
    const setting = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/u.exec(line);
    if (setting === null) continue;
    const key = (setting[1] ?? '').toLowerCase();
    const wanted = (section === 'core' && key === 'hookspath') || ((section === 'include' || section === 'includeif') && key === 'path');
    if (!wanted) continue;
    const value = plainValue(setting[2] ?? '');
    if (value === undefined) return { unsure: `\`${file}\` sets \`${section}.${key}\` in a form ORACLE does not read` };
    if (section === 'core') {
      values.push(value);
      continue;
    }
    const included = value.startsWith('~/') ? join(home, value.slice(2)) : isAbsolute(value) ? value : resolve(dirname(file), value);
    const inner = readConfig(included, home, depth + 1);
    if ('unsure' in inner) return inner;
    values.push(...inner.values);
  }
  return { values };
}

/**
 * A config value written plainly: bare (a trailing comment and spaces taken off) or wholly in
 * double quotes. Undefined for anything else (an escape, a quote inside, a continued line), which
 * git may read as another value than a simple reading would.
 */
function plainValue(raw: string): string | undefined {
  const text = raw.replace(/\s+[#;].*$/u, '').replace(/^[#;].*$/u, '').trim();
  if (text.includes('\\')) return undefined;
  if (text.startsWith('"')) {
    const quoted = /^"([^"]*)"$/u.exec(text);
    return quoted?.[1];
  }
  return text.includes('"') ? undefined : text;
}
