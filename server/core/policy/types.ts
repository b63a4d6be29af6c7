import type { Capability } from '../../../shared/capabilities.js';
import type { Tier } from '../../../shared/tiers.js';
import type { ToolName } from '../tools/registry.js';

/**
 * The typed policy (SPEC §3). Built once by load.ts from the validated file; every entry keeps
 * the name of the rule it came from, because decisions report the rule that fired.
 */
export interface Policy {
  /** The active ceiling: capabilities this policy lets anything use at all. */
  readonly capabilities: ReadonlySet<Capability>;
  readonly scopes: readonly Scope[];
  readonly denyAlways: readonly DenyRule[];
  readonly programs: ReadonlyMap<string, ProgramRule>;
  /** What a program not in `programs` gets (`programs.default`): refused, or a person's call (T2). */
  readonly programDefault: 'deny' | 'confirm';
  readonly egress: EgressPolicy;
  readonly tiers: readonly TierRule[];
  readonly agents: ReadonlyMap<string, AgentPrincipal>;
  /** The headless agent agent.delegate runs (issue 17); absent: the gate runs none. */
  readonly delegate?: DelegateRule;
}

/**
 * `delegate:`: an absolute program path and its arguments (the task is appended last), the secret
 * injected into its environment at spawn, the hosts its job's egress proxy lets it reach, and its
 * time limit. Arguments that turn the agent's own permission checks off are refused at load.
 */
export interface DelegateRule {
  readonly program: string;
  readonly args: readonly string[];
  readonly key: { readonly secret: string; readonly env: string } | undefined;
  readonly hosts: readonly EgressHost[];
  readonly timeoutS: number;
}

export interface Scope {
  readonly name: string;
  readonly roots: readonly Root[];
}

export interface Root {
  /** Absolute and lexically canonical, `~` expanded; resolved against links by compile.ts. */
  readonly path: string;
  readonly mode: 'ro' | 'rw';
  readonly exclude: readonly string[];
  readonly rule: string;
}

export interface DenyRule {
  readonly pattern: string;
  readonly rule: string;
}

/** One entry of a program's allow/confirm/deny list, e.g. `push --force`. */
export interface GrammarEntry {
  /** Leading words that must open the argv, in order (`system prune`). */
  readonly words: readonly string[];
  /** Further tokens that must appear anywhere after the words (`--force`). */
  readonly flags: readonly string[];
  readonly text: string;
  readonly rule: string;
}

export interface ArgPattern {
  readonly pattern: string;
  readonly rule: string;
}

export interface ProgramRule {
  readonly name: string;
  /** Absolute path from the policy; otherwise the program is looked up on PATH once, at start. */
  readonly path: string | undefined;
  readonly allow: readonly GrammarEntry[];
  readonly confirm: readonly GrammarEntry[];
  readonly deny: readonly GrammarEntry[];
  readonly argPatterns: readonly ArgPattern[];
  /**
   * What an argv no entry or pattern covers gets, as the program's `default:` says. Absent: refused,
   * except that a program with no rules at all waits for a person every time (no floor).
   */
  readonly otherwise: 'deny' | 'confirm' | undefined;
  readonly rule: string;
}

export interface EgressHost {
  /** Lower-case host name or IP literal; `*.example.com` also matches its subdomains. */
  readonly host: string;
  /** `undefined`: the scheme's default port only; `*`: any port. */
  readonly port: string | undefined;
  readonly why: string;
  readonly rule: string;
}

export interface EgressPolicy {
  readonly allow: readonly EgressHost[];
  readonly default: 'deny' | 'confirm';
}

export interface TierRule {
  readonly tool: ToolName;
  readonly scope: string | undefined;
  readonly path: string | undefined;
  readonly program: string | undefined;
  readonly tier: Tier;
  readonly why: string | undefined;
  readonly rule: string;
}

export interface AgentPrincipal {
  readonly name: string;
  readonly capabilities: ReadonlySet<Capability>;
}
