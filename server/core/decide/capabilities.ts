import type { Capability } from '../../../shared/capabilities.js';

export interface Ceiling {
  readonly name: string;
  readonly capabilities: ReadonlySet<Capability>;
}

/**
 * Effective capabilities = deployment ∩ principal ∩ runtime ∩ active (SPEC §3). Pure set
 * intersection, so nothing inner can widen an outer ceiling. Returns the first ceiling that lacks
 * a required capability, or undefined when every one covers them all.
 */
export function missingCapability(
  required: readonly Capability[],
  ceilings: readonly Ceiling[],
): { capability: Capability; ceiling: string } | undefined {
  for (const capability of required) {
    const lacking = ceilings.find((c) => !c.capabilities.has(capability));
    if (lacking !== undefined) return { capability, ceiling: lacking.name };
  }
  return undefined;
}

export function intersect(ceilings: readonly Ceiling[]): Set<Capability> {
  const [first, ...rest] = ceilings;
  const out = new Set(first?.capabilities ?? []);
  for (const ceiling of rest) for (const c of out) if (!ceiling.capabilities.has(c)) out.delete(c);
  return out;
}
