/**
 * Which npm command a word names, as npm itself reads it (lib/utils/cmd-list.js `deref`, npm 7 to
 * 11): camelCase turned into kebab-case, then a command's own name, then one of npm's aliases
 * (`i`, `add` and `isntall` are `install`; `t` and `tst` are `test`; `run-script` is `run`), then
 * any unique prefix of a command or alias (`npm pub` is `npm publish`, `npm tok` is `npm token`).
 * A policy lists commands by the names it means, so `npm i -D x` is judged as the `npm install`
 * it runs (on the shipped list, a person's call), `npm pub` as the publish it is (refused), and an
 * entry written with an alias means its command too. A word npm cannot resolve is left as written.
 * Pure.
 */
const COMMANDS: readonly string[] = [
  'access', 'adduser', 'approve-scripts', 'audit', 'bugs', 'cache', 'ci', 'completion', 'config', 'dedupe', 'deny-scripts', 'deprecate', 'diff',
  'dist-tag', 'docs', 'doctor', 'edit', 'exec', 'explain', 'explore', 'find-dupes', 'fund', 'get', 'help', 'help-search', 'init', 'install',
  'install-ci-test', 'install-scripts', 'install-test', 'link', 'll', 'login', 'logout', 'ls', 'org', 'outdated', 'owner', 'pack', 'ping', 'pkg',
  'prefix', 'profile', 'prune', 'publish', 'query', 'rebuild', 'repo', 'restart', 'root', 'run', 'sbom', 'search', 'set', 'shrinkwrap', 'stage',
  'star', 'stars', 'start', 'stop', 'team', 'test', 'token', 'trust', 'undeprecate', 'uninstall', 'unpublish', 'unstar', 'update', 'version',
  'view', 'whoami',
];
const COMMAND_SET: ReadonlySet<string> = new Set(COMMANDS);
const ALIASES: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  author: 'owner',
  home: 'docs',
  issues: 'bugs',
  info: 'view',
  show: 'view',
  find: 'search',
  add: 'install',
  unlink: 'uninstall',
  remove: 'uninstall',
  rm: 'uninstall',
  r: 'uninstall',
  un: 'uninstall',
  rb: 'rebuild',
  list: 'ls',
  ln: 'link',
  create: 'init',
  i: 'install',
  it: 'install-test',
  cit: 'install-ci-test',
  u: 'update',
  up: 'update',
  c: 'config',
  s: 'search',
  se: 'search',
  tst: 'test',
  t: 'test',
  ddp: 'dedupe',
  v: 'view',
  'run-script': 'run',
  'clean-install': 'ci',
  'clean-install-test': 'install-ci-test',
  x: 'exec',
  why: 'explain',
  la: 'll',
  verison: 'version',
  ic: 'ci',
  innit: 'init',
  in: 'install',
  ins: 'install',
  inst: 'install',
  insta: 'install',
  instal: 'install',
  isnt: 'install',
  isnta: 'install',
  isntal: 'install',
  isntall: 'install',
  'install-clean': 'ci',
  'isntall-clean': 'ci',
  hlep: 'help',
  'dist-tags': 'dist-tag',
  upgrade: 'update',
  udpate: 'update',
  rum: 'run',
  sit: 'install-ci-test',
  urn: 'run',
  ogr: 'org',
  'add-user': 'adduser',
});

/** Every name npm resolves a prefix against: its commands and its aliases. */
const NAMES: readonly string[] = [...COMMANDS, ...Object.keys(ALIASES)];

