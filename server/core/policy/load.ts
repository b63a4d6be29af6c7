import picomatch from 'picomatch';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { CAPABILITIES, type Capability } from '../../../shared/capabilities.js';
import { tierRank } from '../../../shared/tiers.js';
import { comparable, type PathFlavor } from '../paths/flavor.js';
import { lexPath, RELATIVE } from '../paths/lex.js';
import type { PathFailure } from '../paths/result.js';
import { ENV_NAME, lookupTool, type ToolName } from '../tools/registry.js';
import { locate, locateKey } from './locate.js';
import { expandTilde, isForeignPath, normaliseGlob, normaliseHost } from './names.js';
import { parseEntry } from './grammar-entry.js';
import { POLICY_NAME, policySchemas, type PolicyFile } from './schema.js';
import type { AgentPrincipal, DelegateRule, DenyRule, Policy, ProgramRule, Scope, TierRule } from './types.js';
import { delegateArgvRefusal } from '../decide/agent-bypass.js';

export interface PolicyIssue {
  readonly line: number;
  readonly column: number;
  /** Dotted path of the offending key, e.g. `scopes.projects.roots[0].mode`. */
  readonly path: string;
  readonly message: string;
}

export interface LoadOptions {
  readonly flavor: PathFlavor;
  /** The user's home directory, for `~` in the file. */
  readonly userHome: string;
}

export type LoadResult =
  | { readonly ok: true; readonly policy: Policy; readonly warnings: readonly PolicyIssue[] }
  | {
      readonly ok: false;
      readonly errors: readonly PolicyIssue[];
      readonly warnings: readonly PolicyIssue[];
      /** What read-only mode may still use: the file's scopes and deny_always when those are valid. */
      readonly readOnly: Policy;
    };

type Path = readonly PropertyKey[];

/** Collects issues with their source positions while the policy is built. */
class Issues {
  readonly errors: PolicyIssue[] = [];
  readonly warnings: PolicyIssue[] = [];
  constructor(
    private readonly doc: Document,
    private readonly counter: LineCounter,
  ) {}
  error(path: Path, message: string, key?: string): void {
    this.errors.push(this.issue(path, message, key));
  }
  warn(path: Path, message: string): void {
    this.warnings.push(this.issue(path, message));
  }
  private issue(path: Path, message: string, key?: string): PolicyIssue {
    const at = key === undefined ? locate(this.doc, this.counter, path) : locateKey(this.doc, this.counter, path, key);
    return { line: at.line, column: at.column, path: dotted(key === undefined ? path : [...path, key]), message };
  }
}

/**
 * config/policy.yaml → typed `Policy` (SPEC §3). Pure: the text comes in, a policy or every error
 * with its line comes out. Invalid means the gate runs read-only; this function never throws.
 */
export function loadPolicy(text: string, options: LoadOptions): LoadResult {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const errors = doc.errors.map((e) => {
      const pos = counter.linePos(e.pos[0]);
      return { line: pos.line, column: pos.col, path: '', message: e.code === 'DUPLICATE_KEY' ? duplicateKey(text, e.pos[0]) : `yaml: ${e.message.split('\n')[0] ?? e.code}` };
    });
    return { ok: false, errors, warnings: [], readOnly: emptyPolicy() };
  }
  const issues = new Issues(doc, counter);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (e) {
    issues.error([], `yaml: ${e instanceof Error ? e.message : 'the document cannot be read'}`);
    return { ok: false, errors: issues.errors, warnings: [], readOnly: emptyPolicy() };
  }
  const parsed = policySchemas().policy.safeParse(raw);
  if (!parsed.success) {
    reportSchemaIssues(parsed.error.issues, issues);
    return { ok: false, errors: issues.errors, warnings: issues.warnings, readOnly: salvage(raw, doc, counter, options) };
  }
  const policy = buildPolicy(parsed.data, issues, options);
  if (issues.errors.length > 0) {
    return { ok: false, errors: issues.errors, warnings: issues.warnings, readOnly: salvage(raw, doc, counter, options) };
  }
  return { ok: true, policy, warnings: issues.warnings };
}

const PROGRAM_SHAPE = 'a program is `{path?, subcommands: {allow, confirm, deny}, allow_args_matching: [...], default?: deny|confirm}`, each list in brackets';

