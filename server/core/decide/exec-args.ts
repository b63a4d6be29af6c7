import { maxTier, tierRank, type Tier } from '../../../shared/tiers.js';
import { hasConfusable, hasHidingControl } from '../paths/characters.js';
import { canonicalize } from '../paths/canonicalize.js';
import type { DecideContext } from './context.js';
import { PATHSPEC_TAKERS, revisionColon } from './git-prints.js';
import { refused, type Outcome } from './outcome.js';

/**
 * Paths hidden in a model-chosen argv (`git commit -F .env`, `make -C/elsewhere`,
 * `pytest @~/.ssh/id_rsa`, `--out=../../x`, `MAKEFILES=/etc/passwd`). Every token and every value
 * inside one is read as a path relative to the working directory: one that lands on deny_always
 * or ORACLE's own files is denied; one that clearly names a place outside the scopes needs a
 * person (at least T2, a floor no tier rule lowers). The sandbox is the second line, not the first.
 */
export interface JudgedArgv {
  readonly argv: readonly string[];
  readonly cwd: string | undefined;
  /** Indices of arguments the program keeps as text only (a commit message): never paths, never code. */
  readonly text: ReadonlySet<number>;
  /**
   * Whether a path the policy's fs.write tier rules raise (package.json, a CI workflow) raises the
   * run too: the program may write what it is given (`pytest --junitxml=package.json`). Not for
   * git, whose paths are pathspecs it reads or stages; its writes are judged as their own actions.
   */
  readonly weighsWrites: boolean;
  /**
   * Whether the program is git, whose excluding pathspec (`:!x`, `:^x`, `:(top,exclude)x`) after
   * the `--` of a show, log, diff or grep reads nothing: it only leaves files out (the way the
   * gate has an agent leave a hidden one out). Anywhere else it is a path like any word
   * (`blame --contents ':!/../.env'` reads that file; red team, session 38).
   */
  readonly pathspecs?: boolean;
}

/** A git pathspec that only excludes. */
const EXCLUDING = /^:(?:[!^]|\([^)]*\bexclude\b[^)]*\))/u;

export function judgeArgvPaths(outcome: Extract<Outcome, { ok: true }>, { argv, cwd, text, weighsWrites, pathspecs = false }: JudgedArgv, ctx: DecideContext): Outcome {
  let tier = outcome.tier;
  let escalated = false;
  const reasons = [...outcome.reasons];
  const win = ctx.gate.host.flavor.kind === 'win32';
  /** Where the pathspecs of a printing git command start (after its `--`), if it has them. */
  const excludes = pathspecs && PATHSPEC_TAKERS.has(argv[0] ?? '') && argv.includes('--') ? argv.indexOf('--') : undefined;
  for (const [index, token] of argv.entries()) {
    if (hasConfusable(token) || hasHidingControl(token)) {
      // What a person approves must be what runs: no bidi, invisible or cursor-moving characters.
      return refused('ARG_SHAPE', 'exec.run', 'an argument contains invisible, bidi or terminal control characters');
    }
    if (text.has(index) || (excludes !== undefined && index > excludes && EXCLUDING.test(token))) continue;
    if (token.includes('\n')) {
      // A second line in one argument (make --eval, python -c) is code a card must show whole.
      tier = maxTier(tier, 'T2');
      escalated = true;
      reasons.push('an argument spans several lines, so a person must see it');
    }
    let flagged = false;
    for (const value of candidates(token)) {
      // Programs such as npm expand `~` themselves; the gate cannot know where that lands.
      if (value.startsWith('~')) return refused('PATH_EXPANSION', 'exec.run', `argument \`${token}\` starts with \`~\`, which the program may expand`);
      if (cwd === undefined && isRelative(value, win)) {
        // No working directory: the program runs in an empty folder of its own (the toolhost's
        // job folder, inside ORACLE's home), so a relative path names what the job makes there,
        // unless it climbs out of it. The gate's own working directory has nothing to do with it.
        if (flagged || !climbs(value, win)) continue;
        flagged = true;
        tier = maxTier(tier, 'T2');
        escalated = true;
        reasons.push(`argument \`${token}\` climbs out of the empty folder the program runs in (no working directory was given), so a person must see it`);
        continue;
      }
      const scoped = canonicalize(value, ctx.gate, { cwd, access: 'write' });
      if (scoped.ok) {
        const rule = weighsWrites ? writeRuleAbove(scoped.value.real, scoped.value.root.scope, tier, ctx) : undefined;
        if (rule !== undefined) {
          tier = rule.tier;
          escalated = true;
          reasons.push(`argument \`${token}\` names \`${scoped.value.real}\`, which ${rule.rule} keeps at ${rule.tier} for writes${rule.why === undefined ? '' : ` (${rule.why})`}: the program may write it`);
        }
        continue;
      }
      if (scoped.code === 'PATH_DENY_ALWAYS') return refused('PATH_DENY_ALWAYS', scoped.rule, `argument \`${token}\`: ${scoped.reason}`);
      if (flagged || !looksLikePath(value, win)) continue;
      flagged = true;
      tier = maxTier(tier, 'T2');
      escalated = true;
      reasons.push(`argument \`${token}\` names a place outside the scopes (${scoped.code}), so a person must see it`);
    }
  }
  // The floor holds even when the tier was already T2: no tier rule may lower it afterwards.
  return escalated ? { ok: true, tier, rule: outcome.rule, reasons, floor: maxTier(tier, outcome.floor ?? 'T0') } : outcome;
}

