/** Hidden files named, at most, in what a command would print. */
const MAX_NAMED = 20;

/** The files a git command would print that the policy hides, or why ORACLE cannot say. */
export type PrintedFacts = { readonly hidden: readonly string[] } | { readonly unsure: string };

/**
 * The hidden files in what a query of git-prints.ts printed (git's own answer, run by the
 * runtime): `hides` says whether the policy hides a path relative to the repository's top. Pure.
 */
export function hiddenInPrinted(stdout: string, output: 'raw' | 'names' | 'none', hides: (path: string) => boolean): PrintedFacts {
  if (output === 'none') return { hidden: [] };
  const names = namesIn(stdout, output);
  if ('unsure' in names) return names;
  const hidden: string[] = [];
  for (const readings of names.names) {
    // the shortest reading that is hidden names it (`.env` of `HEAD~1^{tree}:.env`)
    const name = readings.findLast(hides);
    if (name !== undefined && !hidden.includes(name)) hidden.push(name);
    if (hidden.length >= MAX_NAMED) break;
  }
  return { hidden };
}

/**
 * The paths in a query's output, each as the readings to judge. `raw`: `:MODES SHAS STATUS` then the path, each NUL-ended (a
 * submodule's mode, 160000, means git may print another repository's files: unsure). `names`:
 * grep's `-l`, a path or `REV:path`; every part after a colon is judged too (the safe side).
 */
function namesIn(stdout: string, output: 'raw' | 'names'): { readonly names: readonly (readonly string[])[] } | { readonly unsure: string } {
  const fields = stdout.split('\0').map((f) => f.replace(/^\n+/u, '')).filter((f) => f !== '');
  if (output === 'names') return { names: fields.map((f) => [f, ...[...f.matchAll(/:/gu)].map((m) => f.slice(m.index + 1))].filter((r) => r !== '')) };
  const names: string[][] = [];
  for (let i = 0; i < fields.length; i += 1) {
    const header = fields[i] ?? '';
    if (!header.startsWith(':')) return { unsure: `git's list of changed files had an entry ORACLE does not read (\`${header.slice(0, 40)}\`)` };
    const modes = header.replace(/^:+/u, '').split(' ').filter((w) => /^[0-7]{6}$/u.test(w));
    if (modes.includes('160000')) return { unsure: 'it would print a submodule, a repository of its own whose files ORACLE cannot list' };
    const path = fields[i + 1];
    if (path === undefined) return { unsure: "git's list of changed files ended early" };
    names.push([path]);
    i += 1;
  }
  return { names };
}
