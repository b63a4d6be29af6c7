import type { Capability } from '../../../shared/capabilities.js';
import { maxTier } from '../../../shared/tiers.js';
import { hasConfusable, hasControl } from '../paths/characters.js';
import type { ScopedPath } from '../paths/scope.js';
import { isUnder } from '../paths/canonical.js';
import type { ToolName } from '../tools/registry.js';
import type { DecideContext } from './context.js';
import { judgeFetch } from './egress.js';
import { patternSecretIn, storedSecretIn, withFetchSecrets, type SecretHeader } from './fetch-secrets.js';
import { commitMessageArgs } from './commit-message.js';
import { judgeArgvPaths } from './exec-args.js';
import { agentBypassRefusal } from './agent-bypass.js';
import { refused, tiered, type Outcome } from './outcome.js';
import { isGit, judgeProgram } from './programs.js';
import { judgePush } from './push.js';
import { isGitFetch, judgeGitFetch } from './git-fetch.js';
import { judgeStaging, stagingQuery, stagingUnclear } from './git-stage.js';
import { judgeGitHooks, judgeGitRepository } from './git-discovery.js';
import { judgeGitPrints } from './git-print-judge.js';

export interface TierInput {
  readonly tool: ToolName;
  /** Arguments as the contract parsed them. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The first scoped path argument, if the tool has one. */
  readonly primary: ScopedPath | undefined;
  readonly paths: readonly ScopedPath[];
  /** The resolved working directory for relative paths (the action's, else the pinned one). */
  readonly cwd: string | undefined;
  readonly ctx: DecideContext;
}