function reportSchemaIssues(list: readonly z.core.$ZodIssue[], issues: Issues, prefix: Path = []): void {
  for (const issue of list) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.error(path, `unknown key \`${key}\``, key);
    } else if (issue.code === 'invalid_union') {
      // The one union is a program entry (or deny | confirm, for `programs.default` only): when the
      // entry is a map, what is wrong inside it says more than zod's bare "Invalid input".
      const asProgram = issue.errors[0] ?? [];
      const isMap = asProgram.length > 0 && asProgram.every((inner) => inner.path.length > 0 || inner.code === 'unrecognized_keys');
      if (isMap) reportSchemaIssues(asProgram, issues, path);
      else issues.error(path, PROGRAM_SHAPE);
    } else if (issue.code === 'invalid_key') {
      const key = String(path.at(-1));
      issues.error(path.slice(0, -1), badName(key, issue.issues[0]?.message ?? issue.message, path[0] === 'programs'), key);
    } else {
      issues.error(path, issue.message);
    }
  }
}

/** A map key that is not a name: say which part is wrong and where it belongs instead. */
function badName(key: string, rule: string, program: boolean): string {
  if (!program) return `\`${key}\` is not a name: ${rule}`;
  const hint = key.includes('/') || key.includes('\\')
    ? `; name the program (\`${key.split(/[\\/]/u).pop() ?? key}\`) and give its location as \`path: ${key}\``
    : /\s/u.test(key)
      ? '; a name is one word: arguments go in `subcommands` or `allow_args_matching`'
      : '';
  return `\`${key}\` is not a name: ${rule}${hint}`;
}

/** yaml says only "Map keys must be unique"; the key itself tells a person which entry to look at. */
function duplicateKey(text: string, offset: number): string {
  // The first 200 characters name it: past them the lazy match backtracked quadratically over a
  // run of spaces (a 250 KB proposed policy held the gate's thread for 15 s: red team, session 31).
  const key = /^("[^"\n]*"|'[^'\n]*'|[^:\n]+?)\s*:/u.exec(text.slice(offset, offset + 200))?.[1];
  const named = key === undefined ? 'a key' : `\`${key.replace(/^["']|["']$/gu, '')}\``;
  return `${named} appears twice in the same map: merge the two, or give the second its own name (a second scope or agent needs a name of its own)`;
}

/** Read-only mode keeps the file's scopes and deny_always only when they are valid on their own. */
function salvage(raw: unknown, doc: Document, counter: LineCounter, options: LoadOptions): Policy {
  // A misspelt top-level key (`deny_alway`) could be the deny list itself: then nothing is kept.
  const known = new Set(Object.keys(policySchemas().policy.shape));
  if (typeof raw !== 'object' || raw === null || Object.keys(raw).some((key) => !known.has(key))) return emptyPolicy();
  const parsed = policySchemas().readOnly.safeParse(raw);
  if (!parsed.success) return emptyPolicy();
  const issues = new Issues(doc, counter);
  const { deny_always: nested, ...named } = parsed.data.scopes;
  const scopes = buildScopes(named, issues, options);
  const denyAlways = buildDenyAlways([...parsed.data.deny_always], nested ?? [], issues, options);
  if (issues.errors.length > 0) return emptyPolicy();
  return { ...emptyPolicy(), scopes, denyAlways };
}

export function emptyPolicy(): Policy {
  return {
    capabilities: new Set<Capability>(['fs.read']),
    scopes: [],
    denyAlways: [],
    programs: new Map(),
    programDefault: 'deny',
    egress: { allow: [], default: 'deny' },
    tiers: [],
    agents: new Map(),
  };
}

