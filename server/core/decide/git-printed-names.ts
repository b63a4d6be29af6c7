/** Hidden files named, at most, in what a command would print. */
const MAX_NAMED = 20;

/** The files a git command would print that the policy hides, or why ORACLE cannot say. */
export type PrintedFacts = { readonly hidden: readonly string[] } | { readonly unsure: string };

const SUBMODULE = 'it would print a submodule, a repository of its own whose files ORACLE cannot list';

/**
 * The hidden files in what the runs of a git-prints.ts query printed (git's own answer, run by
 * the runtime): `hides` says whether the policy hides a path relative to the repository's top. Pure.
 */
export function hiddenInPrinted(outputs: readonly string[], query: { readonly output: 'raw' | 'names' | 'none'; readonly strip?: string }, hides: (path: string) => boolean): PrintedFacts {
  if (query.output === 'none') return { hidden: [] };
  const hidden: string[] = [];
  for (const stdout of outputs) {
    const names = query.output === 'raw' ? rawPaths(stdout) : listedPaths(stdout, query.strip ?? '');
    if ('unsure' in names) return names;
    for (const name of names.paths) {
      if (hides(name) && !hidden.includes(name)) hidden.push(name);
      if (hidden.length >= MAX_NAMED) return { hidden };
    }
  }
  return { hidden };
}

/** NUL-ended fields; a log's commits may be set apart by line breaks before the next entry. */
const fieldsOf = (stdout: string): string[] => stdout.split('\0').map((f) => f.replace(/^\n+/u, '')).filter((f) => f !== '');

/**
 * `--raw -z`: `:MODES SHAS STATUS` then the path, or both paths of a rename or copy (`R100`,
 * `C75`); a combined diff's `::…` has one. A submodule's mode (160000) means git may print
 * another repository's files: unsure.
 */
function rawPaths(stdout: string): { readonly paths: readonly string[] } | { readonly unsure: string } {
  const fields = fieldsOf(stdout);
  const paths: string[] = [];
  for (let i = 0; i < fields.length; ) {
    const header = fields[i] ?? '';
    // (never quoted: an unreadable entry may be a file's text)
    if (!header.startsWith(':')) return { unsure: "git's list of changed files had an entry ORACLE does not read" };
    const words = header.replace(/^:+/u, '').split(' ');
    if (words.some((w) => w === '160000')) return { unsure: SUBMODULE };
    const status = words.at(-1) ?? '';
    const count = !header.startsWith('::') && /^[RC]/u.test(status) ? 2 : 1;
    const named = fields.slice(i + 1, i + 1 + count);
    if (named.length < count) return { unsure: "git's list of changed files ended early" };
    paths.push(...named);
    i += 1 + count;
  }
  return { paths };
}

/** A grep's `-l -z` names, each after the revision it searched (`REV:path`) when it searched one. */
function listedPaths(stdout: string, strip: string): { readonly paths: readonly string[] } | { readonly unsure: string } {
  const paths: string[] = [];
  for (const name of fieldsOf(stdout)) {
    if (!name.startsWith(strip)) return { unsure: "git's list of files had an entry ORACLE does not read" };
    paths.push(name.slice(strip.length));
  }
  return { paths };
}
