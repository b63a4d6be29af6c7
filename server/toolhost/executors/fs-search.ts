import { relative } from 'node:path';
import { FileOpError, probe, readNoFollow } from '../../adapters/agent/files.js';
import { walkTree, type WalkEntry } from '../../adapters/agent/tree-walk.js';
import { foreignPath } from '../../core/lifecycle/provenance-of.js';
import { compileFileGlob } from '../../core/paths/file-glob.js';
import type { ToolhostEnv } from '../env.js';
import { whyUnread } from '../sandbox-masks.js';
import { abortedBy } from '../../core/halt.js';
import { failed, type ExecutionResult, type PreparedAction } from '../types.js';

/**
 * fs.search (T0): the lines holding a literal text in the text files under a folder, as
 * `path:line: text`. What the gate would refuse to read (`.env`, keys, excluded paths) is not
 * searched, nor `.git`, nor a dependency folder unless the search starts inside one (and then the
 * session is tainted like any read there). Each file is redacted before it is searched, so a
 * search never finds (or confirms) a secret. Bounded in entries, bytes and matches; a cut says so.
 * It gives way to other agents' answers as it goes (tree-walk.ts), and stops on HALT or when its
 * caller withdraws it.
 */
const MAX_ENTRIES = 20_000;
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
const MAX_LINE_CHARS = 300;
const DEFAULT_LIMIT = 100;
/** What matching the glob may cost over a whole search (a step is one character compared). */
const GLOB_STEPS = 20_000_000;

export async function fsSearch(action: PreparedAction<'fs.search'>, env: ToolhostEnv): Promise<ExecutionResult> {
  const { path: root, text, glob } = action.args;
  const ignoreCase = action.args.ignore_case === true;
  const limit = action.args.limit ?? DEFAULT_LIMIT;
  const compiled = glob === undefined ? undefined : compileFileGlob(glob);
  if (compiled?.ok === false) return failed('NOT_ALLOWED', `glob \`${glob ?? ''}\`: ${compiled.reason}`);
  // Shared by every name the walk meets: a glob that costs more stops the search, saying so.
  const budget = { steps: GLOB_STEPS };
  const needle = ignoreCase ? text.toLowerCase() : text;
  const insideForeign = foreignPath(root);
  const lines: string[] = [];
  let bytes = 0;
  let files = 0;
  // What was not searched, said in the summary: a search that skips silently reads as "not there".
  let tooLarge = 0;
  let notText = 0;
  let cut: string | undefined;

  const search = (path: string): void => {
    let raw: Buffer;
    try {
      // Exactly the walked path: a folder swapped for a link during the search is read through no link.
      raw = readNoFollow(path, MAX_FILE_BYTES, 'exact');
    } catch (e) {
      if (!(e instanceof FileOpError)) throw e;
      // Too large, or gone or swapped since the walk saw it.
      if (e.code === 'FS_TOO_LARGE') tooLarge += 1;
      return;
    }
    bytes += raw.length;
    if (raw.includes(0)) {
      notText += 1;
      return;
    }
    let content: string;
    try {
      content = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      notText += 1;
      return;
    }
    files += 1;
    const shown = env.redact(content, []).split('\n');
    for (const [i, line] of shown.entries()) {
      if (!(ignoreCase ? line.toLowerCase() : line).includes(needle)) continue;
      if (lines.length >= limit) {
        cut = `more than ${String(limit)} matches`;
        return;
      }
      lines.push(`${path}:${String(i + 1)}: ${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`);
    }
  };

  const kind = probe(root);
  if (kind === 'file') search(root);
  else if (kind === 'dir') {
    const { signal } = action;
    const walk = await walkTree(
      root,
      (entry: WalkEntry) => {
        if (cut !== undefined || whyUnread(env.gate, entry.path) !== undefined) return 'skip';
        if (entry.kind === 'dir') return entry.name === '.git' || (!insideForeign && foreignPath(`/${entry.name}`)) ? 'skip' : 'descend';
        if (bytes >= MAX_TOTAL_BYTES) cut ??= `more than ${String(MAX_TOTAL_BYTES / (1024 * 1024))} MiB read`;
        else {
          const matched = compiled === undefined ? true : compiled.test(relative(root, entry.path), entry.name, budget);
          if (matched === 'over') cut ??= `the glob took more than ${String(GLOB_STEPS)} steps to match against the names met`;
          else if (matched) search(entry.path);
        }
        return 'skip';
      },
      MAX_ENTRIES,
      { stop: () => signal?.aborted === true },
    );
    // A HALT or the caller gone while it searched: what it found so far is not an answer.
    if (signal?.aborted === true) return abortedBy(signal) === 'halt' ? failed('HALTED', 'HALT stopped the search') : failed('CANCELLED', 'the caller withdrew the search; it was stopped');
    if (!walk.complete) cut ??= `more than ${String(MAX_ENTRIES)} entries under the folder`;
  } else return failed(kind === 'missing' ? 'FS_NOT_FOUND' : 'FS_NOT_A_FILE', `\`${root}\` ${kind === 'missing' ? 'does not exist' : 'is neither a file nor a folder'}`);

  const count = (n: number, what: string): string => `${String(n)} ${what}${n === 1 ? '' : 's'}`;
  const unsearched = [
    ...(tooLarge === 0 ? [] : [`${count(tooLarge, 'file')} over ${String(MAX_FILE_BYTES / (1024 * 1024))} MiB (fs_read reads one of up to ${String(env.limits.maxReadBytes / (1024 * 1024))} MiB a page at a time)`]),
    ...(notText === 0 ? [] : [`${count(notText, 'file')} that ${notText === 1 ? 'is' : 'are'} not UTF-8 text`]),
  ];
  const summary = `${String(lines.length)} match${lines.length === 1 ? '' : 'es'} in ${count(files, 'file')} searched${unsearched.length === 0 ? '' : `; not searched: ${unsearched.join(', ')}`}${cut === undefined ? '' : `; stopped: ${cut} (narrow the folder or the glob)`}`;
  return { ok: true, output: [...lines, summary].join('\n'), ...(cut === undefined ? {} : { truncated: true }) };
}