export interface TierResult {
  readonly outcome: Outcome;
  /** Capabilities these arguments need beyond the tool contract's (checked like the contract's). */
  readonly requires?: readonly Capability[];
  /** Canonical values the tool adds to its arguments (a pinned program path, a normalised URL). */
  readonly extra: Readonly<Record<string, unknown>>;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The default tier of each tool (SPEC §4 table), as one exhaustive switch. Tier is a function of
 * (tool, resolved arguments, scope), never of the tool alone; taint and policy tier rules are
 * applied by decide() after this.
 */
export function baseTier(input: TierInput): TierResult {
  const { tool, args, primary, ctx } = input;
  const where = primary === undefined ? '' : ` in scope ${primary.root.scope}`;
  const rule = primary?.root.rule ?? tool;
  switch (tool) {
    case 'fs.read':
    case 'fs.list':
    case 'fs.search':
      // Reading inside a scope is the everyday case; it must not prompt (SPEC §1.6).
      return plain(tiered('T0', rule, `${tool} reads${where}`));
    case 'git.status':
    case 'git.diff':
    case 'git.log':
      return plain(requireWorkTree(input) ?? tiered('T0', rule, `${tool} reads${where}`));
    case 'fs.write':
      // The toolhost keeps the replaced content, so the write is undoable: run it and offer undo.
      return plain(tiered('T1', rule, `fs.write${where} keeps what it replaces and can be undone`));
    case 'fs.delete':
      // In scratch a delete moves to the trash (undoable); in a project it waits for a person,
      // unless the file is one the session made itself and nobody changed since: that takes
      // nothing the person had, and a copy is kept for undo (SPEC §1.6).
      if (primary?.root.scope === 'scratch') return plain(tiered('T1', rule, 'fs.delete in scratch moves to the trash and can be undone'));
      if (primary !== undefined && ctx.facts?.made?.path === primary.real) {
        return plain(tiered('T1', rule, `fs.delete${where} of a file this session made (nothing was there before it) and nobody changed since: kept for undo`));
      }
      return plain(tiered('T2', rule, `fs.delete${where} is T2: a person confirms deleting a project's files`));
    case 'fs.mkdir':
      return plain(tiered('T1', rule, `fs.mkdir${where}: undo removes the folders it made while they are empty`));
    case 'fs.touch':
      return plain(tiered('T1', rule, `fs.touch${where}: a new file is empty and undo removes it; an existing one only gets new times`));
    case 'fs.copy':
      return plain(tiered('T1', rule, `fs.copy${where} keeps what it replaces and can be undone`));
    case 'fs.move':
      return plain(tiered('T1', rule, `fs.move${where} keeps what it replaces and can be moved back`));
    case 'fs.link':
      return plain(tiered('T1', rule, `fs.link${where}: a link to ${str(input.paths[1]?.real)}, removed again by undo`));
    case 'fs.edit':
      return plain(tiered('T1', rule, `fs.edit${where}: \`${str(args['program'])}\` edits the file in place; ORACLE keeps what it held and undo restores it`));
    case 'exec.run':
    case 'exec.run_with_secrets': {
      const argv = stringList(args['args']);
      const judged = judgeProgram(str(args['program']), argv, ctx.gate.policy, ctx.pins);
      const pin = ctx.pins.get(str(args['program']));
      const git = pin?.ok === true && isGit(str(args['program']), pin.path);
      const text = git ? commitMessageArgs(argv) : new Set<number>();
      const argvChecked = judged.outcome.ok ? judgeArgvPaths(judged.outcome, { argv, cwd: primary?.real, text, weighsWrites: !git, pathspecs: git }, ctx) : judged.outcome;
      // Any git command reads the config of the repository it finds: a planted bare one runs code.
      const repoChecked = argvChecked.ok && git ? judgeGitRepository(argvChecked, primary?.real, ctx.gate.host.reader) : argvChecked;
      // Hooks from a folder agents write run with any git command (core.hooksPath, looked up by the runtime).
      const hooksChecked = repoChecked.ok && git ? judgeGitHooks(repoChecked, ctx.facts?.gitHooks) : repoChecked;
      // A git command that prints what the repository stores is judged by what git says it
      // prints (a committed .env is refused); a read of nothing hidden is T0 (git-print-judge.ts).
      const pathsChecked = git && hooksChecked.ok ? judgeGitPrints(hooksChecked, argv, primary?.real, ctx) : hooksChecked;
      // A fetch or pull is egress to the remote's host (looked up by the runtime), like a push.
      const fetched = pathsChecked.ok && isGitFetch(str(args['program']), argv, ctx.pins) ? judgeGitFetch(pathsChecked, argv, ctx.facts?.remote, ctx.gate.policy.egress) : pathsChecked;
      // An add or stash -u puts untracked files into the repository, where git prints them.
      const staging = fetched.ok ? stagingQuery(str(args['program']), argv, ctx.pins) : undefined;
      const checked = !fetched.ok || staging === undefined ? fetched : 'unclear' in staging ? stagingUnclear(fetched, argv, staging.unclear) : judgeStaging(fetched, { verb: `git ${argv[0] ?? ''}`, cwd: primary?.real, query: staging }, ctx.facts?.staging, ctx);
      const outcome = tool === 'exec.run_with_secrets' && checked.ok ? withSecrets(checked, args['secrets']) : checked;
      return { outcome, requires: judged.requires, extra: { program_path: pin?.ok === true ? pin.path : null } };
    }
    case 'git.commit':
      return plain(requireWorkTree(input) ?? judgeCommit(input));
    case 'git.push': {
      const tree = requireWorkTree(input);
      return tree === undefined ? judgePush(args, ctx.facts?.push, ctx.gate.policy.egress) : plain(tree);
    }
    case 'net.fetch': {
      const headers = (args['headers'] ?? {}) as Record<string, string>;
      const judged = judgeFetch({ url: str(args['url']), method: str(args['method']), headers }, ctx.gate.policy.egress);
      const secrets = args['secrets'] as Readonly<Record<string, SecretHeader>> | undefined;
      const request = { url: str(args['url']), headers, body: str(args['body']), secrets: secrets ?? {} };
      // What leaves is the URL as parsed (judged.url: WHATWG drops a tab or a line break, which had
      // split a key the checks then missed, red team session 33): both it and the text are judged.
      const sent = judged.url === request.url ? undefined : { ...request, url: judged.url };
      // A stored value is refused first, whatever else is wrong: another refusal's reason could quote it (a host).
      const storedValues = ctx.facts?.storedSecrets ?? [];
      const stored = storedSecretIn(request, storedValues) ?? (sent === undefined ? undefined : storedSecretIn(sent, storedValues));
      const carried = stored === undefined && judged.outcome.ok ? (patternSecretIn(request, judged.headers) ?? (sent === undefined ? undefined : patternSecretIn(sent, judged.headers))) : undefined;
      const checked =
        stored !== undefined
          ? refused('EGRESS_DENIED', 'net.fetch', `the request's ${stored} holds the value of a secret in ORACLE's store; name it in \`secrets\` instead, so the card can say which secret goes where`)
          : carried === undefined
            ? judged.outcome
            : refused('EGRESS_DENIED', 'net.fetch', `the request's ${carried} holds what looks like a secret; ORACLE never sends one it was not told about (name a stored one in \`secrets\`), and a card cannot honestly show it`);
      if (secrets === undefined || !checked.ok) return { outcome: checked, extra: { url: judged.url, method: judged.method, headers: judged.headers } };
      return { outcome: withFetchSecrets(checked, secrets, { url: judged.url, headers }), requires: ['secret.read'], extra: { url: judged.url, method: judged.method, headers: judged.headers } };
    }
    case 'agent.delegate':
      // The delegate's own actions are gated one by one; handing it work is logged, not asked.
      return plain(tiered('T1', 'agent.delegate', 'a sub-agent acts through the same gate'));
    case 'term.write': {
      const missing = absentTerminal(str(args['session']), ctx.facts?.terminals, false);
      if (missing !== undefined) return plain(missing);
      // One approval per line: a card must never show the first line of a script (seed 001).
      if (/[\r\n]/u.test(str(args['text']))) return plain(refused('TERM_MULTILINE', 'term.write', 'term.write takes exactly one line'));
      // Other controls act on their own in a shell (Ctrl-O runs the line, ESC sequences edit it).
      if (hasControl(str(args['text'])) || hasConfusable(str(args['text']))) {
        return plain(refused('ARG_SHAPE', 'term.write', 'term.write text may not contain control, bidi or invisible characters'));
      }
      // A line editor in canonical mode keeps about 4 KiB and still takes the Enter: a longer line
      // would run cut short of what the card showed (`rm -rf ~ <spaces> --version`).
      if (new TextEncoder().encode(str(args['text'])).length > TERM_LINE_BYTES) {
        return plain(refused('ARG_SHAPE', 'term.write', `a line for a terminal is at most ${String(TERM_LINE_BYTES)} bytes`));
      }
      // Typed into a shell, it starts a program like exec.run would: the same built-in refusals.
      const bypass = agentBypassRefusal([str(args['text'])]);
      if (bypass !== undefined) return plain(bypass);
      return plain(tiered('T2', 'term.write', 'typing into a terminal carries all of its user’s permissions'));
    }
    case 'term.read': {
      const missing = absentTerminal(str(args['session']), ctx.facts?.terminals, true);
      if (missing !== undefined) return plain(missing);
      // Like a read in a scope: it changes nothing. What it shows is foreign (it taints the session).
      return plain(tiered('T0', 'term.read', 'reading a terminal changes nothing'));
    }
    case 'input.synth':
    case 'sys.settings':
      // Irreversible and outside any scope: the desktop and a typed phrase.
      return plain(tiered('T3', tool, `${tool} is irreversible and needs the desktop`));
  }
}

/**
 * git follows a `.git` file (`gitdir: …`) to a config nobody scoped, and searches parent folders
 * when there is none; the git intents run only where `.git` is a real directory.
 */
function requireWorkTree(input: TierInput): Outcome | undefined {
  const repo = input.primary;
  if (repo === undefined) return refused('ARG_SHAPE', input.tool, 'a git intent needs a repository path');
  const dotGit = input.ctx.gate.host.reader.entry(`${repo.real.replace(/\/$/u, '')}/.git`);
  if (dotGit.kind === 'dir') return undefined;
  return refused('ARG_SHAPE', input.tool, `\`${repo.real}\` is not the root of a git work tree (.git is ${dotGit.kind === 'missing' ? 'missing' : 'not a directory'})`);
}

/** A program that receives credentials is never below T2, and the card names every secret. */
function withSecrets(outcome: Extract<Outcome, { ok: true }>, secrets: unknown): Outcome {
  const names = Object.entries((secrets ?? {}) as Record<string, string>).map(([env, secret]) => `${secret} as ${env}`);
  const tier = maxTier(outcome.tier, 'T2');
  return { ok: true, tier, rule: outcome.rule, reasons: [...outcome.reasons, `the program receives the secrets ${names.join(', ')}`], floor: maxTier(outcome.floor ?? 'T0', 'T2') };
}

function plain(outcome: Outcome): TierResult {
  return { outcome, extra: {} };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function judgeCommit(input: TierInput): Outcome {
  const message = str(input.args['message']);
  if (message.trim() === '' || message.includes('\u0000')) return refused('ARG_SHAPE', 'git.commit', 'a commit message must be non-empty text');
  const repo = input.primary;
  if (repo !== undefined) {
    const outside = input.paths.slice(1).find((p) => !isUnder(p.real, repo.real, input.ctx.gate.host.flavor));
    if (outside !== undefined) return refused('ARG_SHAPE', 'git.commit', `\`${outside.real}\` is not inside the repository`);
  }
  return tiered('T1', repo?.root.rule ?? 'git.commit', 'git.commit can be undone by a soft reset while HEAD is unchanged');
}

/**
 * A line for a terminal that is not open (or whose program ended) would only cost a person a
 * card for nothing: refused at once, naming the ones that are open. Without the facts (a process
 * that only answers a hook) the executor says it instead.
 */
/** The longest line term.write types (see the term.write case). */
export const TERM_LINE_BYTES = 1024;

function absentTerminal(name: string, terminals: { readonly running: readonly string[]; readonly ended: readonly string[] } | undefined, endedIsThere: boolean): Outcome | undefined {
  if (terminals === undefined || terminals.running.includes(name) || (endedIsThere && terminals.ended.includes(name))) return undefined;
  const open = terminals.running.length === 0 ? 'none is open (a person opens one with `oracle term open NAME`)' : `open: ${terminals.running.join(', ')}`;
  if (terminals.ended.includes(name)) return refused('TERM_EXITED', 'terminals', `the program in terminal \`${name}\` has ended; a person closes it and opens another`);
  return refused('TERM_UNKNOWN', 'terminals', `no terminal named \`${name}\` runs on this gate; ${open}`);
}