/** The npm command `word` runs when it is npm's command word; the word itself when npm knows none. */
export function npmCommand(word: string): string {
  const kebab = /[A-Z]/u.test(word) ? word.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`) : word;
  if (COMMAND_SET.has(kebab)) return kebab;
  const alias = ALIASES[kebab];
  if (alias !== undefined) return alias;
  // npm's abbrev: a prefix of exactly one name is that name (then its alias, if it is one).
  const named = kebab === '' ? [] : NAMES.filter((name) => name.startsWith(kebab));
  const only = named.length === 1 ? named[0] : undefined;
  return only === undefined ? word : (ALIASES[only] ?? only);
}

/** The argv with its first word as the command npm runs; the same array when nothing changes. */
export function npmArgv(argv: readonly string[]): readonly string[] {
  const first = argv[0];
  if (first === undefined || first.startsWith('-')) return argv;
  const command = npmCommand(first);
  return command === first ? argv : [command, ...argv.slice(1)];
}

/** Every word npm runs `command` for, itself first (prefixes and camelCase spellings aside). */
export function npmSpellings(command: string): string[] {
  const target = npmCommand(command);
  return [target, ...Object.keys(ALIASES).filter((alias) => ALIASES[alias] === target)];
}

/**
 * npm options (long names, shorthands) that take the next word as their value (nopt's non-Boolean
 * types, and Boolean ones that also take a string, such as `browser`), checked against npm 11's
 * config definitions. A name here that npm reads as a switch would hide the command behind it, so
 * only sure ones; `color` (a switch that also takes `always`) is in neither list.
 */
const VALUED: ReadonlySet<string> = new Set([
  'w', 'workspace', 'C', 'prefix', 'c', 'call', 'm', 'message', 'L', 'location', 'loglevel', 'tag', 'registry', 'reg', 'userconfig',
  'globalconfig', 'cache', 'otp', 'scope', 'access', 'before', 'enjoy-by', 'omit', 'include', 'script-shell', 'node-options', 'depth',
  'preid', 'install-strategy', 'shell', 'editor', 'browser', 'auth-type', 'init-module',
]);
/** npm switches: Boolean types (nopt then takes a following `true`/`false` as theirs) and the shorthands that expand whole. */
const SWITCHES: ReadonlySet<string> = new Set([
  'd', 'dd', 'ddd', 'q', 'quiet', 's', 'silent', 'verbose', 'g', 'global', 'y', 'yes', 'n', 'no', 'D', 'save-dev', 'E', 'save-exact', 'O',
  'save-optional', 'P', 'save-prod', 'S', 'save', 'B', 'save-bundle', 'f', 'force', 'ws', 'workspaces', 'iwr', 'include-workspace-root',
  'json', 'if-present', 'ignore-scripts', 'audit', 'fund', 'legacy-peer-deps', 'strict-peer-deps', 'prefer-offline', 'prefer-online',
  'offline', 'dry-run', 'l', 'long', 'p', 'parseable', 'porcelain', 'a', 'all', 'production', 'foreground-scripts', 'local', 'h', 'H',
  'help', 'usage', 'v', 'version', 'read-only', 'readonly', 'progress', 'description', 'desc',
]);

/** The tables above, for the test that checks them against the installed npm's own. */
export const NPM_TABLES = { commands: COMMANDS, aliases: ALIASES, valued: VALUED, switches: SWITCHES } as const;

/**
 * The words of an argv that opens with npm's own options which npm may take as its command: the
 * first plain word that is no option's value, and before it every plain word that follows an
 * option ORACLE does not know (which may or may not have taken it as a value). As written.
 */
export function npmCommandWords(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    if (word === '--') {
      const next = argv[i + 1];
      if (next !== undefined) out.push(next);
      return out;
    }
    if (word.startsWith('-')) continue;
    const takes = optionTakes(argv[i - 1]);
    if (takes === 'value') continue;
    // nopt gives a Boolean option a following `true` or `false`.
    if (takes === 'switch' && (argv[i - 1]?.startsWith('-') ?? false) && !(argv[i - 1] ?? '').includes('=') && (word === 'true' || word === 'false')) continue;
    out.push(word);
    if (takes !== 'unknown') return out;
  }
  return out;
}

/**
 * `npm run` takes its script from its first plain word, wherever npm's options put it (`npm run
 * -s env`, `npm run -- env`, `npm run --ignore-scripts env`): the argv again with each word that
 * may be the script moved right after `run`, so a list entry `run env` matches them all (red
 * team, session 37: only `npm run env` as written had asked). The argv itself comes first.
 */
export function npmRunForms(words: readonly string[]): readonly (readonly string[])[] {
  if (words[0] !== 'run' || words.length < 3 || !(words[1] ?? '').startsWith('-')) return [words];
  const rest = words.slice(1);
  const scripts = new Set(npmCommandWords(rest));
  return [words, ...[...scripts].map((script) => ['run', script, ...withoutFirst(rest, script)])];
}

function withoutFirst(words: readonly string[], word: string): string[] {
  const at = words.indexOf(word);
  return [...words.slice(0, at), ...words.slice(at + 1)];
}

/** Whether the token before a plain word takes it as a value: 'switch' also when it is no option at all. */
function optionTakes(before: string | undefined): 'value' | 'switch' | 'unknown' {
  if (before === undefined || !before.startsWith('-') || before.includes('=')) return 'switch';
  const name = before.replace(/^--?/u, '');
  if (before.startsWith('--') && name.startsWith('no-')) return 'switch';
  if (VALUED.has(name)) return 'value';
  if (SWITCHES.has(name)) return 'switch';
  // A bundle of one-letter switches (`-sg`) is switches; one holding a valued letter is unknown.
  if (!before.startsWith('--') && Array.from(name).every((letter) => SWITCHES.has(letter))) return 'switch';
  return 'unknown';
}