function buildPolicy(file: PolicyFile, issues: Issues, options: LoadOptions): Policy {
  const { deny_always: nested, ...named } = file.scopes;
  const scopes = buildScopes(named, issues, options);
  const programs = buildPrograms(file.programs, issues, options);
  return {
    capabilities: new Set(file.capabilities ?? CAPABILITIES),
    scopes,
    denyAlways: buildDenyAlways(file.deny_always, nested ?? [], issues, options),
    programs,
    programDefault: programDefault(file.programs, issues),
    egress: {
      default: file.egress.default,
      allow: file.egress.allow.map((entry, i) => {
        const { host, port } = splitHostPort(normaliseHost(entry.host));
        if (!validHost(host) || (port !== undefined && port !== '*' && !/^[1-9][0-9]{0,4}$/u.test(port))) {
          issues.error(['egress', 'allow', i, 'host'], `\`${entry.host}\` is not a host, \`host:port\` or \`host:*\``);
        }
        return { host, port, why: entry.why, rule: `egress.allow[${i}]` };
      }),
    },
    ...(file.delegate === undefined ? {} : { delegate: buildDelegate(file.delegate, issues) }),
    tiers: buildTierRules(file, { scopes, programs }, issues, options),
    agents: new Map(
      Object.entries(file.principals.agents).map(([name, agent]): [string, AgentPrincipal] => [
        name,
        { name, capabilities: new Set(agent.capabilities) },
      ]),
    ),
  };
}

type ScopeFiles = Record<string, { roots: { path: string; mode: 'ro' | 'rw'; exclude: string[] }[] }>;

function buildScopes(files: ScopeFiles, issues: Issues, options: LoadOptions): Scope[] {
  // One place has one mode: compile.ts keeps the first root at a place, so a second one that
  // says otherwise would be ignored without a word (and a candidate's diff would show it).
  const places = new Map<string, { rule: string; how: string }>();
  return Object.entries(files).map(([name, scope]) => {
    if (!POLICY_NAME.test(name)) issues.error(['scopes'], `\`${name}\` is not a valid scope name`, name);
    const roots = scope.roots.flatMap((root, i) => {
      const at = ['scopes', name, 'roots', i, 'path'];
      if (isForeignPath(root.path, options.flavor)) {
        issues.warn(at, `\`${root.path}\` is a path for another kind of host; it has no effect here`);
        return [];
      }
      const lexed = lexPath(expandTilde(root.path, options.userHome), { flavor: options.flavor });
      if (!lexed.ok) {
        issues.error(at, `\`${root.path}\`: ${rootRefusal(root.path, lexed, options.flavor)}`);
        return [];
      }
      root.exclude.forEach((pattern, j) => {
        checkGlob(pattern, ['scopes', name, 'roots', i, 'exclude', j], issues);
        const misplaced = fullPathExclude(pattern, lexed.value, options);
        if (misplaced !== undefined) issues.error(['scopes', name, 'roots', i, 'exclude', j], misplaced);
      });
      const exclude = root.exclude.map((pattern) => normaliseGlob(pattern, options.flavor, options.userHome));
      const rule = `scopes.${name}.roots[${i}]`;
      const place = comparable(lexed.value, options.flavor);
      const how = `${root.mode} except [${exclude.join(', ')}]`;
      const first = places.get(place);
      if (first === undefined) places.set(place, { rule, how });
      else if (first.how !== how) issues.error(at, `\`${root.path}\` is already a root in ${first.rule} with another mode or exclude; a place has one root (a ro root inside a rw one makes that part read-only)`);
      return [{ path: lexed.value, mode: root.mode, exclude, rule }];
    });
    return { name, roots };
  });
}

function buildDenyAlways(top: readonly string[], nested: readonly string[], issues: Issues, options: LoadOptions): DenyRule[] {
  const rules = (list: readonly string[], where: readonly string[]): DenyRule[] =>
    list.map((pattern, i) => {
      checkGlob(pattern, [...where, i], issues);
      return { pattern: normaliseGlob(pattern, options.flavor, options.userHome), rule: `${dotted(where)}[${i}]` };
    });
  return [...rules(top, ['deny_always']), ...rules(nested, ['scopes', 'deny_always'])];
}

