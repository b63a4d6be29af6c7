/**
 * Which npm command a word names, as npm itself reads it (lib/utils/cmd-list.js `deref`, npm 7 to
 * 11): camelCase turned into kebab-case, then a command's own name, then one of npm's aliases
 * (`i`, `add` and `isntall` are `install`; `t` and `tst` are `test`; `run-script` is `run`).
 * A policy lists commands by the names it means, so `npm i -D x` is judged as the `npm install`
 * it runs (on the shipped list, a person's call) instead of falling through to "no rule covers
 * it", and an entry written with an alias means its command too. npm also accepts any unique
 * prefix (`npm tes`); those are left as written, so no rule names them and they are refused.
 * Pure.
 */
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

/** The npm command `word` runs when it is npm's first argument: itself unless it is an alias. */
export function npmCommand(word: string): string {
  const kebab = /[A-Z]/u.test(word) ? word.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`) : word;
  return ALIASES[kebab] ?? kebab;
}

/** The argv with its first word as the command npm runs; the same array when nothing changes. */
export function npmArgv(argv: readonly string[]): readonly string[] {
  const first = argv[0];
  if (first === undefined || first.startsWith('-')) return argv;
  const command = npmCommand(first);
  return command === first ? argv : [command, ...argv.slice(1)];
}

/** Every word npm runs `command` for, itself first (camelCase spellings aside). */
export function npmSpellings(command: string): string[] {
  const target = npmCommand(command);
  return [target, ...Object.keys(ALIASES).filter((alias) => ALIASES[alias] === target)];
}
