import type { DenyCode } from '../../../shared/deny-codes.js';
import type { Tier } from '../../../shared/tiers.js';

/** What one step of a decision found: a tier with the rule that set it, or a denial. */
export type Outcome =
  | {
      readonly ok: true;
      readonly tier: Tier;
      readonly rule: string;
      readonly reasons: readonly string[];
      /** A tier no policy tier rule may lower this action below (an escalation it must keep). */
      readonly floor?: Tier;
    }
  | { readonly ok: false; readonly code: DenyCode; readonly rule: string; readonly reasons: readonly string[] };

export function tiered(tier: Tier, rule: string, ...reasons: string[]): Outcome {
  return { ok: true, tier, rule, reasons };
}

export function refused(code: DenyCode, rule: string, ...reasons: string[]): Outcome {
  return { ok: false, code, rule, reasons };
}
