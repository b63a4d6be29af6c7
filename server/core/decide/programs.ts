import type { Capability } from '../../../shared/capabilities.js';
import { maxTier } from '../../../shared/tiers.js';
import type { GrammarEntry, Policy } from '../policy/types.js';
import { uncoveredArgv } from '../policy/uncovered.js';
import type { Pin } from './context.js';
import { agentBypassRefusal, oracleCommandRefusal } from './agent-bypass.js';
import { gitBuiltinRefusal, gitNeeds } from './git-rules.js';
import { installNote } from './install-notes.js';
import { npmArgv, npmCommand, npmCommandWords, npmRunForms } from './npm-commands.js';
import { npxBuiltinRefusal } from './npx-rules.js';
import { optionPresent } from './options.js';
import { refused, tiered, type Outcome } from './outcome.js';
import { judgeRunnerOptions } from './runner-options.js';

/**
 * exec.run's program grammar (SPEC §3, §4): the program is a name from the allowlist, pinned at
 * start; the model-chosen argv is judged by deny, then allow_args_matching, then confirm, then
 * allow. Anything no rule covers is refused (deny by default), or a person's call where the
 * program says `default: confirm`.
 */
export interface ProgramJudgement {
  readonly outcome: Outcome;
  /** Capabilities the invocation needs beyond proc.spawn (git fetch needs net.egress). */
  readonly requires: readonly Capability[];
}

export function judgeProgram(program: string, argv: readonly string[], policy: Pick<Policy, 'programs' | 'programDefault'>, pins: ReadonlyMap<string, Pin>): ProgramJudgement {
  const pin = pins.get(program);
  const git = pin?.ok === true && isGit(program, pin.path);
  const needs = git ? gitNeeds(argv) : { capabilities: [], floor: 'T1' as const };
  const judged = judgeArgv(program, argv, policy, pins);
  // An install says what it does on the card, whichever rule let it through (issue 12).
  const note = judged.ok ? installNote(program, argv) : undefined;
  const noted: Outcome = judged.ok && note !== undefined ? { ...judged, reasons: [...judged.reasons, note] } : judged;
  // An option that redirects an allowed runner (npm --registry, pytest --basetemp) asks a person.
  const outcome = noted.ok ? judgeRunnerOptions(noted, program, argv) : noted;
  if (!outcome.ok || needs.floor === 'T1') return { outcome, requires: needs.capabilities };
  const tier = maxTier(outcome.tier, needs.floor);
  const reasons = needs.why === undefined ? outcome.reasons : [...outcome.reasons, needs.why];
  return { outcome: { ...outcome, tier, reasons, floor: maxTier(outcome.floor ?? 'T0', needs.floor) }, requires: needs.capabilities };
}

