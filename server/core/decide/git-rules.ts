import { refused, type Outcome } from './outcome.js';

/**
 * Built-in git knowledge that no policy can switch off (SPEC §6): options that run other
 * programs, read another config or repository, or write outside the work tree, and force-pushes.
 */
const ANYWHERE = ['-c', '-C', '--config-env', '--exec-path', '--git-dir', '--work-tree', '--namespace', '--super-prefix',
  '--upload-pack', '--receive-pack', '--exec', '--output', '--template', '--config', '--open-files-in-pager', '--extcmd'];
const BY_SUBCOMMAND: Readonly<Record<string, readonly string[]>> = {
  rebase: ['-x'],
  difftool: ['-x', '-t', '--tool'],
  mergetool: ['-t', '--tool'],
  grep: ['-O'],
  'format-patch': ['-o'],
};

function hasOption(argv: readonly string[], option: string): boolean {
  const long = option.startsWith('--');
  return argv.some((token) => (long ? token === option || token.startsWith(`${option}=`) : token === option || (token.startsWith(option) && !token.startsWith('--'))));
}

/** Refuses git argv that the subcommand grammar must never see; undefined when none applies. */
export function gitBuiltinRefusal(argv: readonly string[]): Outcome | undefined {
  const subcommand = argv.find((t) => !t.startsWith('-')) ?? '';
  const dangerous = [...ANYWHERE, ...(BY_SUBCOMMAND[subcommand] ?? [])].find((option) => hasOption(argv, option));
  if (dangerous !== undefined) {
    return refused('PROGRAM_DENIED', 'builtin.git.options', `git option \`${dangerous}\` can run programs or reach outside the repository`);
  }
  if (subcommand === 'push' && isForcePush(argv.slice(argv.indexOf('push') + 1))) {
    return refused('GIT_FORCE_PUSH', 'builtin.git.force_push', 'force-pushing rewrites history other people have');
  }
  return undefined;
}

/** `--force`, `-f` (also inside `-uf`), `--force-with-lease`, `--force-if-includes`, `--mirror`, `+ref`. */
export function isForcePush(args: readonly string[]): boolean {
  return args.some(
    (t) =>
      t === '--force' ||
      t.startsWith('--force-with-lease') ||
      t === '--force-if-includes' ||
      t === '--mirror' ||
      /^-[a-zA-Z]*f[a-zA-Z]*$/u.test(t) ||
      (t.startsWith('+') && t.length > 1),
  );
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
