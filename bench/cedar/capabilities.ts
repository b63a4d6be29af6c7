import { CAPABILITIES, type Capability } from '../../shared/capabilities.js';
import type { AgentPrincipal } from '../../server/core/policy/types.js';
import { set, str, type CedarPolicy } from './text.js';
import { groupHasMembers, inGroup } from './tools.js';

/**
 * Effective capabilities = deployment ∩ principal ∩ agent ∩ policy (SPEC §3), as forbids: a
 * ceiling that lacks a capability forbids every action needing it. Deployment and policy are
 * known when translating, so theirs are unconditional; the caller's ceiling is an attribute of
 * the principal entity; the agent an action names is a context string matched against the
 * policy's agents (an entity reference to an unknown agent would make Cedar skip the forbid).
 */
export interface Ceilings {
  readonly deployment: ReadonlySet<Capability>;
  readonly policy: ReadonlySet<Capability>;
  readonly agents: ReadonlyMap<string, AgentPrincipal>;
}

/** Which requests a ceiling applies to: a head, and a condition when the head is not enough. */
export interface Selection {
  readonly action: string;
  readonly resource?: string;
  readonly when?: string;
}

export function capabilityPolicies(ceilings: Ceilings): CedarPolicy[] {
  const out: CedarPolicy[] = [{ id: 'principals.agents', effect: 'forbid', when: 'context has agent', unless: `${set(ceilings.agents.keys())}.contains(context.agent)` }];
  for (const capability of CAPABILITIES) {
    const group = `needs.${capability}`;
    if (groupHasMembers(group)) out.push(...ceilingPolicies(`capabilities.${capability}`, { action: inGroup(group) }, capability, ceilings));
  }
  return out;
}

/**
 * The forbids that keep `capability` from the selected requests unless every ceiling grants it.
 * Also used for what arguments require beyond a tool's contract (git fetch through exec.run
 * needs net.egress).
 */
export function ceilingPolicies(id: string, selection: Selection, capability: Capability, ceilings: Ceilings): CedarPolicy[] {
  const out: CedarPolicy[] = [];
  const forbid = (suffix: string, ...conditions: string[]) => {
    const all = [selection.when, ...conditions].filter((c): c is string => c !== undefined);
    out.push({ id: `${id}.${suffix}`, effect: 'forbid', action: selection.action, ...(selection.resource === undefined ? {} : { resource: selection.resource }), ...(all.length === 0 ? {} : { when: all.join(' && ') }) });
  };
  if (!ceilings.deployment.has(capability)) forbid('deployment');
  if (!ceilings.policy.has(capability)) forbid('policy');
  forbid('principal', `!principal.capabilities.contains(${str(capability)})`);
  const lacking = [...ceilings.agents.values()].filter((a) => !a.capabilities.has(capability)).map((a) => a.name);
  if (lacking.length > 0) forbid('agent', 'context has agent', `${set(lacking)}.contains(context.agent)`);
  return out;
}
