import type { DenyCode } from './deny-codes.js';
import type { Tier } from './tiers.js';

/**
 * The closed decision union (SPEC §4). Every variant carries the rule that fired and its
 * reasons; the same object is what the audit log records.
 */
export type Decision = AllowDecision | ApprovalDecision | DenyDecision;

export interface AllowDecision {
  readonly decision: 'allow';
  readonly tier: 'T0' | 'T1';
  readonly approver: null;
  readonly code: null;
  readonly rule: string;
  readonly reasons: readonly string[];
}

export interface ApprovalDecision {
  readonly decision: 'needs-approval';
  readonly tier: 'T2' | 'T3';
  /** T2: any device whose profile allows T2; T3: the desktop with a typed phrase. */
  readonly approver: 'any-device' | 'desktop';
  readonly code: null;
  readonly rule: string;
  readonly reasons: readonly string[];
}

export interface DenyDecision {
  readonly decision: 'deny';
  /** A denial is never executed, so it is reported as T4 whatever the action would have been. */
  readonly tier: 'T4';
  readonly approver: null;
  readonly code: DenyCode;
  readonly rule: string;
  readonly reasons: readonly string[];
}

export function decisionFromTier(tier: Tier, rule: string, reasons: readonly string[]): Decision {
  switch (tier) {
    case 'T0':
    case 'T1':
      return { decision: 'allow', tier, approver: null, code: null, rule, reasons };
    case 'T2':
      return { decision: 'needs-approval', tier, approver: 'any-device', code: null, rule, reasons };
    case 'T3':
      return { decision: 'needs-approval', tier, approver: 'desktop', code: null, rule, reasons };
    case 'T4':
      return deny('TIER_T4', rule, reasons);
  }
}

export function deny(code: DenyCode, rule: string, reasons: readonly string[]): DenyDecision {
  return { decision: 'deny', tier: 'T4', approver: null, code, rule, reasons };
}