function judgeArgv(program: string, argv: readonly string[], policy: Pick<Policy, 'programs' | 'programDefault'>, pins: ReadonlyMap<string, Pin>): Outcome {
  if (/[\\/]/u.test(program)) {
    return refused('PROGRAM_UNKNOWN', 'programs', `\`${program}\` is a path; programs are named from the allowlist and pinned at start`);
  }
  // Whatever the policy says, listed or not: never an agent with its own checks switched off.
  const bypass = agentBypassRefusal(argv) ?? oracleCommandRefusal(program, argv);
  if (bypass !== undefined) return bypass;
  const rule = policy.programs.get(program);
  if (rule === undefined) {
    if (policy.programDefault === 'deny' || program === '' || argv.some((a) => a.includes('\u0000'))) return refused('PROGRAM_UNKNOWN', 'programs', `\`${program}\` is not in the program allowlist`);
    // A person sees the exact argv and decides (the agent's own runtime runs it; ORACLE's own
    // exec.run cannot, since only listed programs are pinned at start and PATH is never searched).
    return personsCall('programs.default', `\`${program}\` is not in the program allowlist, and \`programs.default: confirm\` asks a person`);
  }
  const pin = pins.get(program);
  if (pin === undefined || !pin.ok) {
    return refused('PROGRAM_UNPINNED', rule.rule, `\`${program}\` was not pinned at start: ${pin?.ok === false ? pin.reason : 'never resolved'}`);
  }
  if (argv.some((a) => a.includes('\u0000'))) return refused('ARG_SHAPE', rule.rule, 'an argument contains a NUL byte');
  if (isGit(program, pin.path)) {
    const builtin = gitBuiltinRefusal(argv);
    if (builtin !== undefined) return builtin;
  }
  if (isProgram('npx', program, pin.path)) {
    const builtin = npxBuiltinRefusal(argv);
    if (builtin !== undefined) return builtin;
  }
  // npm's lists name commands, which npm's aliases also run (`npm i` is `npm install`).
  const npm = isNpm(program, pin.path);
  const words = npm ? npmArgv(argv) : argv;
  const aka = words === argv ? '' : `npm runs \`${program} ${argv[0] ?? ''}\` as \`${program} ${words[0] ?? ''}\`; `;
  const listed = (entry: GrammarEntry): GrammarEntry => (npm ? npmEntry(entry) : entry);
  // Deny and confirm entries weigh every form npm may run (npm-commands.ts `npmRunForms`).
  const scripted = npm || isProgram('pnpm', program, pin.path) || isProgram('yarn', program, pin.path);
  const forms = scripted ? npmRunForms(words) : [words];
  const lenient = (entry: GrammarEntry): boolean => forms.some((form) => matchesEntry(listed(entry), form, 'lenient'));
  const denied = rule.deny.find(lenient);
  if (denied !== undefined) return refused('PROGRAM_DENIED', denied.rule, `${aka}\`${program} ${denied.text}\` is on the deny list`);
  if (npm) {
    const hidden = npmBehindOptions(argv, rule.deny.map(listed));
    if (hidden !== undefined) return refused('PROGRAM_DENIED', hidden.rule, `npm takes its command from the first word that is not an option or an option's value, which may be \`${hidden.words[0] ?? ''}\`; \`${program} ${hidden.text}\` is on the deny list`);
  }
  const joined = argv.join(' ');
  const pattern = rule.argPatterns.find((p) => argsMatch(p.pattern, argv));
  if (pattern !== undefined) return tiered('T1', pattern.rule, `\`${joined}\` matches \`${pattern.pattern}\``);
  // Leniently too: a confirm rule can only send more to a person, never less.
  const confirm = rule.confirm.find(lenient);
  if (confirm !== undefined) return personsCall(confirm.rule, `${aka}\`${program} ${confirm.text}\` is on the confirm list`);
  const allow = rule.allow.find((entry) => matchesEntry(listed(entry), words));
  if (allow !== undefined) return tiered('T1', allow.rule, `${aka}\`${program} ${allow.text}\` is on the allow list`);
  const uncovered = uncoveredArgv(rule);
  if (uncovered === 'ungoverned') return tiered('T2', rule.rule, `\`${program}\` has no grammar, so every invocation is confirmed`);
  // `make` alone had read "no rule of `make` covers ``" (Claude Code probe, session 36).
  const what = joined === '' ? `\`${program}\` without arguments` : `\`${joined}\``;
  if (uncovered === 'confirm') return personsCall(`${rule.rule}.default`, `no rule of \`${program}\` covers ${what}, and \`programs.${program}.default: confirm\` asks a person`);
  return refused('PROGRAM_ARGS_REFUSED', rule.rule, `no rule of \`${program}\` covers ${what}`);
}

/**
 * The confirm list and `programs.default: confirm` say a person approves the exact argv: T2 and a
 * floor, so a broad tier rule (`{tool: exec.run, program: npm, tier: T1}`) cannot quietly run
 * `npm install` unasked, as `egress.default: confirm` keeps its floor too. A program with no
 * grammar at all is T2 without a floor: a tier rule naming it is how a person lets it run.
 */
function personsCall(rule: string, reason: string): Outcome {
  return { ok: true, tier: 'T2', rule, reasons: [reason], floor: 'T2' };
}

export function isGit(program: string, pinned: string): boolean {
  return isProgram('git', program, pinned);
}

export function isNpm(program: string, pinned: string): boolean {
  return isProgram('npm', program, pinned);
}