/** `delegate:` (issue 17): an absolute program, no permission-skipping argument, hosts as egress entries. */
function buildDelegate(file: NonNullable<PolicyFile['delegate']>, issues: Issues): DelegateRule {
  if (!file.program.startsWith('/') || file.program.includes('/../') || file.program.endsWith('/..')) issues.error(['delegate', 'program'], '`delegate.program` is an absolute path to the agent program');
  const refused = delegateArgvRefusal([file.program, ...file.args]);
  if (refused !== undefined) issues.error(['delegate', 'args'], refused);
  // The key's variable follows the exec tools' rule for secrets, and may not steer the job's proxy.
  if (file.key !== undefined && (!ENV_NAME.test(file.key.env) || /^(?:HTTPS?_PROXY|ALL_PROXY|NO_PROXY)$|^ORACLE_/u.test(file.key.env))) {
    issues.error(['delegate', 'key', 'env'], `\`${file.key.env}\` changes how programs start or where they connect; name the key's variable as the agent reads it (ANTHROPIC_API_KEY)`);
  }
  const hosts = file.hosts.map((entry, i) => {
    const { host, port } = splitHostPort(normaliseHost(entry));
    if (!validHost(host) || (port !== undefined && !/^[1-9][0-9]{0,4}$/u.test(port))) issues.error(['delegate', 'hosts', i], `\`${entry}\` is not a host or \`host:port\``);
    return { host, port, why: 'the delegate agent’s API', rule: `delegate.hosts[${String(i)}]` };
  });
  return { program: file.program, args: file.args, key: file.key, hosts, timeoutS: file.timeout };
}

/** `programs.default`: absent means deny, as the seeds require (SPEC §12). */
function programDefault(files: PolicyFile['programs'], issues: Issues): 'deny' | 'confirm' {
  const value = Object.hasOwn(files, 'default') ? files['default'] : undefined;
  if (value === undefined) return 'deny';
  if (typeof value === 'string') return value;
  issues.error(['programs', 'default'], '`programs.default` is `deny` or `confirm` (what a program not in this list gets), not a program');
  return 'deny';
}

function buildPrograms(files: PolicyFile['programs'], issues: Issues, options: LoadOptions): Map<string, ProgramRule> {
  const programs = new Map<string, ProgramRule>();
  for (const [name, file] of Object.entries(files)) {
    const at = ['programs', name];
    if (name === 'default') continue;
    if (typeof file === 'string') {
      issues.error(at, `\`${file}\` is allowed only as \`programs.default\`; a program takes {path?, subcommands, allow_args_matching, default?}`);
      continue;
    }
    if (file.path !== undefined && !isAbsoluteAnywhere(file.path)) {
      issues.error([...at, 'path'], `\`${file.path}\` must be an absolute path; PATH is searched only when no path is given`);
    }
    const list = (kind: 'allow' | 'confirm' | 'deny') =>
      (file.subcommands?.[kind] ?? []).map((text, i) => parseEntry(text, `programs.${name}.subcommands.${kind}[${i}]`));
    programs.set(name, {
      name,
      path: file.path === undefined ? undefined : expandTilde(file.path, options.userHome),
      allow: list('allow'),
      confirm: list('confirm'),
      deny: list('deny'),
      argPatterns: (file.allow_args_matching ?? []).map((pattern, i) => ({ pattern, rule: `programs.${name}.allow_args_matching[${i}]` })),
      otherwise: file.default,
      rule: `programs.${name}`,
    });
  }
  return programs;
}

function buildTierRules(
  file: PolicyFile,
  known: { scopes: readonly Scope[]; programs: ReadonlyMap<string, ProgramRule> },
  issues: Issues,
  options: LoadOptions,
): TierRule[] {
  return file.tiers.flatMap((rule, i): TierRule[] => {
    const at = ['tiers', i];
    const contract = lookupTool(rule.tool);
    if (contract === undefined) {
      issues.error([...at, 'tool'], `\`${rule.tool}\` is not a tool in the registry`);
      return [];
    }
    // A tool contract and the policy disagreeing is a start-up error, never a silent clamp (SPEC §4).
    if (tierRank(rule.tier) < tierRank(contract.floor)) {
      issues.error([...at, 'tier'], `${rule.tool} can never be below ${contract.floor}; this rule asks for ${rule.tier}`);
    }
    if (rule.scope !== undefined && !known.scopes.some((s) => s.name === rule.scope)) {
      issues.error([...at, 'scope'], `no scope is named \`${rule.scope}\``);
    }
    if (rule.program !== undefined && (rule.tool !== 'exec.run' || !known.programs.has(rule.program))) {
      issues.error([...at, 'program'], `\`${rule.program}\` must name a program, and only with tool exec.run`);
    }
    if (rule.path !== undefined) checkGlob(rule.path, [...at, 'path'], issues);
    const path = rule.path === undefined ? undefined : normaliseGlob(rule.path, options.flavor, options.userHome);
    return [{ tool: rule.tool as ToolName, scope: rule.scope, path, program: rule.program, tier: rule.tier, why: rule.why, rule: `tiers[${i}]` }];
  });
}

