import type { Capability } from '../../../shared/capabilities.js';
import type { Policy } from './types.js';
import { uncoveredArgv } from './uncovered.js';

/**
 * What one agent may use, as the agent can be told (issue 13; the reference filesystem server's
 * `list_allowed_directories`, widened to everything ORACLE judges): the folders and their modes,
 * the names always refused, the programs with their rules, the hosts egress may reach, the
 * agent's own ceiling and, to an agent that may read secrets, the names of the stored ones. It is
 * the policy's text and those names, nothing more: telling it gives away no secret's value, and
 * the gate still judges every call.
 */
export interface AgentView {
  readonly agent: string;
  /** Empty when the policy has no `principals.agents.<agent>`: then the agent may do nothing. */
  readonly capabilities: readonly Capability[];
  readonly scopes: readonly { readonly name: string; readonly roots: readonly { readonly path: string; readonly mode: 'ro' | 'rw'; readonly exclude: readonly string[] }[] }[];
  readonly deny_always: readonly string[];
  readonly programs: readonly { readonly name: string; readonly allow: readonly string[]; readonly confirm: readonly string[]; readonly deny: readonly string[]; readonly args_matching: readonly string[] }[];
  /**
   * A program the policy does not name: always refused to an agent whose actions ORACLE runs (this
   * view's readers: MCP and REST). Only listed programs are pinned at start, so no person's answer
   * could make another one run; `programs.default: confirm` concerns the commands an agent's own
   * runtime runs (Claude Code's Bash, through the hook). See core/decide/toolhost-runnable.ts.
   */
  readonly other_programs: 'deny';
  readonly egress: { readonly allow: readonly string[]; readonly other_hosts: 'deny' | 'confirm' };
  /** The stored secrets an action may name (`net.fetch` and `exec.run_with_secrets`): empty unless the ceiling has `secret.read`. */
  readonly secrets: readonly string[];
  /**
   * The asking session's taint (SPEC §4), when it named its session: whether it has read content
   * from outside the person's projects, and how many such sources, as the gate counts it. Not what
   * they were: a session is named by its id alone, which does not say whose it is (review, session
   * 36); each result that taints names its own sources to the agent that ran it.
   */
  readonly session?: { readonly id: string; readonly tainted: boolean; readonly sources: number };
}

/** `secretNames`: the names in the secret store (the caller reads them; this module does no I/O). */
export function agentView(policy: Policy, agent: string, secretNames: readonly string[] = []): AgentView {
  const ceiling = policy.agents.get(agent)?.capabilities;
  const capabilities = ceiling === undefined ? [] : [...ceiling].filter((c) => policy.capabilities.has(c)).sort();
  return {
    agent,
    capabilities,
    scopes: policy.scopes.map((s) => ({ name: s.name, roots: s.roots.map((r) => ({ path: r.path, mode: r.mode, exclude: [...r.exclude] })) })),
    deny_always: policy.denyAlways.map((d) => d.pattern),
    programs: [...policy.programs.values()].map((p) => ({
      name: p.name,
      allow: p.allow.map((g) => g.text),
      confirm: p.confirm.map((g) => g.text),
      deny: p.deny.map((g) => g.text),
      args_matching: p.argPatterns.map((a) => a.pattern),
      // What an argv no rule covers gets (a program with no rules and no default waits for a person).
      other_args: uncoveredArgv(p) === 'deny' ? 'deny' : 'confirm',
    })),
    other_programs: 'deny',
    egress: { allow: policy.egress.allow.map((h) => (h.port === undefined ? h.host : `${h.host}:${h.port}`)), other_hosts: policy.egress.default },
    secrets: capabilities.includes('secret.read') ? [...secretNames].sort() : [],
  };
}
