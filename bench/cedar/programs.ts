import type { Pin } from '../../server/core/decide/context.js';
import { GIT_RULES } from '../../server/core/decide/git-rules.js';
import { npmSpellings } from '../../server/core/decide/npm-commands.js';
import { isGit, isNpm } from '../../server/core/decide/programs.js';
import type { GrammarEntry, ProgramRule } from '../../server/core/policy/types.js';
import { uncoveredArgv } from '../../server/core/policy/uncovered.js';
import { ceilingPolicies, type Ceilings } from './capabilities.js';
import { any, entity, likeLiteral, set, str, type CedarPolicy } from './text.js';
import { inGroup } from './tools.js';

/**
 * exec.run's program grammar (SPEC §3, §4) over a tokenised argv: Cedar has sets and no lists,
 * so the request carries each position (`a0`, `a1`, …, `argc`), the tokens as a set (`args`),
 * the long-option names before any `=` (`options`) and the letters of bundled short flags
 * (`letters`). With those, words, exact flags, git's lenient spellings (`--forc` is `--force`,
 * `-fd` holds `-f`) and allow_args_matching are exact; what is not is listed in `inexact`.
 * Pins are known when translating (resolved once at start), so only pinned programs get permits.
 */
export interface ProgramPolicies {
  readonly policies: CedarPolicy[];
  readonly inexact: string[];
}

export function programPolicies(programs: ReadonlyMap<string, ProgramRule>, pins: ReadonlyMap<string, Pin>, ceilings: Ceilings): ProgramPolicies {
  const policies: CedarPolicy[] = [];
  const inexact: string[] = [];
  for (const rule of programs.values()) {
    const pin = pins.get(rule.name);
    if (pin === undefined || !pin.ok) continue; // unpinned: no permit, so denied (PROGRAM_UNPINNED)
    const on = { action: inGroup('exec'), resource: `resource == ${entity('Program', rule.name)}` };
    const permit = (id: string, when: string) => policies.push({ id, effect: 'permit', ...on, ...(when === 'true' ? {} : { when }) });
    const forbid = (id: string, when: string) => policies.push({ id, effect: 'forbid', ...on, when });
    if (isGit(rule.name, pin.path)) policies.push(...gitBuiltins(rule.name, ceilings));
    const npm = isNpm(rule.name, pin.path);
    if (npm) inexact.push(`${rule.rule}: npm's camelCase spellings and unique prefixes of a command (\`installTest\`, \`pub\`) and a refused command behind npm's own options (\`npm --silent publish\`)`);
    const entryMatches = (entry: GrammarEntry, how: 'exact' | 'lenient') => grammarEntry(entry, how, npm);
    for (const entry of rule.deny) forbid(entry.rule, entryMatches(entry, 'lenient'));
    for (const pattern of rule.argPatterns) {
      const translated = argsPattern(pattern.pattern);
      if (!translated.exact) inexact.push(`${pattern.rule} \`${pattern.pattern}\` (\`?\` becomes \`*\`)`);
      permit(pattern.rule, translated.when);
    }
    for (const entry of rule.confirm) permit(entry.rule, entryMatches(entry, 'lenient'));
    for (const entry of rule.allow) permit(entry.rule, entryMatches(entry, 'exact'));
    if (uncoveredArgv(rule) !== 'deny') permit(rule.rule, 'true');
  }
  return { policies, inexact };
}

/**
 * A grammar entry: leading words at their positions, then every flag somewhere after them. npm's
 * first word is any spelling npm runs that command for (decide/npm-commands.ts).
 */
function grammarEntry(entry: GrammarEntry, how: 'exact' | 'lenient', npm: boolean): string {
  if (entry.words.length === 0 && entry.flags.length === 0) return 'false';
  const words = entry.words.map((word, i) => {
    const at = `context has a${String(i)} && `;
    if (i > 0 || !npm) return `${at}context.a${String(i)} == ${str(word)}`;
    return `${at}${set(npmSpellings(word))}.contains(context.a0)`;
  });
  const flags = entry.flags.map((flag) => (how === 'lenient' ? lenientFlag(flag) : exactFlag(flag)));
  return [...words, ...flags].join(' && ');
}