/** Whether the program named, or the file its name was pinned to, is `name` (`name.exe`, `name.cmd` on Windows). */
function isProgram(name: string, program: string, pinned: string): boolean {
  if (program === name) return true;
  // the last segment of the pinned path, after `/` or `\`
  const base = pinned.slice(Math.max(pinned.lastIndexOf('/'), pinned.lastIndexOf('\\')) + 1).toLowerCase();
  return base === name || base === `${name}.exe` || base === `${name}.cmd`;
}

/**
 * npm's own options may come before its command (`npm --silent publish`, `npm --loglevel warn
 * token create`): when the argv opens with an option, each word npm may take as its command
 * (npm-commands.ts `npmCommandWords`; after an option ORACLE does not know, the next word may be
 * its value or the command, so both count) is refused when it names a denied command.
 */
function npmBehindOptions(argv: readonly string[], deny: readonly GrammarEntry[]): GrammarEntry | undefined {
  if (!(argv[0]?.startsWith('-') ?? false)) return undefined;
  const words = new Set(npmCommandWords(argv).map(npmCommand));
  return deny.find((entry) => entry.words[0] !== undefined && words.has(entry.words[0]));
}

/** An npm list entry naming its command by an alias means that command (npm-commands.ts). */
function npmEntry(entry: GrammarEntry): GrammarEntry {
  const first = entry.words[0];
  if (first === undefined) return entry;
  const command = npmCommand(first);
  return command === first ? entry : { ...entry, words: [command, ...entry.words.slice(1)] };
}

/**
 * Leading words open the argv in order; every further token appears after them. Deny and
 * confirm entries match leniently (abbreviated long options, bundled short flags); allow entries
 * only as written (`--x` or `--x=v`), so leniency can only ever ask or refuse more.
 */
export function matchesEntry(entry: GrammarEntry, argv: readonly string[], how: 'exact' | 'lenient' = 'exact'): boolean {
  if (entry.words.length === 0 && entry.flags.length === 0) return false;
  for (let i = 0; i < entry.words.length; i++) if (argv[i] !== entry.words[i]) return false;
  const rest = argv.slice(entry.words.length);
  if (how === 'lenient') return entry.flags.every((flag) => optionPresent(flag, rest));
  return entry.flags.every((flag) => rest.some((t) => t === flag || (flag.startsWith('--') && t.startsWith(`${flag}=`))));
}

/**
 * allow_args_matching, token by token: `-m pytest *` is `-m`, then `pytest`, then any further
 * arguments (a final lone `*`). Inside a token `*` and `?` match only within that token, except
 * that a `*` glued to the LAST word also admits further arguments, as the seed's example reads
 * (SPEC §12: `-m pytest*` allows `-m pytest -q tests/`). Every argument is still judged as a path.
 */
export function argsMatch(pattern: string, argv: readonly string[]): boolean {
  const { fixed, open } = argsPattern(pattern);
  if (open ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  for (let i = 0; i < fixed.length; i++) if (!(fixed[i] as RegExp).test(argv[i] ?? '')) return false;
  return true;
}

const patterns = new Map<string, { readonly fixed: readonly RegExp[]; readonly open: boolean }>();

/** A pattern split into its tokens' expressions once, not on every decision (pure, so cached). */
function argsPattern(pattern: string): { readonly fixed: readonly RegExp[]; readonly open: boolean } {
  let parsed = patterns.get(pattern);
  if (parsed === undefined) {
    const tokens = pattern.trim().split(/\s+/u).filter((t) => t !== '');
    const last = tokens.at(-1) ?? '';
    const lone = last === '*';
    parsed = { fixed: (lone ? tokens.slice(0, -1) : tokens).map(tokenRegExp), open: last.endsWith('*') };
    patterns.set(pattern, parsed);
  }
  return parsed;
}

const compiled = new Map<string, RegExp>();

function tokenRegExp(token: string): RegExp {
  let re = compiled.get(token);
  if (re === undefined) {
    const body = Array.from(token).map((c) => (c === '*' ? '[\\s\\S]*' : c === '?' ? '[\\s\\S]' : c.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&'))).join('');
    re = new RegExp(`^${body}$`, 'u');
    compiled.set(token, re);
  }
  return re;
}