/**
 * Why a root cannot be a root, in the words of the policy file: the canonicaliser's reasons are
 * written for a tool's path argument ("a wildcard this tool did not declare").
 */
function rootRefusal(text: string, failure: PathFailure, flavor: PathFlavor): string {
  const start = flavor.kind === 'posix' ? '`/` or `~/`' : 'a drive (`C:/`) or `~/`';
  if (failure.code === 'PATH_WILDCARD') return 'a root is one folder, not a pattern: list each folder as a root of its own (patterns belong in `exclude` and deny_always)';
  if (failure.code === 'PATH_EXPANSION' && text.startsWith('~')) return `only \`~/\` (your own home) is expanded: write another user's folder in full, starting with ${start}`;
  if (failure.code === 'PATH_EXPANSION') return `variables are not expanded in the policy: write the folder in full, starting with ${start}`;
  if (failure.reason === RELATIVE) return `a root is absolute (the gate has no working directory to put it under): start it with ${start}`;
  return failure.reason;
}

/**
 * An exclude matches paths relative to its root (compile.ts; `/build` is anchored at the root, as
 * in .gitignore). One written as the full path (`/srv/app/build`, `~/app/build`) would match
 * nothing and hide nothing, so it is an error, with the relative spelling when there is one.
 */
function fullPathExclude(pattern: string, root: string, options: LoadOptions): string | undefined {
  const base = root.endsWith('/') ? root : `${root}/`;
  if (/^(?:\/|[A-Za-z]:\/)$/u.test(base)) return undefined; // under `/` the full path is the anchored one
  const expanded = normaliseGlob(pattern, options.flavor, options.userHome);
  const inside = comparable(expanded, options.flavor).startsWith(comparable(base, options.flavor));
  if (!inside && !pattern.startsWith('~') && !/^[A-Za-z]:[\\/]/u.test(pattern)) return undefined;
  const hint = inside ? `write \`${expanded.slice(base.length)}\`` : 'write it relative to the root, or put it in deny_always';
  return `\`${pattern}\` is a full path, but an exclude is relative to its root \`${root}\` and this one would never match; ${hint}`;
}

function checkGlob(pattern: string, at: Path, issues: Issues): void {
  // picomatch would read `+(x)` as an extended glob; ORACLE keeps parentheses literal, so a
  // pattern that only makes sense as one is an error rather than a silent never-match.
  if (/[@!+*?]\(/u.test(pattern)) {
    issues.error(at, `\`${pattern}\`: extended globs are not supported (parentheses are literal)`);
    return;
  }
  try {
    picomatch.makeRe(pattern, { dot: true });
  } catch (e) {
    issues.error(at, `\`${pattern}\` is not a valid glob: ${e instanceof Error ? e.message : 'unknown error'}`);
  }
}

function isAbsoluteAnywhere(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/u.test(path) || path.startsWith('~/');
}

/** `example.com`, `example.com:8080`, `example.com:*`, `[::1]:11434`; a bare IPv6 has no port. */
function splitHostPort(text: string): { host: string; port: string | undefined } {
  const v6 = /^\[([^\]]+)\](?::(.+))?$/u.exec(text);
  if (v6 !== null) return { host: v6[1] ?? '', port: v6[2] };
  const parts = text.split(':');
  if (parts.length === 2) return { host: parts[0] ?? '', port: parts[1] };
  return { host: text, port: undefined };
}

function validHost(host: string): boolean {
  const bare = host.startsWith('*.') ? host.slice(2) : host;
  return /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/u.test(bare) || /^\[?[0-9a-f:.]+\]?$/u.test(bare);
}

function dotted(path: Path): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out === '' ? String(key) : `${out}.${String(key)}`), '');
}