/** ORACLE's optionPresent: a long option or any prefix git would expand, or all bundled letters. */
function lenientFlag(flag: string): string {
  if (flag.startsWith('--') && flag !== '--') return `context.options.containsAny(${set(abbreviations(flag))})`;
  if (/^-[^-]/u.test(flag)) return `context.letters.containsAll(${set(Array.from(flag.slice(1)))})`;
  return `context.args.contains(${str(flag)})`;
}

/** As written: `--x` or `--x=value`. */
function exactFlag(flag: string): string {
  if (flag.startsWith('--') && flag !== '--') return `(context.args.contains(${str(flag)}) || context.options.contains(${str(flag)}))`;
  return `context.args.contains(${str(flag)})`;
}

/** `--force` → `--f`, `--fo`, …, `--force`: what spellsLongOption accepts (three characters or more). */
function abbreviations(option: string): string[] {
  const out: string[] = [];
  for (let n = 3; n <= option.length; n++) out.push(option.slice(0, n));
  return out;
}

/** allow_args_matching, token by token; a final lone `*` allows further arguments. */
function argsPattern(pattern: string): { when: string; exact: boolean } {
  const tokens = pattern.trim().split(/\s+/u).filter((t) => t !== '');
  const open = tokens.at(-1) === '*';
  const fixed = open ? tokens.slice(0, -1) : tokens;
  let exact = true;
  const parts = [`context.argc ${open ? '>=' : '=='} ${String(fixed.length)}`];
  fixed.forEach((token, i) => {
    const at = `context.a${String(i)}`;
    if (!/[*?]/u.test(token)) {
      parts.push(`${at} == ${str(token)}`);
      return;
    }
    if (token.includes('?')) exact = false;
    const like = Array.from(token)
      .map((c) => (c === '*' || c === '?' ? '*' : likeLiteral(c)))
      .join('');
    parts.push(`${at} like "${like}"`);
  });
  return { when: parts.join(' && '), exact };
}

/**
 * ORACLE's built-in git rules (git-rules.ts), which no policy can switch off: options before the
 * subcommand, options that run programs or reach outside the repository, force-pushes, and the
 * capabilities network and writing subcommands need beyond proc.spawn.
 */
function gitBuiltins(program: string, ceilings: Ceilings): CedarPolicy[] {
  const out: CedarPolicy[] = [];
  const id = (name: string) => (program === 'git' ? name : `${name}#${program}`);
  const on = { action: inGroup('exec'), resource: `resource == ${entity('Program', program)}` };
  const forbid = (name: string, when: string) => out.push({ id: id(name), effect: 'forbid', ...on, when });
  forbid('builtin.git.options', 'context has a0 && context.a0 like "-*"');
  forbid('builtin.git.options.long', `context.options.containsAny(${set(GIT_RULES.bannedLong.flatMap(abbreviations))})`);
  const short = [...GIT_RULES.bannedShort].map(([sub, letters]) => `(context.a0 == ${str(sub)} && context.letters.containsAny(${set(Array.from(letters))}))`);
  forbid('builtin.git.options.short', `context has a0 && ${any(short)}`);
  forbid('builtin.git.force_push', `context has a0 && context.a0 == "push" && (context.options.containsAny(${set(GIT_RULES.force.flatMap(abbreviations))}) || context.letters.contains("f"))`);
  const network = `context has a0 && ${set(GIT_RULES.network)}.contains(context.a0)`;
  const writes = `context has a0 && (${set(GIT_RULES.writes)}.contains(context.a0) || context.a0 == "push")`;
  out.push(...ceilingPolicies(id('builtin.git.needs.net.egress'), { ...on, when: network }, 'net.egress', ceilings));
  out.push(...ceilingPolicies(id('builtin.git.needs.git.write'), { ...on, when: writes }, 'git.write', ceilings));
  return out;
}
