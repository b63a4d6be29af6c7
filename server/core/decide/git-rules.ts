import { optionPresent, shortLetters, spellsLongOption } from './options.js';
import { refused, type Outcome } from './outcome.js';

/**
 * Built-in git knowledge that no policy can switch off (SPEC §6): options that run other
 * programs, read another config or repository, or write outside the work tree, and force-pushes.
 * Matched leniently (prefixes, bundled flags; see options.ts).
 */
const BANNED_LONG = [
  '--config-env', '--exec-path', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--upload-pack',
  '--receive-pack', '--exec', '--output', '--template', '--config', '--open-files-in-pager', '--extcmd', '--no-index',
  '--separate-git-dir', '--reference', '--tool', '--untracked', '--no-exclude-standard',
  // The toolhost puts --no-ext-diff and --no-textconv first; a later one from the model would win.
  '--ext-diff', '--textconv',
];
const BANNED_SHORT = new Map<string, string>([
  ['rebase', 'x'],
  ['difftool', 'xt'],
  ['mergetool', 't'],
  ['grep', 'O'],
  ['format-patch', 'o'],
  ['clone', 'uc'],
  ['ls-remote', 'u'],
  ['archive', 'o'],
]);
const FORCE = ['--force', '--force-with-lease', '--force-if-includes', '--mirror'];

/**
 * What a git subcommand run through exec.run really does, so exec cannot be a way around the
 * capabilities and floors of the git intents: network subcommands need net.egress, writing ones
 * need git.write, and a push is never below T2 (git.push's floor), whatever a tier rule says.
 */
const NETWORK = new Set(['fetch', 'pull', 'push', 'clone', 'ls-remote', 'submodule', 'remote', 'archive']);
const WRITES = new Set(['commit', 'merge', 'rebase', 'cherry-pick', 'revert', 'reset', 'tag', 'branch', 'switch', 'checkout', 'restore', 'stash', 'add', 'rm', 'mv', 'am', 'apply', 'worktree', 'notes', 'clean', 'gc', 'prune', 'pull', 'init', 'clone', 'update-ref', 'replace']);

/** The built-in git rules as data, for translators that must state them elsewhere (bench/cedar). */
export const GIT_RULES = { bannedLong: BANNED_LONG, bannedShort: BANNED_SHORT, force: FORCE, network: NETWORK, writes: WRITES } as const;

export function gitNeeds(argv: readonly string[]): { capabilities: ('net.egress' | 'git.write')[]; floor: 'T1' | 'T2'; why?: string } {
  const subcommand = argv[0] ?? '';
  const capabilities: ('net.egress' | 'git.write')[] = [];
  if (NETWORK.has(subcommand)) capabilities.push('net.egress');
  if (WRITES.has(subcommand) || subcommand === 'push') capabilities.push('git.write');
  const destroys = destroysWork(subcommand, argv.slice(1));
  if (destroys !== undefined) return { capabilities, floor: 'T2', why: destroys };
  return { capabilities, floor: subcommand === 'push' ? 'T2' : 'T1' };
}

/**
 * The forms of everyday branch work that throw away uncommitted changes or rewrite config, which
 * git itself will not undo, and `add --chmod`, a `chmod` by other means: a person's call whatever
 * the allow list says (like a push's floor).
 * Judged conservatively: `checkout NAME` may name a file as well as a branch, so only
 * `checkout -b NEW [START]` is plain branch work.
 */
function destroysWork(subcommand: string, rest: readonly string[]): string | undefined {
  const has = (...options: string[]): boolean => options.some((o) => optionPresent(o, rest));
  switch (subcommand) {
    case 'checkout': {
      const plainNew = rest[0] === '-b' && rest.length >= 2 && rest.length <= 3 && rest.slice(1).every((t) => !t.startsWith('-') && t !== '.');
      // The agent is told the form that needs no one: switch refuses to overwrite local changes.
      return plainNew ? undefined : '`git checkout` of a name other than a new branch can overwrite uncommitted changes in files (`git switch NAME` changes branch without that)';
    }
    case 'restore':
      return has('--staged', '-S') && !has('--worktree', '-W') ? undefined : '`git restore` of the work tree throws away uncommitted changes';
    case 'add':
      // The mode goes into the index, and the next checkout or stash puts it on the file.
      return has('--chmod') ? '`git add --chmod` changes whether a file may run, as `chmod` does' : undefined;
    case 'mv':
      // As `checkout` of a file: what the destination held, committed or not, is gone.
      return has('--force', '-f') ? '`git mv -f` overwrites what the destination holds' : undefined;
    case 'clean':
      return has('--dry-run', '-n') && !has('--force', '-f') ? undefined : '`git clean` deletes untracked files for good';
    case 'remote':
      // Listing remotes and their URLs reads config; adding or changing one writes it.
      return rest.length === 0 || (rest.length === 1 && (rest[0] === '-v' || rest[0] === '--verbose')) || (rest[0] === 'get-url' && rest.length === 2) ? undefined : '`git remote` changes which servers this repository talks to';
    default:
      return undefined;
  }
}

/** Refuses git argv that the subcommand grammar must never see; undefined when none applies. */
export function gitBuiltinRefusal(argv: readonly string[]): Outcome | undefined {
  const first = argv[0] ?? '';
  if (first.startsWith('-')) {
    return refused('PROGRAM_DENIED', 'builtin.git.options', `git options before the subcommand (\`${first}\`) change which repository, config or program git uses`);
  }
  const rest = argv.slice(1);
  const long = BANNED_LONG.find((option) => rest.some((t) => spellsLongOption(t, option)));
  if (long !== undefined) return refused('PROGRAM_DENIED', 'builtin.git.options', `git option \`${long}\` can run programs or reach outside the repository`);
  const letters = shortLetters(rest);
  const short = Array.from(BANNED_SHORT.get(first) ?? '').find((c) => letters.has(c));
  if (short !== undefined) return refused('PROGRAM_DENIED', 'builtin.git.options', `\`git ${first} -${short}\` can run programs or write outside the repository`);
  if (first === 'push' && isForcePush(rest)) return refused('GIT_FORCE_PUSH', 'builtin.git.force_push', 'force-pushing rewrites history other people have');
  return undefined;
}

/** Every spelling of a force-push: long options and their prefixes, `-f` in any bundle, `+ref`. */
export function isForcePush(args: readonly string[]): boolean {
  return args.some((t) => FORCE.some((option) => spellsLongOption(t, option)) || (t.startsWith('+') && t.length > 1) || /^-[^-]*f/u.test(t));
}

/**
 * A ref or remote name the git intents may interpolate: no option look-alike, no refspec, no
 * revision syntax (git check-ref-format, simplified to refuse more, never less).
 */
export function isSafeRefName(name: string): boolean {
  return (
    /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/u.test(name) &&
    !name.includes('..') &&
    !name.includes('//') &&
    !name.endsWith('/') &&
    !name.endsWith('.') &&
    !name.endsWith('.lock')
  );
}