/**
 * The token itself and every value a program may read as a path from it, and from a value that is
 * itself an option or assignment (`-o addopts=--basetemp=/elsewhere`), a few levels deep.
 */
export function candidates(token: string, depth = 0): string[] {
  const out = new Set<string>();
  const inner = (value: string): void => {
    out.add(value);
    if (depth < 3 && value !== token && (value.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/u.test(value))) for (const v of candidates(value, depth + 1)) out.add(v);
  };
  if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(token)) {
    if (token.toLowerCase().startsWith('file://')) out.add(token.slice('file://'.length).replace(/^localhost(?=\/)/u, ''));
    return [...out].filter((v) => v !== '');
  }
  if (token.startsWith('--')) {
    const eq = token.indexOf('=');
    if (eq > 0) inner(token.slice(eq + 1));
  } else if (token.startsWith('-') && token.length > 2) {
    inner(token.slice(2)); // `-F/path`, `-C/dir`: a short option with its value attached
    // Go's flag package and argparse also read `-o=VALUE` (and `-output=VALUE`) as VALUE.
    const eq = token.indexOf('=');
    if (eq > 0) inner(token.slice(eq + 1));
  } else {
    out.add(token);
    // A script handed to `sh -c` or `python -c` hides its paths between words: check the words.
    if (/\s/u.test(token)) for (const word of token.split(/[\s;|&()`'"<>]+/u)) out.add(word);
    const assignment = /^[A-Za-z_][A-Za-z0-9_]*=(.*)$/su.exec(token);
    if (assignment?.[1] !== undefined) inner(assignment[1]);
    if (token.startsWith('@')) out.add(token.slice(1)); // response files
    for (const colon of new Set([token.indexOf(':'), revisionColon(token)])) {
      const named = afterColon(token, colon);
      if (named !== undefined) out.add(named);
    }
  }
  return [...out].filter((v) => v !== '' && v !== '-');
}

/**
 * The path git reads from a `REV:path` (`git show HEAD:.env`, `origin/main:src/a.ts`), an index
 * entry (`:0:.env`, `:.env`) or a pathspec with magic (`:/.env`, `:(top,glob).env`): what comes
 * after the colon, taken from the working directory (a repository-root path is judged from there
 * too, which deny_always's name patterns still match). A drive letter (`C:\x`) is not one, and an
 * excluding pathspec (`:!x`, `:^x`, `:(exclude)x`) reads nothing. Read at the first colon and at
 * the first outside braces, where git splits (`HEAD@{12:00}:.env`).
 */
function afterColon(token: string, colon: number): string | undefined {
  if (colon === -1 || /^[A-Za-z]:[\\/]/u.test(token)) return undefined;
  const rest = token.slice(colon + 1);
  if (colon === 0 && /^(?:[!^]|\([^)]*\bexclude\b)/u.test(rest)) return undefined;
  const path = colon === 0 ? rest.replace(/^(?:[0-3]:|\([^)]*\)|\/)/u, '') : rest;
  return path === '' ? undefined : path;
}

/** A path taken from a working directory: no root, no drive (`C:x` is the drive's own, so rooted too). */
function isRelative(value: string, win: boolean): boolean {
  return win ? !/^(?:[\\/]|[A-Za-z]:)/u.test(value) : !value.startsWith('/');
}

function climbs(value: string, win: boolean): boolean {
  return value.split(win ? /[\\/]/u : '/').includes('..');
}

function looksLikePath(value: string, win: boolean): boolean {
  if (value.startsWith('/') || value.startsWith('~') || value.includes('/') || value === '..') return true;
  return win && (value.includes('\\') || /^[A-Za-z]:/u.test(value));
}

/** The first fs.write tier rule naming this path that raises a run at `tier`. Rules without a path (every write) are not read here. */
function writeRuleAbove(real: string, scope: string, tier: Tier, ctx: DecideContext): { readonly rule: string; readonly tier: Tier; readonly why: string | undefined } | undefined {
  const rule = ctx.gate.tierRules.find((r) => r.tool === 'fs.write' && r.path !== undefined && r.program === undefined && (r.scope === undefined || r.scope === scope) && r.pathMatches(real));
  return rule !== undefined && tierRank(rule.tier) > tierRank(tier) ? { rule: rule.rule, tier: rule.tier, why: rule.why } : undefined;
}
