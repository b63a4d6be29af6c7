import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { probe } from '../adapters/agent/files.js';
import { readOperatorFile } from '../adapters/files.js';
import { discoverRepository } from '../core/decide/git-discovery.js';
import type { LinkReader } from '../core/paths/resolve.js';

/**
 * Where git takes its hooks from for a command started in `cwd`, when a config says
 * (`core.hooksPath`): the repository's own hooks live under `.git`, which no agent may write,
 * but a hooks path can name a folder of the project (`.githooks`), and every git command the
 * agent's runtime runs (a commit's pre-commit, any ref update's reference-transaction) then runs
 * what is there (red team, session 37: an Edit of `.githooks/pre-commit` and a `git commit`, each
 * T1, printed `.env` and a secret outside the project). Read from the files git reads (the
 * user's global config, then the repository's; the last setting wins), not by running git: this
 * is asked for every git command. A config that includes others cannot be read whole here:
 * `unsure`, which the gate treats as a hooks folder it cannot see.
 */
export type HooksPath = { readonly dir: string } | { readonly unsure: string };

export function configuredHooksPath(cwd: string, reader: LinkReader, home: string = homedir()): HooksPath | undefined {
  const found = discoverRepository(cwd, reader);
  // A bare repository already waits for a person (git-discovery.ts); no repository, no hooks.
  if (found.kind !== 'dotgit') return undefined;
  const top = dirname(found.at);
  const gitDir = probe(found.at) === 'dir' ? found.at : linkedGitDir(found.at, top);
  if (gitDir === undefined) return { unsure: `\`${found.at}\` does not say where its repository is` };
  const common = commonDir(gitDir);
  const xdg = process.env['XDG_CONFIG_HOME'];
  const files = [join(home, '.gitconfig'), join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.config'), 'git', 'config'), join(common, 'config'), join(gitDir, 'config.worktree')];
  let value: string | undefined;
  for (const file of files) {
    const read = readConfig(file);
    if (read === undefined) continue;
    if ('unsure' in read) return read;
    if (read.value !== undefined) value = read.value;
  }
  if (value === undefined || value === '') return undefined;
  const expanded = value.startsWith('~/') ? join(home, value.slice(2)) : value;
  return { dir: isAbsolute(expanded) ? expanded : resolve(top, expanded) };
}

/** A `.git` file (a worktree, a submodule) says `gitdir: PATH`. */
function linkedGitDir(dotGit: string, top: string): string | undefined {
  const read = probe(dotGit) === 'file' ? readOperatorFile(dotGit) : undefined;
  const line = read?.ok === true ? /^gitdir:\s*(.+?)\s*$/mu.exec(read.bytes.toString('utf8'))?.[1] : undefined;
  return line === undefined ? undefined : resolve(top, line);
}

/** A worktree's shared repository (its `commondir` file), where the main config lives. */
function commonDir(gitDir: string): string {
  const read = probe(join(gitDir, 'commondir')) === 'file' ? readOperatorFile(join(gitDir, 'commondir')) : undefined;
  return read?.ok === true ? resolve(gitDir, read.bytes.toString('utf8').trim()) : gitDir;
}

/** core.hooksPath in one config file (its last setting), or why the file cannot be read whole. */
function readConfig(file: string): { readonly value: string | undefined } | { readonly unsure: string } | undefined {
  const kind = probe(file);
  if (kind === 'missing') return undefined;
  // A config a link names is still read (dotfiles are often links); anything else is not a config.
  if (kind !== 'file' && kind !== 'link') return { unsure: `\`${file}\` is not a file` };
  const read = readOperatorFile(file);
  if (!read.ok) return kind === 'link' ? undefined : { unsure: `\`${file}\` cannot be read (${read.reason})` };
  let section = '';
  let value: string | undefined;
  for (const line of read.bytes.toString('utf8').split('\n')) {
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)/u.exec(line);
    if (header !== null) {
      section = (header[1] ?? '').toLowerCase();
      if (section === 'include' || section === 'includeif') return { unsure: `\`${file}\` includes other config files` };
      // `[core] hooksPath = x` on the header's own line
      const rest = line.slice(line.indexOf(']') + 1);
      const inline = section === 'core' ? hooksSetting(rest) : undefined;
      if (inline !== undefined) value = inline;
      continue;
    }
    if (section !== 'core') continue;
    const setting = hooksSetting(line);
    if (setting !== undefined) value = setting;
  }
  return { value };
}

/** The value of a `hooksPath = VALUE` line (any case), quotes and a trailing comment taken off. */
function hooksSetting(line: string): string | undefined {
  const match = /^\s*hookspath\s*=\s*(.*)$/iu.exec(line);
  if (match === null) return undefined;
  const raw = (match[1] ?? '').trim();
  if (raw.startsWith('"')) return /^"((?:[^"\\]|\\.)*)"/u.exec(raw)?.[1]?.replace(/\\(.)/gu, '$1') ?? raw;
  return raw.replace(/\s*[#;].*$/u, '').trim();
}
