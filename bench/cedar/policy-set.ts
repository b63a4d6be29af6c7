import type { DecideContext } from '../../server/core/decide/context.js';
import { capabilityPolicies, type Ceilings } from './capabilities.js';
import { egressPolicies } from './egress.js';
import { pathPolicies } from './paths.js';
import { programPolicies } from './programs.js';
import type { CedarPolicy } from './text.js';
import { toolPolicies } from './tool-rules.js';

export interface Translation {
  readonly policies: readonly CedarPolicy[];
  /** Rules Cedar can only approximate; each is wider in Cedar (denies more). */
  readonly inexact: readonly string[];
}

/**
 * The ORACLE policy in force, as the gate compiled it (roots resolved, pins fixed), translated
 * to Cedar rules: deny by default, forbid beats permit, as in ORACLE.
 */
export function translatePolicy(ctx: DecideContext): Translation {
  const { policy } = ctx.gate;
  const ceilings: Ceilings = { deployment: ctx.deployment, policy: policy.capabilities, agents: policy.agents };
  const paths = pathPolicies(ctx.gate);
  const programs = programPolicies(policy.programs, ctx.pins, ceilings);
  return {
    policies: [...toolPolicies(), ...capabilityPolicies(ceilings), ...paths.policies, ...programs.policies, ...egressPolicies(policy.egress)],
    inexact: [...paths.inexact, ...programs.inexact],
  };
}
