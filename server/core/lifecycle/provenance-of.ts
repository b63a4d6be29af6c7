import type { ProvenanceEntry } from '../../../shared/provenance.js';

/** Folders whose content someone else wrote: reading them taints the session (SPEC §4). */
const FOREIGN = new Set(['node_modules', 'vendor', 'third_party', 'third-party', 'bower_components', '.venv', 'venv', 'site-packages', '.cargo', 'Pods']);
/** Programs whose output is whatever a server sent. */
const FETCHERS = new Set(['curl', 'wget', 'http', 'https', 'xh', 'aria2c', 'lynx', 'w3m']);
/** Archives are someone else's files however they arrived. */
const ARCHIVE = /\.(?:zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz|tbz2|txz|7z|rar|whl|jar|gem|crate|nupkg)$/iu;
/** git arguments that name history fetched from elsewhere (remote-tracking refs, FETCH_HEAD, all refs). */
const FETCHED_REF = /^(?:--all|--remotes(?:=.*)?|--branches=.*\/.*|FETCH_HEAD|[^-][^:]*@\{(?:u|upstream|push)\}.*|(?:origin|upstream|refs\/remotes)\/.+)$/u;
/** git commands that print commits, messages and content. */
const GIT_SHOWS = new Set(['log', 'show', 'diff', 'blame', 'shortlog', 'whatchanged', 'cat-file', 'grep']);

/** Whether a folder of this name holds someone else's files (a dependency, a vendored tree). */
export const foreignFolder = (name: string): boolean => FOREIGN.has(name);

/** Whether a path lies in a folder of someone else's files. */
export const foreignPath = (path: string): boolean => path.split('/').some(foreignFolder);

/**
 * What an action brought into the agent's context: a fetched page or a fetcher's output is
 * external; a file under a dependency folder, an archive, or history fetched from a remote is
 * local_foreign. Anything else it read counts as the user's own. Used after ORACLE runs an action,
 * and when it allows an action the agent's own runtime runs (Claude Code), so the taint is in place
 * before the agent sees the content.
 */
export function provenanceOfResult(tool: string, args: Readonly<Record<string, unknown>>): ProvenanceEntry[] {
  if (tool === 'net.fetch' && typeof args['url'] === 'string') return [{ kind: 'external', source: args['url'] }];
  // fs.search never descends into such folders on its own, so only a search rooted in one reads them.
  if ((tool === 'fs.read' || tool === 'fs.list' || tool === 'fs.search') && typeof args['path'] === 'string') {
    const path = args['path'];
    if (foreignPath(path)) return [{ kind: 'local_foreign', source: path }];
  }
  // A copy or move out of a dependency folder takes its text where no path says whose it is
  // (`mv node_modules/x/README.md notes.md`, then a plain read): it counts as read now.
  if ((tool === 'fs.copy' || tool === 'fs.move') && typeof args['from'] === 'string') {
    const from = args['from'];
    if (foreignPath(from) || ARCHIVE.test(from)) return [{ kind: 'local_foreign', source: from }];
  }
  // Whatever ran in the terminal printed it: a program's output, a file's text, a server's answer.
  if (tool === 'term.read' && typeof args['session'] === 'string') return [{ kind: 'local_foreign', source: `terminal ${args['session']}` }];
  if (tool === 'exec.run' || tool === 'exec.run_with_secrets') return provenanceOfRun(args);
  return [];
}

function provenanceOfRun(args: Readonly<Record<string, unknown>>): ProvenanceEntry[] {
  const program = typeof args['program'] === 'string' ? args['program'] : '';
  const argv = Array.isArray(args['args']) ? args['args'].filter((a): a is string => typeof a === 'string') : [];
  const line = [program, ...argv].join(' ').slice(0, 300);
  if (FETCHERS.has(program)) return [{ kind: 'external', source: line }];
  if (program === 'git' && GIT_SHOWS.has(argv[0] ?? '') && argv.slice(1).some((a) => FETCHED_REF.test(a))) return [{ kind: 'local_foreign', source: line }];
  const read = argv.find((a) => foreignPath(a) || ARCHIVE.test(a));
  return read === undefined ? [] : [{ kind: 'local_foreign', source: read }];
}
