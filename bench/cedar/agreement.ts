import type { Decision } from '../../shared/decision.js';
import type { CedarAnswer } from './engine.js';

/**
 * The correctness cross-check: Cedar answers permit or deny, ORACLE allow, needs-approval or
 * deny. A Cedar permit means "not denied": allow and needs-approval both run once the tier is
 * satisfied, and tiers are not translated. Every disagreement is kept, grouped, with both sides'
 * reasons, so a difference is explained by the rules that produced it.
 */
export interface Agreement {
  readonly total: number;
  readonly same: number;
  readonly rate: number;
  /** ORACLE denials whose ORACLE rule Cedar also names among its determining policies. */
  readonly denials_with_same_rule: number;
  readonly denials: number;
  readonly disagreements: readonly Disagreement[];
}

export interface Disagreement {
  readonly count: number;
  readonly action: string;
  readonly oracle: string;
  readonly cedar: string;
}

export function crossCheck(items: readonly { action: unknown; oracle: Decision; cedar: CedarAnswer }[]): Agreement {
  let same = 0;
  let denials = 0;
  let denials_with_same_rule = 0;
  const groups = new Map<string, Disagreement>();
  for (const { action, oracle, cedar } of items) {
    const oracleDenies = oracle.decision === 'deny';
    if (oracleDenies) {
      denials += 1;
      if (cedar.reasons.includes(oracle.rule)) denials_with_same_rule += 1;
    }
    if (oracleDenies === (cedar.decision === 'deny')) {
      same += 1;
      continue;
    }
    const oracleText = `${oracle.decision} ${oracle.tier} by ${oracle.rule}${oracle.code === null ? '' : ` (${oracle.code})`}: ${oracle.reasons.join('; ')}`;
    const cedarText = `${cedar.decision}${cedar.reasons.length > 0 ? ` by ${cedar.reasons.join(', ')}` : cedar.decision === 'deny' ? ' (no permit applies)' : ''}${cedar.errors.length > 0 ? `; errors: ${cedar.errors.join('; ')}` : ''}`;
    const key = `${oracleText}|${cedarText}`;
    const previous = groups.get(key);
    groups.set(key, { count: (previous?.count ?? 0) + 1, action: previous?.action ?? JSON.stringify(action), oracle: oracleText, cedar: cedarText });
  }
  return { total: items.length, same, rate: items.length === 0 ? 1 : same / items.length, denials, denials_with_same_rule, disagreements: [...groups.values()].sort((a, b) => b.count - a.count) };
}
